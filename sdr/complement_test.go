package sdr

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/gen"
)

// TestComplement: for random duals and random assignments of finite energy,
// the complementary dual annihilates the lifted point, vanishes on its
// support, keeps z >= 0, has dual objective <C, v v^T> = E(x) + Const, and
// its certified bound stays below the brute-force minimum; assignments of
// infinite energy are refused.
func TestComplement(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	checked, refused := 0, 0
	for checked < 150 {
		m, pw, p, ok := randTiny(r)
		if !ok {
			continue
		}
		minE, _ := minEnergy(m)
		x := make([]int, pw.NumVars())
		for i := range x {
			x[i] = r.IntN(pw.Card[i])
		}
		y, z := randDual(r, p)
		e := pw.Energy(x)
		yc, zc, err := p.Complement(y, z, x)
		if math.IsInf(e, 1) {
			if err == nil {
				t.Fatalf("model %d: complement of an assignment of infinite energy", checked)
			}
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("model %d: %v", checked, err)
		}
		v, err := p.Point(x)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSym(p)
		p.DualSlack(s, yc, zc)
		sv := mat.NewDense(p.N(), 1, nil)
		s.MulMat(sv, v)
		scale := 1 + s.Norm()
		if n := mat.Norm(sv, 2); n > 1e-12*scale {
			t.Fatalf("model %d: ||S v|| = %v", checked, n)
		}
		xhat := NewSym(p)
		xhat.PatternOf(v)
		px := p.P(xhat, nil)
		for k, w := range zc {
			if w < 0 || w > 0 && px[k] != 0 {
				t.Fatalf("model %d: z[%d] = %v with P(Xhat) %v", checked, k, w, px[k])
			}
		}
		if d := p.DualObjective(yc); !near(d, e+p.Const, 1e-10) {
			t.Fatalf("model %d: dual objective %v, want E(x) + Const = %v", checked, d, e+p.Const)
		}
		c, err := p.Certify(yc, zc)
		if err != nil {
			t.Fatal(err)
		}
		if c.EnergyBound > minE {
			t.Fatalf("model %d: certified bound %v above the minimum energy %v", checked, c.EnergyBound, minE)
		}
		checked++
	}
	if refused == 0 {
		t.Fatal("no assignment of infinite energy drawn")
	}
}

// TestComplementTies: on small ORIENT models (integer tables, so ties are
// common) at their brute-force optimum, for random duals, the complementary
// dual also annihilates, on the face, the difference e_ia - e_ic of every
// tie it handles (U^T S (e_ia - e_ic) = 0) and keeps z >= 0 and zero on the
// support of every tied optimum.
func TestComplementTies(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	checked := 0
	for seed := range uint64(40) {
		m, _ := gen.Orient(8, 3, 3, 0.4, seed)
		pw, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(pw)
		if err != nil {
			t.Fatal(err)
		}
		e, x := minEnergy(m)
		y, z := randDual(r, p)
		yc, zc, err := p.Complement(y, z, x)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSym(p)
		p.DualSlack(s, yc, zc)
		face := p.Face()
		scale := 1 + s.Norm()
		for _, tie := range p.ties(x) {
			i := tie.v
			for _, a := range tie.alt {
				xa := slices.Clone(x)
				xa[i] = a
				if pw.Energy(xa) != e {
					t.Fatalf("seed %d: variable %d state %d is no tie: energy %v, optimum %v", seed, i, a, pw.Energy(xa), e)
				}
				w := mat.NewDense(p.N(), 1, nil)
				w.Set(p.Offset[i]+a, 0, 1)
				w.Set(p.Offset[i]+x[i], 0, -1)
				sw := mat.NewDense(p.N(), 1, nil)
				s.MulMat(sw, w)
				fw := mat.NewDense(face.Dim(), 1, nil)
				face.Restrict(fw, sw)
				if n := mat.Norm(fw, 2); n > 1e-12*scale {
					t.Fatalf("seed %d: ||U^T S (e_ia - e_ic)|| = %v for variable %d, state %d", seed, n, i, a)
				}
				va, _ := p.Point(xa)
				xhat := NewSym(p)
				xhat.PatternOf(va)
				for k, v := range p.P(xhat, nil) {
					if zc[k] < 0 || v != 0 && zc[k] != 0 {
						t.Fatalf("seed %d: z[%d] = %v on the support of a tied optimum", seed, k, zc[k])
					}
				}
				checked++
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d ties checked", checked)
	}
	t.Logf("%d ties checked", checked)
}
