package methods_test

import (
	"context"
	"math"
	"testing"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/methods"
)

// TestFactorDense: the factor-dense pipeline (relaxation, rounding,
// certificates) on small dense models, one with forbidden pairs, returns
// the brute-force minimum with a bound at most it, under its own options
// and under auto's (SDPADOptions, as auto passes them).
func TestFactorDense(t *testing.T) {
	for seed, m := range []*struct {
		n, labels int
		forbid    float64
	}{{6, 3, 0}, {5, 3, 0.2}} {
		md := gen.Dense(m.n, m.labels, 1, m.forbid, uint64(seed+1))
		free := make([]int, m.n)
		for i := range free {
			free[i] = -1
		}
		minE, _ := randmodel.BruteForce(md, free)
		if math.IsInf(minE, 1) {
			t.Fatalf("model %d: infeasible", seed)
		}
		for _, opts := range []any{nil, methods.RelaxOptions{Tol: 1e-5}, methods.SDPADOptions{RelaxOptions: methods.RelaxOptions{Tol: 1e-5}}} {
			res, err := sdrmap.Solve(context.Background(), md, sdrmap.Settings{Solver: "factor-dense", Seed: 1, Options: opts})
			if _, sdpad := opts.(methods.SDPADOptions); sdpad {
				if err == nil {
					t.Fatalf("model %d: SDPADOptions accepted by factor-dense", seed)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Energy-minE) > 1e-9*(1+math.Abs(minE)) || res.Bound > minE+1e-9*(1+math.Abs(minE)) {
				t.Errorf("model %d, options %v: energy %.12g, bound %.12g; minimum %.12g", seed, opts, res.Energy, res.Bound, minE)
			}
		}
	}
}
