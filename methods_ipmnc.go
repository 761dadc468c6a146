package sdrmap

import (
	"context"
	"fmt"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver/ipmnc"
)

func init() {
	methods["ipm-nc"] = solveIPMNC
}

// solveIPMNC runs the paper's IPM-NC baseline: a KKT point of the rank-1
// (nonconvex quadratic) relaxation from the uniform point, rounded by argmax
// and polished by ICM; a local method, no bound. --tol is its KKT tolerance.
func solveIPMNC(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
	res, err := ipmnc.Solve(ctx, p, ipmnc.Settings{MaxIter: s.MaxIter, TimeLimit: s.TimeLimit, Tol: s.Tol})
	if err != nil {
		return nil, err
	}
	r.Status, r.Iterations = res.Status, res.Iterations
	if s.Log != nil {
		fmt.Fprintf(s.Log, "ipm-nc: %d iterations, objective %.9g, KKT residual %.3g, vertex %v, energy %.9g, %v\n",
			res.Iterations, res.Objective, res.KKT, res.Vertex, res.Energy, res.Time)
	}
	return res.Assignment, nil
}
