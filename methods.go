package sdrmap

import (
	"context"
	"fmt"

	"sdrmap/model"
	"sdrmap/solver"
	"sdrmap/solver/exact"
)

func init() {
	methods["exact"] = solveExact
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
