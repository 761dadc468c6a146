package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// admmOperator returns V = Y Yᵀ - S/mu with Y n x r (column scales
// sqrt(r), ..., 1, so V has r separated positive eigenvalues) and S a
// block tridiagonal matrix with spectrum in about [0, 3], the shape of the
// operators of the low-rank ADMM.
func admmOperator(n, r int, rng *rand.Rand) *lowRankMinusSparse {
	y := mat.NewDense(n, r, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < r; j++ {
			y.Set(i, j, rng.NormFloat64()*math.Sqrt(float64(r-j)/float64(n)))
		}
	}
	return &lowRankMinusSparse{y: y, s: blockTridiag(n, 3, 1, 0.2, rng), mu: 2}
}

// perturbed returns a copy of v with Y moved by a relative amount delta.
func (v *lowRankMinusSparse) perturbed(delta float64, rng *rand.Rand) *lowRankMinusSparse {
	n, r := v.y.Dims()
	y := mat.DenseCopyOf(v.y)
	for i := 0; i < n; i++ {
		for j := 0; j < r; j++ {
			y.Set(i, j, y.At(i, j)+delta*rng.NormFloat64()/math.Sqrt(float64(n)))
		}
	}
	return &lowRankMinusSparse{y: y, s: v.s, mu: v.mu}
}

// BenchmarkLargestWarm solves, warm-started from the eigenvectors of the
// previous operator, the top 8 eigenpairs of an ADMM-like operator after a
// relative change of 1e-3, as between two ADMM iterations.
func BenchmarkLargestWarm(b *testing.B) {
	const n, k = 20000, 8
	rng := rand.New(rand.NewPCG(21, 22))
	v0 := admmOperator(n, k, rng)
	prev, err := Largest(v0, k, nil, Settings{})
	if err != nil {
		b.Fatal(err)
	}
	v1 := v0.perturbed(1e-3, rng)
	mv := 0
	for b.Loop() {
		res, err := Largest(v1, k, prev.Vectors, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		mv += res.MatVecs
	}
	b.ReportMetric(float64(mv)/float64(b.N), "matvecs/op")
}

// BenchmarkLargestCold is the same solve from a random start.
func BenchmarkLargestCold(b *testing.B) {
	const n, k = 20000, 8
	rng := rand.New(rand.NewPCG(21, 22))
	v0 := admmOperator(n, k, rng)
	v1 := v0.perturbed(1e-3, rng)
	mv := 0
	for b.Loop() {
		res, err := Largest(v1, k, nil, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		mv += res.MatVecs
	}
	b.ReportMetric(float64(mv)/float64(b.N), "matvecs/op")
}

// BenchmarkBasis times the reorthogonalization of one vector against 64
// basis vectors (two products with the basis, twice), on two halves of the
// entries ("split", from splitFrom on) and on one goroutine ("whole").
func BenchmarkBasis(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{16384, 40000, 100000, 400000} {
		l, w := randomBasis(n, 64, rng)
		for _, split := range []bool{true, false} {
			name := fmt.Sprintf("n=%d/whole", n)
			if split {
				name = fmt.Sprintf("n=%d/split", n)
			}
			b.Run(name, func(b *testing.B) {
				if split && n < splitFrom {
					b.Skip("below splitFrom")
				}
				for b.Loop() {
					if split {
						l.orthogonalize(w, 64)
					} else {
						orthogonalizeWhole(l, w, 64)
					}
				}
			})
		}
	}
}

// orthogonalizeWhole is lanczos.orthogonalize on one goroutine.
func orthogonalizeWhole(l *lanczos, w []float64, j int) {
	q := l.basis(j, 0, l.n)
	c := make([]float64, j)
	for range 2 {
		blas64.Gemv(blas.NoTrans, 1, q, blas64.Vector{N: l.n, Inc: 1, Data: w}, 0, blas64.Vector{N: j, Inc: 1, Data: c})
		blas64.Gemv(blas.Trans, -1, q, blas64.Vector{N: j, Inc: 1, Data: c}, 1, blas64.Vector{N: l.n, Inc: 1, Data: w})
	}
}
