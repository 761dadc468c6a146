package sdrmap

import (
	"context"

	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver/factor"
	"github.com/sdrmap/sdrmap/solver/sdpad"
)

// solveFactor returns the factor ALM (package factor) as a relaxation of
// solveSDR: the pipeline's rank, iteration and tolerance settings map to
// factor.Settings, the time limit, log, monitor, probe and warm start come
// from set, and the result is given in sdpad's form (no dense X, so the
// driver certifies on the face).
func solveFactor(s *Settings) relaxation {
	return func(ctx context.Context, prob *sdr.Problem, set sdpad.Settings) (*sdpad.Result, error) {
		fs := factor.DefaultSettings()
		fs.TimeLimit, fs.Seed, fs.Verbose = set.TimeLimit, s.Seed, set.Verbose
		if s.Tol > 0 {
			fs.Tol, fs.TolLoose = s.Tol, max(fs.TolLoose, s.Tol)
		}
		if s.MaxIter > 0 {
			fs.MaxIter = s.MaxIter
		}
		if s.MaxRank > 0 {
			fs.MaxRank = s.MaxRank
			fs.Rank = min(fs.Rank, s.MaxRank)
		}
		if s.Rank > 0 {
			fs.Rank = s.Rank
			fs.MaxRank = max(fs.MaxRank, s.Rank)
		}
		if st := set.Start; st != nil {
			fs.Start = &factor.Start{Factor: st.Factor, Y: st.Y, Z: st.Z}
		}
		if set.Monitor != nil {
			fs.Monitor = func(it *factor.Iterate) {
				set.Monitor(&sdpad.Iterate{K: it.K, PrimalObjective: it.PrimalObjective, DualObjective: it.DualObjective,
					Gap: it.Gap, PrimalInfeasibility: it.PrimalInfeasibility, DualInfeasibility: it.DualInfeasibility,
					Rank: it.Rank, Bound: it.Bound, Time: it.Time})
			}
		}
		if set.Probe != nil {
			fs.Probe = func(r *factor.Result) bool { return set.Probe(asSDPAD(r)) }
		}
		r, err := factor.Solve(ctx, prob, fs)
		if err != nil {
			return nil, err
		}
		return asSDPAD(r), nil
	}
}

// asSDPAD gives a factor.Result the form of an sdpad.Result.
func asSDPAD(r *factor.Result) *sdpad.Result {
	return &sdpad.Result{
		Status: r.Status, Factor: r.Factor, Rank: r.Rank,
		Y: r.Y, Z: r.Z, BestY: r.BestY, BestZ: r.BestZ,
		PrimalObjective: r.PrimalObjective, DualObjective: r.DualObjective, Gap: r.Gap,
		PrimalInfeasibility: r.PrimalInfeasibility, DualInfeasibility: r.DualInfeasibility,
		FaceDualInfeasibility: r.DualInfeasibility, Iterations: r.Iterations, Time: r.Time,
		SDRBound: r.SDRBound, EnergyBound: r.EnergyBound, Marginals: r.Marginals,
	}
}
