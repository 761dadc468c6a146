package factor

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestLBFGSSecant checks the two-loop recursion against a property of BFGS:
// H y = s for the newest pair (y = A s, A SPD), with and without a diagonal
// preconditioner, after the ring has wrapped several times, and with the
// buffers push hands back overwritten (they must not alias a stored pair).
func TestLBFGSSecant(t *testing.T) {
	const n, mem = 30, 5
	rng := rand.New(rand.NewPCG(1, 2))
	b := mat.NewDense(n, n, nil)
	for i := range n * n {
		b.RawMatrix().Data[i] = rng.NormFloat64()
	}
	var a mat.Dense
	a.Mul(b.T(), b)
	for i := range n {
		a.Set(i, i, a.At(i, i)+1)
	}
	for _, pre := range [][]float64{nil, randPositive(rng, n)} {
		l := newLBFGS(mem)
		l.pre = pre
		s, y := make([]float64, n), make([]float64, n)
		for k := range 3*mem + 2 {
			for i := range s {
				s[i] = rng.NormFloat64()
			}
			mat.NewVecDense(n, y).MulVec(&a, mat.NewVecDense(n, s))
			want := append([]float64(nil), s...)
			yk := append([]float64(nil), y...)
			s, y = l.push(s, y)
			for i := range s {
				s[i], y[i] = math.NaN(), math.NaN()
			}
			d := make([]float64, n)
			l.direction(d, yk)
			floats.Scale(-1, d)
			if !floats.EqualApprox(d, want, 1e-8*floats.Norm(want, math.Inf(1))) {
				t.Fatalf("pre %v, pair %d: H y = %v, want s = %v", pre != nil, k, d[:3], want[:3])
			}
		}
		if l.n != mem {
			t.Fatalf("%d pairs stored, want %d", l.n, mem)
		}
	}
}

func randPositive(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 0.5 + rng.Float64()
	}
	return p
}
