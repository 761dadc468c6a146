package sdrmap

import (
	"context"
	"math"
	"testing"

	"sdrmap/gen"
	"sdrmap/internal/randmodel"
	"sdrmap/model"
)

// TestSolveShiftInvariant solves small ORIENT models (shift invariant, no
// unaries) with and without the symmetry break: with the exact solver both
// reach the brute-force optimum and the broken one has its chosen variable
// in state 0; SDPAD and TRW-S keep a bound below the optimum.
func TestSolveShiftInvariant(t *testing.T) {
	for seed := range uint64(12) {
		m, _ := gen.Orient(7, 3, 3, 0.4, seed)
		v := m.SymmetryBreak()
		if v < 0 {
			t.Fatalf("seed %d: ORIENT model not shift invariant", seed)
		}
		clamp, _ := model.Evidence(nil).Clamps(m)
		want, _ := randmodel.BruteForce(m, clamp)
		for _, keep := range []bool{false, true} {
			for _, name := range []string{"exact", "sdpad", "trws"} {
				res, err := Solve(context.Background(), m, Settings{Solver: name, KeepSymmetry: keep})
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-6 * (1 + math.Abs(want))
				if res.Bound > want+tol || res.Energy < want-tol || m.Energy(res.Assignment) != res.Energy {
					t.Fatalf("seed %d, %s, keep %v: energy %v, bound %v, optimum %v", seed, name, keep, res.Energy, res.Bound, want)
				}
				if name == "exact" && (math.Abs(res.Energy-want) > tol || (!keep && res.Assignment[v] != 0)) {
					t.Fatalf("seed %d, keep %v: energy %v (optimum %v), x[%d] = %d", seed, keep, res.Energy, want, v, res.Assignment[v])
				}
			}
		}
	}
}
