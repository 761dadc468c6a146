package sdr

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
)

// naive is the SDR built entry by entry from the definitions of docs/relaxation.md, Relaxation (plus
// E4), as dense matrices: the oracle for the structured operators.
type naive struct {
	a  []*mat.SymDense // A_k in y order
	b  []float64
	pk [][2]int // P entries: (row, column) of Xbar
	c  *mat.SymDense
}

func buildNaive(p *Problem) *naive {
	n := p.N()
	nv := &naive{c: mat.NewSymDense(n, nil)}
	add := func(bk float64, entries ...[3]float64) {
		m := mat.NewSymDense(n, nil)
		for _, e := range entries {
			i, j := int(e[0]), int(e[1])
			m.SetSym(i, j, m.At(i, j)+e[2])
		}
		nv.a = append(nv.a, m)
		nv.b = append(nv.b, bk)
	}
	idx := func(i, a int) float64 { return float64(p.Offset[i] + a) }
	add(1, [3]float64{0, 0, 1})
	for i := range p.Card {
		var es [][3]float64
		for a := range p.Card[i] {
			es = append(es, [3]float64{0, idx(i, a), 0.5})
		}
		add(1, es...)
	}
	for i := range p.Card {
		for a := range p.Card[i] {
			add(0, [3]float64{idx(i, a), idx(i, a), 1}, [3]float64{0, idx(i, a), -0.5})
		}
	}
	for i := range p.Card {
		for a := range p.Card[i] {
			for b := a + 1; b < p.Card[i]; b++ {
				add(0, [3]float64{idx(i, a), idx(i, b), 0.5})
			}
		}
	}
	pw := p.Pairwise
	for _, ed := range p.Edges {
		src := &pw.Edges[ed.Source]
		for a, sa := range p.States[ed.I] {
			for b, sb := range p.States[ed.J] {
				if src.IsForbidden(sa*pw.Card[ed.J] + sb) {
					add(0, [3]float64{idx(ed.I, a), idx(ed.J, b), 0.5})
				} else {
					nv.pk = append(nv.pk, [2]int{p.Offset[ed.I] + a, p.Offset[ed.J] + b})
				}
			}
		}
	}
	for i := range p.Card {
		for a, s := range p.States[i] {
			nv.c.SetSym(p.Offset[i]+a, p.Offset[i]+a, -pw.Unary[i].Log[s])
		}
	}
	for _, ed := range p.Edges {
		src := &pw.Edges[ed.Source]
		for a, sa := range p.States[ed.I] {
			for b, sb := range p.States[ed.J] {
				if k := sa*pw.Card[ed.J] + sb; !src.IsForbidden(k) {
					nv.c.SetSym(p.Offset[ed.I]+a, p.Offset[ed.J]+b, -src.Log[k]/2)
				}
			}
		}
	}
	return nv
}

func frob(a, b mat.Symmetric) float64 {
	n := a.SymmetricDim()
	s := 0.0
	for i := range n {
		for j := range n {
			s += a.At(i, j) * b.At(i, j)
		}
	}
	return s
}

func randSymDense(r *rand.Rand, n int) *mat.SymDense {
	m := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			m.SetSym(i, j, r.NormFloat64())
		}
	}
	return m
}

// randDual returns a random dual point of p: y standard normal, z = |N(0,1)|.
func randDual(r *rand.Rand, p *Problem) (y, z []float64) {
	y, z = randVec(r, p.Y.Len), randVec(r, p.NumZ)
	for k := range z {
		z[k] = math.Abs(z[k])
	}
	return y, z
}

// minEnergy returns the brute-force minimum energy of m without evidence.
func minEnergy(m *model.Model) (float64, []int) {
	free := make([]int, m.NumVars())
	for v := range free {
		free[v] = -1
	}
	return randmodel.BruteForce(m, free)
}

// randTiny draws a random model of at most 4 variables (forbidden entries,
// a constant) and returns it with its problem, or ok false when it has none.
func randTiny(r *rand.Rand) (m *model.Model, pw *model.Pairwise, p *Problem, ok bool) {
	m = randmodel.New(r, randmodel.Options{Vars: 1 + r.IntN(4), MaxCard: 4, Factors: r.IntN(6), MaxArity: 2, Forbidden: 0.15, Constant: true})
	pw, err := m.Pairwise(nil)
	if err != nil {
		return nil, nil, nil, false
	}
	p, err = Build(pw)
	return m, pw, p, err == nil
}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for k := range v {
		v[k] = r.NormFloat64()
	}
	return v
}

// randProblems returns small random problems with mixed cardinalities 1..4
// and random forbidden unary states and pairs.
func randProblems(t *testing.T, seed uint64, count int) []*Problem {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 99))
	var out []*Problem
	for len(out) < count {
		m := randmodel.New(r, randmodel.Options{
			Vars: 1 + r.IntN(5), MaxCard: 4, Factors: r.IntN(8), MaxArity: 2,
			Forbidden: []float64{0, 0.15, 0.3}[len(out)%3], Constant: true,
		})
		pw, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(pw)
		if errors.Is(err, ErrInfeasible) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(a)+math.Abs(b)) }

func TestOperatorsAgainstDense(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for pi, p := range randProblems(t, 1, 200) {
		nv := buildNaive(p)
		n := p.N()
		if len(nv.a) != p.Y.Len || len(nv.pk) != p.NumZ {
			t.Fatalf("problem %d: %d rows and %d P entries, naive %d and %d", pi, p.Y.Len, p.NumZ, len(nv.a), len(nv.pk))
		}
		for k := range nv.b {
			if nv.b[k] != p.B[k] {
				t.Fatalf("problem %d: b[%d] = %v, want %v", pi, k, p.B[k], nv.b[k])
			}
		}
		xd := randSymDense(r, n)
		x := NewSym(p)
		x.FromDense(xd)
		// A and P against the dense rows.
		ax := p.A(x, nil)
		for k, ak := range nv.a {
			if want := frob(ak, xd); !near(ax[k], want, 1e-13) {
				t.Fatalf("problem %d: A(X)[%d] = %v, want %v", pi, k, ax[k], want)
			}
		}
		px := p.P(x, nil)
		for k, e := range nv.pk {
			if px[k] != xd.At(e[0], e[1]) {
				t.Fatalf("problem %d: P(X)[%d] = %v, want %v", pi, k, px[k], xd.At(e[0], e[1]))
			}
		}
		// A* and P* against sums of dense matrices.
		y, z := randVec(r, p.Y.Len), randVec(r, p.NumZ)
		want := mat.NewSymDense(n, nil)
		for k, ak := range nv.a {
			want.AddSym(want, scaled(ak, y[k]))
		}
		for k, e := range nv.pk {
			want.SetSym(e[0], e[1], want.At(e[0], e[1])-z[k]/2)
		}
		s := NewSym(p)
		p.AStar(s, 1, y)
		p.PStar(s, -1, z)
		if !mat.EqualApprox(s.ToDense(), want, 1e-13) {
			t.Fatalf("problem %d: A*(y) - P*(z) differs from the dense sum", pi)
		}
		// Adjointness.
		if l, rr := dotv(ax, y), x.Dot(symOf(p, func(s *Sym) { p.AStar(s, 1, y) })); !near(l, rr, 1e-12) {
			t.Fatalf("problem %d: <A(X),y> = %v, <X,A*(y)> = %v", pi, l, rr)
		}
		if l, rr := dotv(px, z), x.Dot(symOf(p, func(s *Sym) { p.PStar(s, 1, z) })); !near(l, rr, 1e-12) {
			t.Fatalf("problem %d: <P(X),z> = %v, <X,P*(z)> = %v", pi, l, rr)
		}
		// P P* = I/2.
		ppz := p.P(symOf(p, func(s *Sym) { p.PStar(s, 1, z) }), nil)
		for k := range z {
			if !near(ppz[k], z[k]/2, 1e-15) {
				t.Fatalf("problem %d: P P*(z)[%d] = %v, want %v", pi, k, ppz[k], z[k]/2)
			}
		}
		// (A A*)^{-1} against the inverse of the dense Gram matrix.
		g := mat.NewSymDense(len(nv.a), nil)
		for k := range nv.a {
			for l := k; l < len(nv.a); l++ {
				g.SetSym(k, l, frob(nv.a[k], nv.a[l]))
			}
		}
		var ginv mat.Dense
		if err := ginv.Inverse(g); err != nil {
			t.Fatalf("problem %d: Gram matrix: %v", pi, err)
		}
		v := randVec(r, p.Y.Len)
		var wantv mat.VecDense
		wantv.MulVec(&ginv, mat.NewVecDense(len(v), append([]float64(nil), v...)))
		p.ApplyAAtInv(v)
		for k := range v {
			if !near(v[k], wantv.AtVec(k), 1e-11) {
				t.Fatalf("problem %d: (AA*)^-1 v [%d] = %v, want %v", pi, k, v[k], wantv.AtVec(k))
			}
		}
		// C against the naive cost, and the pattern round trip.
		if !mat.EqualApprox(p.C.ToDense(), nv.c, 0) {
			t.Fatalf("problem %d: C differs from the naive cost", pi)
		}
		if d := x.Dot(x) - frob(patternOnly(p, xd), xd); math.Abs(d) > 1e-12*(1+x.Dot(x)) {
			t.Fatalf("problem %d: Dot differs from the dense inner product on the pattern by %v", pi, d)
		}
		if !mat.EqualApprox(x.ToDense(), patternOnly(p, xd), 0) {
			t.Fatalf("problem %d: FromDense/ToDense round trip", pi)
		}
	}
}

// TestCostOnIntegralPoints checks <C, Xbar> - Const = energy for every
// assignment of finite energy, A(Xbar) = b and P(Xbar) >= 0 there, and that
// assignments through a forbidden pair violate an E4 row.
func TestCostOnIntegralPoints(t *testing.T) {
	for pi, p := range randProblems(t, 2, 150) {
		pw := p.Pairwise
		x := make([]int, p.NumVars())
		xs := NewSym(p)
		for {
			lift := mat.NewVecDense(p.N(), nil)
			lift.SetVec(0, 1)
			for i, a := range x {
				lift.SetVec(p.Offset[i]+a, 1)
			}
			xd := mat.NewSymDense(p.N(), nil)
			xd.SymOuterK(1, lift)
			xs.FromDense(xd)
			energy := pw.Energy(p.Original(x))
			ax := p.A(xs, nil)
			viol := 0.0
			for k := range ax {
				viol = max(viol, math.Abs(ax[k]-p.B[k]))
			}
			if math.IsInf(energy, 1) {
				if viol == 0 {
					t.Fatalf("problem %d: assignment %v of infinite energy satisfies A(Xbar) = b", pi, x)
				}
			} else {
				if viol != 0 {
					t.Fatalf("problem %d: assignment %v violates A(Xbar) = b by %v", pi, x, viol)
				}
				if got := p.PrimalObjective(xs) - p.Const; !near(got, energy, 1e-13) {
					t.Fatalf("problem %d: <C,Xbar> - Const = %v, energy %v", pi, got, energy)
				}
			}
			i := len(x) - 1
			for ; i >= 0; i-- {
				x[i]++
				if x[i] < p.Card[i] {
					break
				}
				x[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
}

func TestBuildInfeasible(t *testing.T) {
	pw := &model.Pairwise{Card: []int{2, 2}, Unary: []model.Table{{Log: []float64{0, 0}}, {Log: []float64{0, 0}}}}
	pw.Unary[1].Forbid(0)
	pw.Unary[1].Forbid(1)
	if _, err := Build(pw); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("all states forbidden: got %v", err)
	}
	pw.Unary[1] = model.Table{Log: []float64{0, 0}}
	pw.Unary[0].Forbid(1)
	e := model.Edge{I: 0, J: 1, Table: model.Table{Log: make([]float64, 4)}}
	e.Forbid(0)
	e.Forbid(1)
	pw.Edges = []model.Edge{e}
	if _, err := Build(pw); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("edge forbidding every allowed pair: got %v", err)
	}
}

func TestReducedStates(t *testing.T) {
	pw := &model.Pairwise{Card: []int{3, 2}, Unary: []model.Table{{Log: []float64{1, 0, 2}}, {Log: []float64{0, 5}}}, Const: 0.25}
	pw.Unary[0].Forbid(1)
	p, err := Build(pw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Card[0] != 2 || p.States[0][1] != 2 || p.N() != 5 {
		t.Fatalf("reduction: Card %v States %v N %d", p.Card, p.States, p.N())
	}
	row0 := []float64{1, 0.2, 0.8, 0.9, 0.1}
	if got := p.Argmax(row0); got[0] != 2 || got[1] != 0 {
		t.Fatalf("Argmax = %v, want [2 0]", got)
	}
	if mg := p.Marginals(row0); mg[0][1] != 0 || mg[0][2] != 0.8 || mg[1][0] != 0.9 {
		t.Fatalf("Marginals = %v", mg)
	}
	if got := p.Original([]int{1, 1}); got[0] != 2 || got[1] != 1 {
		t.Fatalf("Original = %v", got)
	}
}

func scaled(a *mat.SymDense, s float64) *mat.SymDense {
	var m mat.SymDense
	m.ScaleSym(s, a)
	return &m
}

func dotv(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

func symOf(p *Problem, f func(*Sym)) *Sym {
	s := NewSym(p)
	f(s)
	return s
}

// patternOnly returns the entries of d on p's pattern (zero elsewhere).
func patternOnly(p *Problem, d *mat.SymDense) *mat.SymDense {
	n := p.N()
	out := mat.NewSymDense(n, nil)
	block := make([]int, n)
	for i := range p.Card {
		for k := p.Offset[i]; k < p.Offset[i+1]; k++ {
			block[k] = i + 1
		}
	}
	edge := map[[2]int]bool{}
	for _, e := range p.Edges {
		edge[[2]int{e.I + 1, e.J + 1}] = true
	}
	for i := range n {
		for j := i; j < n; j++ {
			bi, bj := block[i], block[j]
			if bi == 0 || bi == bj || edge[[2]int{bi, bj}] {
				out.SetSym(i, j, d.At(i, j))
			}
		}
	}
	return out
}
