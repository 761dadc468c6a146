package sdpad

import (
	"context"

	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/sdr"
)

// TightenFloor is Settings.TightenTo of a Relaxer asked to tighten
// (relax.Settings.Tighten; SolveLR is not): two decades below the default
// Tol, a floor that small models reach within a time limit, where the run
// then ends at a tolerance, as deterministic as without tightening, rather
// than at the clock (bench/results/2026-11-27b/NOTES-csp-bound.md).
const TightenFloor = 1e-6

// Relaxer is SDPAD (Solve) or, with LowRank, SDPAD-LR (SolveLR) as a
// relaxation solver of the SDR driver (relax.Solver): Base (DefaultSettings
// when nil) with the settings of relax.Settings applied over it.
type Relaxer struct {
	LowRank bool
	Base    *Settings
}

// Relax implements relax.Solver.
func (r Relaxer) Relax(ctx context.Context, prob *sdr.Problem, rs relax.Settings) (*relax.Solution, error) {
	s := DefaultSettings()
	if r.Base != nil {
		s = *r.Base
	}
	if rs.Tol > 0 {
		s.Tol = rs.Tol
		s.TolLoose = max(s.TolLoose, rs.Tol)
	}
	if rs.MaxIter > 0 {
		s.MaxIter = rs.MaxIter
	}
	if rs.Rank > 0 {
		s.Rank = rs.Rank
		s.MaxRank = max(s.MaxRank, rs.Rank)
	}
	if rs.MaxRank > 0 {
		s.MaxRank = rs.MaxRank
		s.Rank = min(s.Rank, rs.MaxRank)
	}
	if rs.Tighten && !r.LowRank {
		s.TightenTo = TightenFloor
	}
	s.Verbose = rs.Log
	if rs.Progress != nil {
		s.Monitor = func(it *Iterate) {
			rs.Progress(relax.Iterate{Iteration: it.K, Time: it.Time, Bound: it.Bound - prob.Const, Gap: it.Gap, PrimalInfeasibility: it.PrimalInfeasibility})
		}
	}
	if rs.Probe != nil {
		s.Probe = func(d *Result) bool { return rs.Probe(d.Solution()) }
	}
	if w := rs.Start; w != nil {
		s.Start = &Start{Y: w.Y, Z: w.Z, Factor: w.Factor, Mu: w.Penalty}
	}
	run := Solve
	if r.LowRank {
		run = SolveLR
	}
	res, err := run(ctx, prob, s)
	if err != nil {
		return nil, err
	}
	return res.Solution(), nil
}

// Solution returns r in the driver's terms; DualInfeasibility is the one
// the stopping rule uses (FaceDualInfeasibility).
func (r *Result) Solution() *relax.Solution {
	return &relax.Solution{
		Status: r.Status, X: r.X, Factor: r.Factor, Rank: r.Rank,
		Y: r.Y, Z: r.Z, BestY: r.BestY, BestZ: r.BestZ, EnergyBound: r.EnergyBound,
		PrimalObjective: r.PrimalObjective, DualObjective: r.DualObjective, Gap: r.Gap,
		PrimalInfeasibility: r.PrimalInfeasibility, DualInfeasibility: r.FaceDualInfeasibility,
		Iterations: r.Iterations, Restarts: r.Restarts, Penalty: r.Mu, Marginals: r.Marginals,
	}
}
