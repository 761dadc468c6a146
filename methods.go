package sdrmap

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/mapsolver/exact"
	"github.com/sdrmap/sdrmap/mapsolver/icm"
	"github.com/sdrmap/sdrmap/mapsolver/ipmnc"
	"github.com/sdrmap/sdrmap/mapsolver/trws"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

func init() {
	Register(NewMethod("exact", `depth-first branch and bound; proves optimality, for small models
(refuses more than --max-states joint states)`, false, solveExact))
	Register(NewMethod("icm", `iterated conditional modes from the best unary states (no bound)`, false, solveICM))
	Register(NewMethod("trws", `sequential tree-reweighted message passing (Kolmogorov 2006); its
bound is the LP relaxation's; assignment polished by tree-block
moves`, false, solveTRWS))
	Register(NewMethod("ipm-nc", `the paper's IPM-NC baseline: a KKT point of the nonconvex rank-1
relaxation from the uniform point (projected gradient), argmax
rounding polished by ICM (no bound)`, false, solveIPMNC))
	Register(NewMethod("auto", `trws, then the relaxation with the time left (cyclic on
shift-invariant models such as ORIENT, their symmetry kept;
factor on models with at most 3 edges per variable, such as
grids; on denser ones sdpad up to N = 1000, sdpad-lr beyond)
unless the LP bound already proves the trws assignment optimal or
the model was converted from higher order (below); the better
assignment and the larger bound are kept`, false, solveAuto))
}

// autoLPShare is the share of the time limit that auto gives TRW-S.
const autoLPShare = 0.2

// autoRelaxation names the relaxation method of auto for p: the SDR
// reduced by its symmetry (cyclic) on shift-invariant models, where it
// proves ORIENT's optima in seconds (presolve then keeps the symmetry,
// keepsSymmetry); the factor ALM on sparse models (at most sparseEdges
// edges per variable: grids), where it converges and SDPAD-LR does not; on
// denser ones, where the factor ALM does not converge, the dense SDPAD up
// to denseN (its bounds after 60 s were the tightest on deer, giraffe and
// CSP_11) and SDPAD-LR beyond (BENCHMARKS.md).
func autoRelaxation(p *model.Pairwise) string {
	if cyclicApplies(p) {
		return "cyclic"
	}
	n := 1
	for _, m := range p.Card {
		n += m
	}
	switch {
	case len(p.Edges) <= sparseEdges*p.NumVars():
		return "factor"
	case n <= denseN:
		return "sdpad"
	}
	return "sdpad-lr"
}

// sparseEdges is the largest number of edges per variable (half the mean
// degree) of a model that auto relaxes by the factor ALM; denseN the
// largest order N of the lifted matrix that it relaxes by the dense SDPAD
// (one eigendecomposition of order N an iteration: about a second at 1000).
const (
	sparseEdges = 3
	denseN      = 1000
)

// solveAuto runs TRW-S (for at most autoLPShare of the time limit), then,
// unless its LP bound proves its assignment optimal or the model was
// converted from higher order, the relaxation method of autoRelaxation
// with the time left. The better assignment and the larger of the two
// certified bounds are kept; status and SDR figures are those of the SDR
// when it ran, iterations the sum of both. On a converted model the
// relaxation's time goes to the search after the solver instead: there the
// SDR's bound stayed far below the LP bound (tb2_pedigree9: -2848 against
// 270.0 after 24 s) and its roundings were worse starts for the search than
// TRW-S's (BENCHMARKS.md).
func solveAuto(ctx context.Context, in *Input, s *Settings) (*Outcome, error) {
	start := time.Now()
	lpSet := *s
	lpSet.TimeLimit = time.Duration(float64(s.TimeLimit) * autoLPShare)
	lp, err := solveTRWS(ctx, in, &lpSet)
	if err != nil || lp.Status == solver.Infeasible {
		return lp, err
	}
	p := in.Pairwise
	e := math.Inf(1)
	if lp.Assignment != nil {
		e = p.Energy(lp.Assignment)
	}
	if solver.Proven(e, lp.Bound) || in.Converted || ctx.Err() != nil {
		if s.Log != nil && ctx.Err() == nil {
			why := "the LP bound proves the TRW-S assignment optimal"
			if in.Converted {
				why = "the model was converted from higher order"
			}
			fmt.Fprintf(s.Log, "auto: %s; no relaxation solved\n", why)
		}
		return lp, nil
	}
	rest := *s
	if s.TimeLimit > 0 {
		if rest.TimeLimit = s.TimeLimit - time.Since(start); rest.TimeLimit <= 0 {
			lp.Status = solver.TimeLimit
			return lp, nil
		}
	}
	name := autoRelaxation(p)
	sdp, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("auto: method %s not registered", name)
	}
	out, err := sdp.Solve(ctx, in, &rest)
	if err != nil {
		return nil, err
	}
	out.Bound = max(out.Bound, lp.Bound)
	out.Iterations += lp.Iterations
	if out.Assignment == nil || (lp.Assignment != nil && p.Energy(out.Assignment) > e) {
		out.Assignment = lp.Assignment
	}
	return out, nil
}

// solveExact runs branch and bound; a proven optimum is its own bound.
func solveExact(ctx context.Context, in *Input, s *Settings) (*Outcome, error) {
	res, err := exact.Solve(ctx, in.Pairwise, exact.Settings{MaxStates: s.MaxStates, TimeLimit: s.TimeLimit})
	if err != nil {
		return nil, err
	}
	out := &Outcome{Assignment: res.Assignment, Status: res.Status, Iterations: int(res.Nodes), Bound: math.Inf(-1)}
	if res.Status == solver.Solved {
		out.Bound = res.Energy
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "exact: %d search nodes, %v\n", res.Nodes, res.Time)
	}
	return out, nil
}

// solveICM runs iterated conditional modes from the best unary states: a
// local optimum, no bound.
func solveICM(ctx context.Context, in *Input, s *Settings) (*Outcome, error) {
	res, err := icm.Solve(ctx, in.Pairwise, icm.Settings{MaxSweeps: s.MaxIter, TimeLimit: s.TimeLimit})
	if err != nil {
		return nil, err
	}
	return &Outcome{Assignment: res.Assignment, Status: res.Status, Iterations: res.Sweeps, Bound: math.Inf(-1)}, nil
}

// solveTRWS runs TRW-S (its LP bound is the bound) and polishes its
// assignment by the tree-block search (icm.Trees).
func solveTRWS(ctx context.Context, in *Input, s *Settings) (*Outcome, error) {
	s.stage("trws", 0, math.Inf(1), math.Inf(-1))
	res, err := trws.Solve(ctx, in.Pairwise, trws.Settings{MaxIter: s.MaxIter, TimeLimit: s.TimeLimit})
	if err != nil {
		return nil, err
	}
	s.stage("trws", res.Iterations, res.Energy, res.Bound)
	if res.Assignment != nil && !s.NoPolish {
		icm.NewTreesCtx(ctx, in.Pairwise).ImproveCtx(ctx, res.Assignment)
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "trws: %d iterations, energy %.9g, bound %.9g, %v\n", res.Iterations, res.Energy, res.Bound, res.Time)
	}
	return &Outcome{Assignment: res.Assignment, Status: res.Status, Iterations: res.Iterations, Bound: res.Bound}, nil
}

// solveIPMNC runs the paper's IPM-NC baseline: a KKT point of the rank-1
// (nonconvex quadratic) relaxation from the uniform point, rounded by argmax
// and polished by ICM; a local method, no bound. --tol is its KKT tolerance.
func solveIPMNC(ctx context.Context, in *Input, s *Settings) (*Outcome, error) {
	res, err := ipmnc.Solve(ctx, in.Pairwise, ipmnc.Settings{MaxIter: s.MaxIter, TimeLimit: s.TimeLimit, Tol: s.Tol})
	if err != nil {
		return nil, err
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "ipm-nc: %d iterations, objective %.9g, KKT residual %.3g, vertex %v, energy %.9g, %v\n",
			res.Iterations, res.Objective, res.KKT, res.Vertex, res.Energy, res.Time)
	}
	return &Outcome{Assignment: res.Assignment, Status: res.Status, Iterations: res.Iterations, Bound: math.Inf(-1)}, nil
}
