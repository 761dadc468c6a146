package densefactor

import (
	"context"

	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/sdr"
)

// Relaxer is the dense factor ALM as a relaxation solver of the SDR driver
// (relax.Solver): DefaultSettings with relax.Settings applied over it.
// Asked to tighten (relax.Settings.Tighten: a time limit at the default
// tolerance) it meets TolLoose first and then tightens to Tol
// (Settings.TightenTo): it reaches 1e-3 sooner than a run at 1e-4 from
// the start (giraffe_0200: 17.3 s against 47.9 s on one core), but 1e-4
// later, if at all (bench/results/2026-11-27d/NOTES.md).
type Relaxer struct{}

// Relax implements relax.Solver.
func (Relaxer) Relax(ctx context.Context, prob *sdr.Problem, rs relax.Settings) (*relax.Solution, error) {
	s := DefaultSettings()
	s.Seed, s.Verbose, s.RunDeadline = rs.Seed, rs.Log, rs.RunDeadline
	if rs.Tol > 0 {
		s.Tol, s.TolLoose = rs.Tol, max(s.TolLoose, rs.Tol)
	}
	if rs.Tighten {
		s.Tol, s.TightenTo = s.TolLoose, s.Tol
	}
	if rs.MaxIter > 0 {
		s.MaxIter = rs.MaxIter
	}
	s.Rank, s.MaxRank = rs.Rank, rs.MaxRank
	if s.MaxRank > 0 && s.Rank > s.MaxRank {
		s.MaxRank = s.Rank
	}
	if rs.Progress != nil {
		s.Monitor = func(it *Iterate) {
			rs.Progress(relax.Iterate{Iteration: it.K, Time: it.Time, Bound: it.Bound - prob.Const, Gap: it.Gap, PrimalInfeasibility: it.PrimalInfeasibility})
		}
	}
	if rs.Probe != nil {
		s.Probe = func(r *Result) bool { return rs.Probe(r.Solution()) }
	}
	if w := rs.Start; w != nil {
		s.Start = &Start{Factor: w.Factor, Y: w.Y, Z: w.Z}
	}
	res, err := Solve(ctx, prob, s)
	if err != nil {
		return nil, err
	}
	return res.Solution(), nil
}

// Solution returns r in the driver's terms.
func (r *Result) Solution() *relax.Solution {
	return &relax.Solution{
		Status: r.Status, Factor: r.Factor, Rank: r.Rank,
		Y: r.Y, Z: r.Z, BestY: r.BestY, BestZ: r.BestZ, EnergyBound: r.EnergyBound,
		PrimalObjective: r.PrimalObjective, DualObjective: r.DualObjective, Gap: r.Gap,
		PrimalInfeasibility: r.PrimalInfeasibility, DualInfeasibility: r.DualInfeasibility,
		Iterations: r.Iterations, Marginals: r.Marginals,
	}
}
