package methods

import (
	"context"
	"fmt"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/relax/cyclic"
	"github.com/sdrmap/sdrmap/relax/driver"
	"github.com/sdrmap/sdrmap/search/local"
	"github.com/sdrmap/sdrmap/solver"
)

func init() {
	Register(New("cyclic", `for shift-invariant models only (every variable with m states,
energy unchanged when all states advance by one mod m: ORIENT,
Potts models without unary terms): the same relaxation reduced by
its symmetry to m/2 Hermitian blocks of order n (discrete Fourier
transform; relax/cyclic), solved by an augmented Lagrangian on
factors of rank --rank (0: 4, doubling up to --max-rank, 0: 64,
along negative curvature of the certificate) on the blocks'
spheres, certified by Lanczos on the blocks' slacks, rounded from
the phases of the first block, then the local search of sdpad
(unless proven optimal; under --time-limit it keeps a fifth of
the time); the symmetry is kept (no variable fixed)`, true, solveCyclic))
}

// cyclicApplies reports whether the cyclic solver accepts p.
func cyclicApplies(p *model.Pairwise) bool {
	_, err := cyclic.FromPairwise(p)
	return err == nil && len(p.Edges) > 0
}

// solveCyclic runs relax/cyclic on a shift-invariant pairwise model with
// 1 - driver.SearchShare of the time left and, unless its best rounding
// is proven optimal, polishes it by the SDR methods' local search
// (local.Candidates: ICM, tree-block moves, iterated search) in the rest.
// The SDR figures' Dimension is the lifted N of the same relaxation (its
// blocks have order n).
func solveCyclic(ctx context.Context, in *Input, run *Run) (*Outcome, error) {
	o, err := OptionsOf[RelaxOptions]("cyclic", run)
	if err != nil {
		return nil, err
	}
	p, err := cyclic.FromPairwise(in.Pairwise)
	if err != nil {
		return nil, fmt.Errorf("%w; --solver cyclic needs a shift-invariant model without evidence", err)
	}
	set := cyclic.DefaultSettings()
	set.Seed, set.Verbose = run.Seed, run.Log
	if o.Tol > 0 {
		set.Tol = o.Tol
	}
	if o.MaxIter > 0 {
		set.MaxIter = o.MaxIter
	}
	if o.Rank > 0 {
		set.Rank = o.Rank
	}
	if o.MaxRank > 0 {
		set.MaxRank = o.MaxRank
	}
	set.MaxRank = max(set.MaxRank, set.Rank)
	set.Monitor = func(r *cyclic.Result) { run.stage("cyclic", r.Iterations, r.Energy, r.Bound) }
	cctx, cancel := solver.Share(ctx, 1-driver.SearchShare)
	res, err := cyclic.Solve(cctx, p, set)
	cancel()
	if err != nil {
		return nil, err
	}
	x, e := res.Assignment, res.Energy
	if x != nil && !solver.Proven(e, res.Bound) && ctx.Err() == nil {
		x, e, _ = local.Candidates(ctx, in.Pairwise, [][]int{x}, res.Bound, nil,
			local.Settings{NoPolish: run.NoPolish, Seed: run.Seed})
	}
	if run.Log != nil {
		fmt.Fprintf(run.Log, "cyclic: %v after %d iterations (%d L-BFGS), energy %.9g, bound %.9g, %v\n",
			res.Status, res.Iterations, res.Inner, e, res.Bound, res.Time)
	}
	return &Outcome{Assignment: x, Status: res.Status, Bound: res.Bound, Iterations: res.Iterations, Rounds: 1,
		SDR: &SDRInfo{PrimalObjective: res.Objective, DualObjective: res.Bound, Gap: res.Gap,
			PrimalInfeasibility: res.PrimalInf, DualInfeasibility: res.DualInf, Dimension: 1 + p.N*p.M, Rank: res.Rank}}, nil
}
