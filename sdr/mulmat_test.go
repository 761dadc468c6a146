package sdr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
)

// randSym fills s with random values on its pattern (diagonal blocks kept
// symmetric).
func randSym(r *rand.Rand, s *Sym) {
	d := randSymDense(r, s.prob.N())
	s.FromDense(d)
}

func randDense(r *rand.Rand, rows, cols int) *mat.Dense {
	m := mat.NewDense(rows, cols, nil)
	for i := range rows {
		for j := range cols {
			m.Set(i, j, r.NormFloat64())
		}
	}
	return m
}

func checkMulMat(t *testing.T, r *rand.Rand, p *Problem, k int) {
	t.Helper()
	s := NewSym(p)
	randSym(r, s)
	x := randDense(r, p.N(), k)
	got := mat.NewDense(p.N(), k, nil)
	got.Set(0, 0, 123) // MulMat must overwrite, not accumulate
	s.MulMat(got, x)
	var want mat.Dense
	want.Mul(s.ToDense(), x)
	if !mat.EqualApprox(got, &want, 1e-12) {
		t.Fatalf("N = %d, k = %d: MulMat differs from the dense product", p.N(), k)
	}
	y := randDense(r, p.N(), k)
	s.PatternOf(y)
	var yyt mat.Dense
	yyt.Mul(y, y.T())
	full := mat.NewSymDense(p.N(), nil)
	for i := range p.N() {
		for j := i; j < p.N(); j++ {
			full.SetSym(i, j, yyt.At(i, j))
		}
	}
	if !mat.EqualApprox(s.ToDense(), patternOnly(p, full), 1e-12) {
		t.Fatalf("N = %d, r = %d: PatternOf differs from Y Y^T on the pattern", p.N(), k)
	}
}

func TestMulMatSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for pi, p := range randProblems(t, 3, 100) {
		checkMulMat(t, r, p, 1+pi%5)
	}
}

// TestMulMatParallel uses a model large enough for the two-goroutine path.
func TestMulMatParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	m := randmodel.New(r, randmodel.Options{Vars: 400, MaxCard: 6, Factors: 900, MaxArity: 2, Forbidden: 0.05, MinCard2: true})
	for f := range m.Factors {
		if len(m.Factors[f].Scope) == 1 {
			m.Factors[f].Forbidden = nil // keep every state, forbid pairs only
		}
	}
	pw, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(pw)
	if err != nil {
		t.Fatal(err)
	}
	if p.N()*32 < parallelMin {
		t.Fatalf("N = %d too small for the parallel path", p.N())
	}
	checkMulMat(t, r, p, 32)
	checkMulMat(t, r, p, 1)
}

func TestMulMatAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	m := randmodel.New(r, randmodel.Options{Vars: 300, MaxCard: 5, Factors: 600, MaxArity: 2})
	pw, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(pw)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSym(p)
	randSym(r, s)
	for _, k := range []int{1, 8, 64} {
		x, dst := randDense(r, p.N(), k), mat.NewDense(p.N(), k, nil)
		s.MulMat(dst, x)
		if a := testing.AllocsPerRun(20, func() { s.MulMat(dst, x) }); a != 0 {
			t.Errorf("k = %d: MulMat allocates %v times per call", k, a)
		}
		if a := testing.AllocsPerRun(20, func() { s.PatternOf(x) }); a != 0 {
			t.Errorf("k = %d: PatternOf allocates %v times per call", k, a)
		}
	}
}

func BenchmarkMulMat(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	// A 300 x 300 grid with 4 labels: N = 360,001.
	benchMulMat(b, r, gridModel(r, 300, 4), []int{1, 8})
}

// BenchmarkMulMatOrient times MulMat on the paper's ORIENT size (n = 1000,
// 16 labels, degree 50: N = 16,001, 25,000 dense 16 x 16 edge blocks) for
// the block widths LOBPCG uses at ranks 4 to 32.
func BenchmarkMulMatOrient(b *testing.B) {
	m, _ := gen.Orient(1000, 16, 50, 0.1, 1)
	benchMulMat(b, rand.New(rand.NewPCG(13, 14)), m, []int{1, 4, 12, 32, 96})
}

// benchMulMat times MulMat with a random dual slack of m's relaxation on
// blocks of each width in widths.
func benchMulMat(b *testing.B, r *rand.Rand, m *model.Model, widths []int) {
	p, s := randSlack(b, r, m)
	for _, k := range widths {
		x, dst := randDense(r, p.N(), k), mat.NewDense(p.N(), k, nil)
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			for b.Loop() {
				s.MulMat(dst, x)
			}
		})
	}
}

// randSlack returns the relaxation of m and the dual slack of a random
// dual point of it.
func randSlack(tb testing.TB, r *rand.Rand, m *model.Model) (*Problem, *Sym) {
	tb.Helper()
	pw, err := m.Pairwise(nil)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := Build(pw)
	if err != nil {
		tb.Fatal(err)
	}
	s := NewSym(p)
	p.DualSlack(s, randVec(r, p.Y.Len), randVec(r, p.NumZ))
	return p, s
}
