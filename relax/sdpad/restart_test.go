package sdpad

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
)

// TestLowRankAverage checks the running average of the low-rank iterates
// against the dense average of Z_k Z_k^T: exact while the sum has rank at
// most avgRank (also after compressions), and a restart sets Z Z^T to the
// best rank-r approximation of the average (the dense top eigenpairs).
func TestLowRankAverage(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	p := build(t, gridPW(r, 4, 4)) // d = N - n = 48
	for _, c := range []struct {
		name       string
		iters, dim int // factors Z_k of rank 4 in a random subspace of dimension dim
	}{
		{"no compression", 10, 48},      // 40 columns
		{"compressed, rank 20", 40, 20}, // 160 columns of rank 20
	} {
		s := DefaultSettings()
		lr := newLowRank(p, &s)
		d, rk := lr.d, lr.r
		basis := randDense(r, d, c.dim)
		want := mat.NewSymDense(d, nil)
		for range c.iters {
			lr.z.Mul(basis, randDense(r, c.dim, rk))
			want.SymRankK(want, 1, lr.z)
			lr.accumulate()
		}
		want.ScaleSym(1/float64(c.iters), want)
		var got mat.SymDense
		got.SymOuterK(1/float64(c.iters), lr.sum.Slice(0, lr.d, 0, lr.cols))
		if diff := symDiff(&got, want); diff > 1e-10*mat.Norm(want, 2) {
			t.Fatalf("%s: ||W W^T / k - mean Z Z^T|| = %g", c.name, diff)
		}

		lr.restart(sdr.NewSym(p))
		var eig mat.EigenSym
		if !eig.Factorize(want, true) {
			t.Fatal("eigendecomposition failed")
		}
		var v mat.Dense
		eig.VectorsTo(&v)
		vals := eig.Values(nil)
		top := mat.NewSymDense(d, nil)
		for j := d - rk; j < d; j++ {
			top.SymRankOne(top, vals[j], v.ColView(j))
		}
		got.SymOuterK(1, lr.z)
		if diff := symDiff(&got, top); diff > 1e-8*vals[d-1] {
			t.Fatalf("%s: restart: ||Z Z^T - top %d of the average|| = %g", c.name, rk, diff)
		}
		if lr.cnt != 0 || lr.cols != 0 || !mat.Equal(lr.z, lr.zp) {
			t.Fatalf("%s: restart left count %d, %d columns, Z_{k-1} != Z", c.name, lr.cnt, lr.cols)
		}
	}
}

// randDense returns a rows x cols matrix of standard normal entries, drawn
// row by row.
func randDense(r *rand.Rand, rows, cols int) *mat.Dense {
	m := mat.NewDense(rows, cols, nil)
	for i := range rows {
		for j := range cols {
			m.Set(i, j, r.NormFloat64())
		}
	}
	return m
}

func symDiff(a, b *mat.SymDense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2)
}
