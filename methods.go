package sdrmap

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
	"github.com/sdrmap/sdrmap/solver/exact"
	"github.com/sdrmap/sdrmap/solver/icm"
	"github.com/sdrmap/sdrmap/solver/sdpad"
	"github.com/sdrmap/sdrmap/solver/trws"
)

func init() {
	methods["exact"] = solveExact
	methods["icm"] = solveICM
	methods["trws"] = solveTRWS
	methods["auto"] = solveAuto
}

// autoLPShare is the share of the time limit that auto gives TRW-S.
const autoLPShare = 0.2

// solveAuto runs TRW-S (for at most autoLPShare of the time limit), then,
// unless its LP bound proves its assignment optimal or the model was
// converted from higher order, SDPAD-LR with the time left. The better
// assignment and the larger of the two certified bounds are kept; status
// and SDR figures are those of the SDR when it ran, iterations the sum of
// both. On a converted model the relaxation's time goes to the search
// after the solver instead: there the SDR's bound stayed far below the LP
// bound (tb2_pedigree9: -2848 against 270.0 after 24 s) and its roundings
// were worse starts for the search than TRW-S's (BENCHMARKS.md).
func solveAuto(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
	start := time.Now()
	lpSet := *s
	lpSet.TimeLimit = time.Duration(float64(s.TimeLimit) * autoLPShare)
	x, err := solveTRWS(ctx, p, &lpSet, r)
	if err != nil || r.Status == solver.Infeasible {
		return x, err
	}
	e, lp := math.Inf(1), r.Bound
	if x != nil {
		e = p.Energy(x)
	}
	if proven(e, lp) || s.converted || ctx.Err() != nil {
		if s.Log != nil && ctx.Err() == nil {
			why := "the LP bound proves the TRW-S assignment optimal"
			if s.converted {
				why = "the model was converted from higher order"
			}
			fmt.Fprintf(s.Log, "auto: %s; no relaxation solved\n", why)
		}
		return x, nil
	}
	rest := *s
	if s.TimeLimit > 0 {
		if rest.TimeLimit = s.TimeLimit - time.Since(start); rest.TimeLimit <= 0 {
			r.Status = solver.TimeLimit
			return x, nil
		}
	}
	iters := r.Iterations
	y, err := solveSDR(ctx, p, &rest, r, sdpad.SolveLR, true)
	if err != nil {
		return nil, err
	}
	r.Bound = max(r.Bound, lp)
	r.Iterations += iters
	if y == nil || (x != nil && p.Energy(y) > e) {
		return x, nil
	}
	return y, nil
}

// solveExact runs branch and bound; a proven optimum is its own bound.
func solveExact(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
	res, err := exact.Solve(ctx, p, exact.Settings{MaxStates: s.MaxStates, TimeLimit: s.TimeLimit})
	if err != nil {
		return nil, err
	}
	r.Status = res.Status
	r.Iterations = int(res.Nodes)
	if res.Status == solver.Solved {
		r.Bound = res.Energy
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "exact: %d search nodes, %v\n", res.Nodes, res.Time)
	}
	return res.Assignment, nil
}

// solveICM runs iterated conditional modes from the best unary states: a
// local optimum, no bound.
func solveICM(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
	res, err := icm.Solve(ctx, p, icm.Settings{MaxSweeps: s.MaxIter, TimeLimit: s.TimeLimit})
	if err != nil {
		return nil, err
	}
	r.Status, r.Iterations = res.Status, res.Sweeps
	return res.Assignment, nil
}

// solveTRWS runs TRW-S (its LP bound is the bound) and polishes its
// assignment by the tree-block search (icm.Trees).
func solveTRWS(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
	res, err := trws.Solve(ctx, p, trws.Settings{MaxIter: s.MaxIter, TimeLimit: s.TimeLimit})
	if err != nil {
		return nil, err
	}
	r.Status, r.Iterations, r.Bound = res.Status, res.Iterations, res.Bound
	if res.Assignment != nil && !s.NoPolish {
		icm.NewTrees(p).ImproveCtx(ctx, res.Assignment)
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "trws: %d iterations, energy %.9g, bound %.9g, %v\n", res.Iterations, res.Energy, res.Bound, res.Time)
	}
	return res.Assignment, nil
}
