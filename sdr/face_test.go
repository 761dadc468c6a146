package sdr

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// faceBasis builds U = H [g, E_R] densely from its definition.
func faceBasis(p *Problem) *mat.Dense {
	n := p.N()
	h := mat.NewDense(n, n, nil)
	h.Set(0, 0, 1)
	for i, m := range p.Card {
		o := p.Offset[i]
		u := mat.NewVecDense(m, nil)
		for a := range m {
			u.SetVec(a, 1/math.Sqrt(float64(m)))
		}
		u.SetVec(m-1, u.AtVec(m-1)-1)
		uu := mat.Dot(u, u)
		for a := range m {
			for b := range m {
				v := 0.0
				if a == b {
					v = 1
				}
				if uu > 0 {
					v -= 2 * u.AtVec(a) * u.AtVec(b) / uu
				}
				h.Set(o+a, o+b, v)
			}
		}
	}
	g := mat.NewVecDense(n, nil)
	g.SetVec(0, 1)
	for i, m := range p.Card {
		g.SetVec(p.Offset[i]+m-1, 1/math.Sqrt(float64(m)))
	}
	g.ScaleVec(1/mat.Norm(g, 2), g)
	basis := mat.NewDense(n, n-p.NumVars(), nil)
	basis.SetCol(0, g.RawVector().Data)
	c := 1
	for i, m := range p.Card {
		for a := range m - 1 {
			basis.Set(p.Offset[i]+a, c, 1)
			c++
		}
	}
	var u mat.Dense
	u.Mul(h, basis)
	return &u
}

func TestFace(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for pi, p := range randProblems(t, 4, 100) {
		n, d := p.N(), p.N()-p.NumVars()
		f := p.Face()
		if f.Dim() != d {
			t.Fatalf("problem %d: Dim %d, want %d", pi, f.Dim(), d)
		}
		u := faceBasis(p)
		var utu mat.Dense
		utu.Mul(u.T(), u)
		if !mat.EqualApprox(&utu, eye(d), 1e-14) {
			t.Fatalf("problem %d: U^T U != I", pi)
		}
		for i := range p.Card {
			v := mat.NewVecDense(n, nil)
			v.SetVec(0, 1)
			for a := range p.Card[i] {
				v.SetVec(p.Offset[i]+a, -1)
			}
			var utv mat.VecDense
			utv.MulVec(u.T(), v)
			if mat.Norm(&utv, math.Inf(1)) > 1e-14 {
				t.Fatalf("problem %d: U^T v_%d != 0", pi, i)
			}
		}
		w := randSymDense(r, n)
		got := mat.NewSymDense(d, nil)
		f.Compress(got, w)
		var want mat.Dense
		want.Product(u.T(), w, u)
		if !mat.EqualApprox(got, &want, 1e-13) {
			t.Fatalf("problem %d: Compress differs from U^T W U", pi)
		}
		y := randSymDense(r, d)
		back := mat.NewSymDense(n, nil)
		f.Expand(back, y)
		var want2 mat.Dense
		want2.Product(u, y, u.T())
		if !mat.EqualApprox(back, &want2, 1e-13) {
			t.Fatalf("problem %d: Expand differs from U Y U^T", pi)
		}
		for _, k := range []int{1, 2 + r.IntN(4)} { // one column: Lanczos' path
			wb := randDense(r, d, k)
			lift := mat.NewDense(n, k, nil)
			f.Lift(lift, wb)
			var wantL mat.Dense
			wantL.Mul(u, wb)
			if !mat.EqualApprox(lift, &wantL, 1e-13) {
				t.Fatalf("problem %d: Lift differs from U W", pi)
			}
			xb := randDense(r, n, k)
			keep := mat.DenseCopyOf(xb)
			res := mat.NewDense(d, k, nil)
			f.Restrict(res, xb)
			var wantR mat.Dense
			wantR.Mul(u.T(), keep)
			if !mat.EqualApprox(res, &wantR, 1e-13) || !mat.EqualApprox(xb, keep, 1e-14) {
				t.Fatalf("problem %d: Restrict differs from U^T X or changed X", pi)
			}
		}
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

// TestFaceSym checks the sparse compressed matrix against U^T S U formed
// densely from the face's basis, on one column (Lanczos' path) and on
// blocks, for random problems with forbidden entries and one-state
// variables.
func TestFaceSym(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for pi, p := range randProblems(t, 5, 200) {
		n, d := p.N(), p.N()-p.NumVars()
		s := NewSym(p)
		s.FromDense(randSymDense(r, n))
		u := faceBasis(p)
		var want mat.Dense
		want.Product(u.T(), s.ToDense(), u)
		c := p.Face().NewFaceSym()
		c.Set(s)
		for _, k := range []int{1, 2 + r.IntN(3)} {
			x := randDense(r, d, k)
			got := mat.NewDense(d, k, nil)
			c.MulMat(got, x)
			var wantX mat.Dense
			wantX.Mul(&want, x)
			if !mat.EqualApprox(got, &wantX, 1e-12) {
				t.Fatalf("problem %d (N = %d, d = %d), %d columns: FaceSym differs from U^T S U:\n%v\n%v", pi, n, d, k, mat.Formatted(got), mat.Formatted(&wantX))
			}
		}
	}
}
