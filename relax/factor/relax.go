package factor

import (
	"context"

	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/sdr"
)

// Relaxer is the factor ALM as a relaxation solver of the SDR driver
// (relax.Solver): DefaultSettings with relax.Settings applied over it.
type Relaxer struct{}

// Relax implements relax.Solver.
func (Relaxer) Relax(ctx context.Context, prob *sdr.Problem, rs relax.Settings) (*relax.Solution, error) {
	s := DefaultSettings()
	s.Seed, s.Verbose = rs.Seed, rs.Log
	if rs.Tol > 0 {
		s.Tol, s.TolLoose = rs.Tol, max(s.TolLoose, rs.Tol)
	}
	if rs.MaxIter > 0 {
		s.MaxIter = rs.MaxIter
	}
	if rs.Rank > 0 {
		s.Rank, s.MaxRank = rs.Rank, max(s.MaxRank, rs.Rank)
	}
	if rs.MaxRank > 0 {
		s.MaxRank, s.Rank = rs.MaxRank, min(s.Rank, rs.MaxRank)
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
