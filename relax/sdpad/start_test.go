package sdpad

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/solver"
)

// TestWarmStart restarts both solvers from their own solution: they stop
// within a few certificates at the same optimum, where a cold start takes
// hundreds of iterations. A start of the wrong size is refused.
func TestWarmStart(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := build(t, gridPW(r, 5, 3))
	s := tight(1e-6)
	for _, lowRank := range []bool{false, true} {
		run := solve
		if lowRank {
			run = solveLR
		}
		cold := run(t, p, s)
		f := cold.Factor
		if f == nil {
			f = denseFactor(cold.X)
		}
		w := s
		w.Start = &Start{Y: cold.Y, Z: cold.Z, Factor: f, Mu: cold.Mu}
		warm := run(t, p, w)
		t.Logf("low rank %v: cold %d iterations, warm %d", lowRank, cold.Iterations, warm.Iterations)
		if cold.Status != solver.Solved || warm.Status != solver.Solved {
			t.Fatalf("low rank %v: cold %v, warm %v", lowRank, cold.Status, warm.Status)
		}
		if warm.Iterations > cold.Iterations/4 {
			t.Fatalf("low rank %v: warm start took %d iterations, cold %d", lowRank, warm.Iterations, cold.Iterations)
		}
		if d := math.Abs(warm.PrimalObjective - cold.PrimalObjective); d > 1e-4*(1+math.Abs(cold.PrimalObjective)) {
			t.Fatalf("low rank %v: warm %.10g, cold %.10g", lowRank, warm.PrimalObjective, cold.PrimalObjective)
		}
	}
	bad := s
	bad.Start = &Start{Y: make([]float64, 3), Z: make([]float64, p.NumZ), Factor: mat.NewDense(p.N(), 1, nil)}
	if _, err := SolveLR(context.Background(), p, bad); err == nil {
		t.Fatal("a warm start of the wrong size was accepted")
	}
}

// denseFactor returns F with F F^T = x for a PSD x.
func denseFactor(x *mat.SymDense) *mat.Dense {
	var eig mat.EigenSym
	if !eig.Factorize(x, true) {
		panic("eigendecomposition failed")
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	for j, l := range eig.Values(nil) {
		col := math.Sqrt(max(l, 0))
		for i := range x.SymmetricDim() {
			v.Set(i, j, v.At(i, j)*col)
		}
	}
	return &v
}
