package sdrmap

import (
	"context"
	"fmt"
	"time"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/relax/cyclic"
	"github.com/sdrmap/sdrmap/relax/driver"
	"github.com/sdrmap/sdrmap/search/local"
	"github.com/sdrmap/sdrmap/solver"
)

func init() {
	Register(NewMethod("cyclic", `for shift-invariant models only (every variable with m states,
energy unchanged when all states advance by one mod m: ORIENT,
Potts models without unary terms): the same relaxation reduced by
its symmetry to m/2 Hermitian blocks of order n (discrete Fourier
transform; solver/cyclic), solved by an augmented Lagrangian on
factors of rank --rank (0: 4, doubling up to --max-rank, 0: 64,
along negative curvature of the certificate) on the blocks'
spheres, certified by Lanczos on the blocks' slacks, rounded from
the phases of the first block, then the local search of sdpad
(unless proven optimal; under --time-limit it keeps a fifth of
the time); the symmetry is kept (no variable fixed). ORIENT at
the paper's size (n = 1000, m = 16) proven optimal in seconds
(BENCHMARKS.md)`, true, solveCyclic))
}

// keepsSymmetry reports whether the method named name solves the
// shift-invariant model m in its symmetric form, so that presolve must
// not fix a variable: cyclic, and auto when it will relax m by cyclic.
func keepsSymmetry(name string, m *model.Model) bool {
	switch name {
	case "cyclic":
		return true
	case "", "auto":
		for f := range m.Factors {
			if m.Factors[f].ForbiddenCount() > 0 {
				return false
			}
		}
		return m.ShiftInvariant()
	}
	return false
}

// cyclicApplies reports whether the cyclic solver accepts p.
func cyclicApplies(p *model.Pairwise) bool {
	_, err := cyclic.FromPairwise(p)
	return err == nil && len(p.Edges) > 0
}

// solveCyclic runs solver/cyclic on a shift-invariant pairwise model with
// 1 - driver.SearchShare of the time limit and, unless its best rounding
// is proven optimal, polishes it by the SDR methods' local search
// (local.Candidates: ICM, tree-block moves, iterated search) in the rest.
// The SDR figures' Dimension is the lifted N of the same relaxation (its
// blocks have order n).
func solveCyclic(ctx context.Context, in *Input, s *Settings) (*Outcome, error) {
	p, err := cyclic.FromPairwise(in.Pairwise)
	if err != nil {
		return nil, fmt.Errorf("%w; --solver cyclic needs a shift-invariant model without evidence", err)
	}
	set := cyclic.DefaultSettings()
	set.TimeLimit = time.Duration(float64(s.TimeLimit) * (1 - driver.SearchShare))
	set.Seed, set.Verbose = s.Seed, s.Log
	if s.Tol > 0 {
		set.Tol = s.Tol
	}
	if s.MaxIter > 0 {
		set.MaxIter = s.MaxIter
	}
	if s.Rank > 0 {
		set.Rank = s.Rank
	}
	if s.MaxRank > 0 {
		set.MaxRank = s.MaxRank
	}
	set.MaxRank = max(set.MaxRank, set.Rank)
	set.Monitor = func(r *cyclic.Result) { s.stage("cyclic", r.Iterations, r.Energy, r.Bound) }
	res, err := cyclic.Solve(ctx, p, set)
	if err != nil {
		return nil, err
	}
	x, e := res.Assignment, res.Energy
	if x != nil && !solver.Proven(e, res.Bound) && ctx.Err() == nil {
		x, e, _ = local.Candidates(ctx, in.Pairwise, [][]int{x}, res.Bound, nil,
			local.Settings{NoPolish: s.NoPolish, Seed: s.Seed, UseBudget: s.TimeLimit > 0})
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "cyclic: %v after %d iterations (%d L-BFGS), energy %.9g, bound %.9g, %v\n",
			res.Status, res.Iterations, res.Inner, e, res.Bound, res.Time)
	}
	return &Outcome{Assignment: x, Status: res.Status, Bound: res.Bound, Iterations: res.Iterations, Rounds: 1,
		SDR: &SDRInfo{PrimalObjective: res.Objective, DualObjective: res.Bound, Gap: res.Gap,
			PrimalInfeasibility: res.PrimalInf, DualInfeasibility: res.DualInf, Dimension: 1 + p.N*p.M, Rank: res.Rank}}, nil
}
