package relax

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFactorOf: for PSD matrices of rank 1, 7 and full rank, FactorOf
// returns F with F F^T = X to 1e-8 and as many columns as the rank.
func TestFactorOf(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	const n = 40
	for _, rank := range []int{1, 7, n} {
		g := mat.NewDense(n, rank, nil)
		for i := range n {
			for j := range rank {
				g.Set(i, j, r.NormFloat64())
			}
		}
		x := mat.NewSymDense(n, nil)
		x.SymOuterK(1, g)
		f := (&Solution{X: x}).FactorOf()
		if _, c := f.Dims(); c != rank {
			t.Errorf("rank %d: %d columns", rank, c)
		}
		var ff mat.Dense
		ff.Mul(f, f.T())
		for i := range n {
			for j := range n {
				if d := ff.At(i, j) - x.At(i, j); d > 1e-8 || d < -1e-8 {
					t.Fatalf("rank %d: (F F^T - X)[%d,%d] = %g", rank, i, j, d)
				}
			}
		}
	}
}
