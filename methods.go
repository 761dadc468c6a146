package sdrmap

import (
	"context"
	"fmt"

	"sdrmap/model"
	"sdrmap/solver"
	"sdrmap/solver/exact"
	"sdrmap/solver/icm"
	"sdrmap/solver/trws"
)

func init() {
	methods["exact"] = solveExact
	methods["icm"] = solveICM
	methods["trws"] = solveTRWS
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
// assignment with ICM.
func solveTRWS(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
	res, err := trws.Solve(ctx, p, trws.Settings{MaxIter: s.MaxIter, TimeLimit: s.TimeLimit})
	if err != nil {
		return nil, err
	}
	r.Status, r.Iterations, r.Bound = res.Status, res.Iterations, res.Bound
	if res.Assignment != nil {
		icm.Improve(p, res.Assignment)
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "trws: %d iterations, energy %.9g, bound %.9g, %v\n", res.Iterations, res.Energy, res.Bound, res.Time)
	}
	return res.Assignment, nil
}
