package lbfgs

import (
	"fmt"
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
		l := NewMemory(mem)
		l.Pre = pre
		s, y := make([]float64, n), make([]float64, n)
		for k := range 3*mem + 2 {
			for i := range s {
				s[i] = rng.NormFloat64()
			}
			mat.NewVecDense(n, y).MulVec(&a, mat.NewVecDense(n, s))
			want := append([]float64(nil), s...)
			yk := append([]float64(nil), y...)
			s, y = l.Push(s, y)
			for i := range s {
				s[i], y[i] = math.NaN(), math.NaN()
			}
			d := make([]float64, n)
			l.Direction(d, yk)
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

// rayleigh is x^T A x on the unit sphere: its minimum is lambda_min(A).
type rayleigh struct{ a *mat.SymDense }

func (r rayleigh) Eval(x, g []float64) float64 {
	n := len(x)
	gv := mat.NewVecDense(n, g)
	gv.MulVec(r.a, mat.NewVecDense(n, x))
	f := floats.Dot(x, g)
	floats.Scale(2, g)
	r.Tangent(x, g)
	return f
}

func (rayleigh) Tangent(x, d []float64) { floats.AddScaled(d, -floats.Dot(x, d), x) }
func (rayleigh) Retract(x []float64)    { floats.Scale(1/floats.Norm(x, 2), x) }

// TestMinimizeSphere: the Minimizer finds the smallest eigenvalue of a
// random symmetric matrix as the minimum of its Rayleigh quotient on the
// sphere (against gonum's dense eigenvalues), with and without a
// preconditioner, and stops at once when stop says so.
func TestMinimizeSphere(t *testing.T) {
	const n = 40
	rng := rand.New(rand.NewPCG(3, 4))
	a := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, rng.NormFloat64())
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(a, false) {
		t.Fatal("no eigenvalues")
	}
	want := eig.Values(nil)[0]
	for _, pre := range [][]float64{nil, randPositive(rng, n)} {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		f := rayleigh{a}
		f.Retract(x)
		m := New(f, x, 8)
		m.Mem.Pre = pre
		if k := m.Minimize(f, 1e-10, 5000, func() bool { return false }); k == 5000 {
			t.Fatalf("pre %v: no convergence, gradient %g", pre != nil, m.GradNorm())
		}
		if math.Abs(m.F-want) > 1e-9 || math.Abs(floats.Norm(m.X, 2)-1) > 1e-12 {
			t.Fatalf("pre %v: minimum %.12g, lambda_min %.12g, |x| %g", pre != nil, m.F, want, floats.Norm(m.X, 2))
		}
		if k := m.Minimize(f, 0, 10, func() bool { return true }); k != 0 {
			t.Fatalf("stopped minimization took %d steps", k)
		}
	}
}

// TestDirectionSplit checks the two-loop recursion over two halves (vectors
// of at least splitFrom entries, odd length) against the secant property H
// y = s of the newest pair (y = A s, A diagonal positive) and against the
// recursion on the whole vectors, with and without a preconditioner, after
// the ring has wrapped.
func TestDirectionSplit(t *testing.T) {
	const n, mem = splitFrom + 3, 4
	rng := rand.New(rand.NewPCG(5, 6))
	a := randPositive(rng, n)
	for _, pre := range [][]float64{nil, randPositive(rng, n)} {
		l := NewMemory(mem)
		l.Pre = pre
		s, y := make([]float64, n), make([]float64, n)
		for k := range mem + 2 {
			for i := range s {
				s[i] = rng.NormFloat64()
				y[i] = a[i] * s[i]
			}
			want := append([]float64(nil), s...)
			yk := append([]float64(nil), y...)
			s, y = l.Push(s, y)
			d, whole := make([]float64, n), make([]float64, n)
			l.Direction(d, yk)
			l.direction(0, n, whole, yk, make([]float64, mem), func(x float64) float64 { return x })
			floats.Scale(-1, d)
			floats.Scale(-1, whole)
			if !floats.EqualApprox(d, want, 1e-8*floats.Norm(want, math.Inf(1))) {
				t.Fatalf("pre %v, pair %d: H y = %v, want s = %v", pre != nil, k, d[:3], want[:3])
			}
			if !floats.EqualApprox(d, whole, 1e-12*floats.Norm(whole, math.Inf(1))) {
				t.Fatalf("pre %v, pair %d: halves %v, whole %v", pre != nil, k, d[:3], whole[:3])
			}
		}
	}
}

// TestDot checks dot over two halves against a sum in extended order.
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 1000, splitFrom + 1} {
		x, y := make([]float64, n), make([]float64, n)
		want := 0.0
		for i := range x {
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
			want += x[i] * y[i]
		}
		if got := dot(x, y); math.Abs(got-want) > 1e-10*math.Sqrt(float64(n)+1) {
			t.Fatalf("n %d: dot %v, want %v", n, got, want)
		}
	}
}

// BenchmarkDirection times the two-loop recursion with 10 pairs, over two
// halves ("split", what Direction does from splitFrom entries on) and over
// the whole vectors ("whole"), at the vector lengths of Grids_20 (N r =
// 204,816), a 100 x 100 5-label grid and the 100k-variable 5-label grid
// (500,861 x 16), preconditioned as on multi-label models.
func BenchmarkDirection(b *testing.B) {
	for _, n := range []int{25600, 51200, 102408, 204816, 800000, 8013776} {
		rng := rand.New(rand.NewPCG(1, 1))
		l := NewMemory(10)
		l.Pre = randPositive(rng, n)
		for range 10 {
			s, y := make([]float64, n), make([]float64, n)
			for i := range s {
				s[i] = rng.NormFloat64()
				y[i] = s[i] * (1 + rng.Float64())
			}
			l.Push(s, y)
		}
		g, d := make([]float64, n), make([]float64, n)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		alpha := make([]float64, 10)
		b.Run(fmt.Sprintf("n=%d/whole", n), func(b *testing.B) {
			for b.Loop() {
				l.direction(0, n, d, g, alpha, func(x float64) float64 { return x })
			}
		})
		b.Run(fmt.Sprintf("n=%d/split", n), func(b *testing.B) {
			for b.Loop() {
				l.split(d, g)
			}
		})
	}
}
