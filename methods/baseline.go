package methods

import (
	"context"
	"fmt"
	"math"

	"github.com/sdrmap/sdrmap/mapsolver/exact"
	"github.com/sdrmap/sdrmap/mapsolver/icm"
	"github.com/sdrmap/sdrmap/mapsolver/ipmnc"
	"github.com/sdrmap/sdrmap/mapsolver/trws"
	"github.com/sdrmap/sdrmap/solver"
)

// The MAP methods beside the relaxation (package mapsolver).
func init() {
	Register(New("exact", `depth-first branch and bound; proves optimality, for small models
(refuses more than --max-states joint states)`, false, solveExact))
	Register(New("icm", `iterated conditional modes from the best unary states (no bound)`, false, solveICM))
	Register(New("trws", `sequential tree-reweighted message passing (Kolmogorov 2006); its
bound is the LP relaxation's; assignment polished by tree-block
moves`, false, solveTRWS))
	Register(New("ipm-nc", `the paper's IPM-NC baseline: a KKT point of the nonconvex rank-1
relaxation from the uniform point (projected gradient), argmax
rounding polished by ICM (no bound)`, false, solveIPMNC))
}

// solveExact runs branch and bound; a proven optimum is its own bound.
func solveExact(ctx context.Context, in *Input, run *Run) (*Outcome, error) {
	o, err := OptionsOf[ExactOptions]("exact", run)
	if err != nil {
		return nil, err
	}
	res, err := exact.Solve(ctx, in.Pairwise, exact.Settings{MaxStates: o.MaxStates})
	if err != nil {
		return nil, err
	}
	out := &Outcome{Assignment: res.Assignment, Status: res.Status, Iterations: int(res.Nodes), Bound: math.Inf(-1)}
	if res.Status == solver.Solved {
		out.Bound = res.Energy
	}
	if run.Log != nil {
		fmt.Fprintf(run.Log, "exact: %d search nodes, %v\n", res.Nodes, res.Time)
	}
	return out, nil
}

// solveICM runs iterated conditional modes from the best unary states: a
// local optimum, no bound.
func solveICM(ctx context.Context, in *Input, run *Run) (*Outcome, error) {
	o, err := OptionsOf[ICMOptions]("icm", run)
	if err != nil {
		return nil, err
	}
	res, err := icm.Solve(ctx, in.Pairwise, icm.Settings{MaxSweeps: o.MaxSweeps})
	if err != nil {
		return nil, err
	}
	return &Outcome{Assignment: res.Assignment, Status: res.Status, Iterations: res.Sweeps, Bound: math.Inf(-1)}, nil
}

// solveTRWS runs TRW-S (its LP bound is the bound) and polishes its
// assignment by the tree-block search (icm.Trees).
func solveTRWS(ctx context.Context, in *Input, run *Run) (*Outcome, error) {
	o, err := OptionsOf[TRWSOptions]("trws", run)
	if err != nil {
		return nil, err
	}
	run.stage("trws", 0, math.Inf(1), math.Inf(-1))
	res, err := trws.Solve(ctx, in.Pairwise, trws.Settings{MaxIter: o.MaxIter})
	if err != nil {
		return nil, err
	}
	run.stage("trws", res.Iterations, res.Energy, res.Bound)
	if res.Assignment != nil && !run.NoPolish {
		icm.NewTreesCtx(ctx, in.Pairwise).ImproveCtx(ctx, res.Assignment)
	}
	if run.Log != nil {
		fmt.Fprintf(run.Log, "trws: %d iterations, energy %.9g, bound %.9g, %v\n", res.Iterations, res.Energy, res.Bound, res.Time)
	}
	return &Outcome{Assignment: res.Assignment, Status: res.Status, Iterations: res.Iterations, Bound: res.Bound}, nil
}

// solveIPMNC runs the paper's IPM-NC baseline: a KKT point of the rank-1
// (nonconvex quadratic) relaxation from the uniform point, rounded by argmax
// and polished by ICM; a local method, no bound.
func solveIPMNC(ctx context.Context, in *Input, run *Run) (*Outcome, error) {
	o, err := OptionsOf[IPMNCOptions]("ipm-nc", run)
	if err != nil {
		return nil, err
	}
	res, err := ipmnc.Solve(ctx, in.Pairwise, ipmnc.Settings{MaxIter: o.MaxIter, Tol: o.Tol})
	if err != nil {
		return nil, err
	}
	if run.Log != nil {
		fmt.Fprintf(run.Log, "ipm-nc: %d iterations, objective %.9g, KKT residual %.3g, vertex %v, energy %.9g, %v\n",
			res.Iterations, res.Objective, res.KKT, res.Vertex, res.Energy, res.Time)
	}
	return &Outcome{Assignment: res.Assignment, Status: res.Status, Iterations: res.Iterations, Bound: math.Inf(-1)}, nil
}
