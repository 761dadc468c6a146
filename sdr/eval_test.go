package sdr

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCertifyRandomDuals: for arbitrary y and z >= 0 the certified energy
// bound is below the brute-force minimum energy, and the eigenvalue facts
// of the certificate hold.
func TestCertifyRandomDuals(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	checked := 0
	for checked < 150 {
		m, _, p, ok := randTiny(r)
		if !ok {
			continue
		}
		minE, _ := minEnergy(m)
		if math.IsInf(minE, 1) {
			continue
		}
		for trial := range 5 {
			scale := []float64{1e-3, 0.1, 1, 10, 100}[trial]
			y, z := randVec(r, p.Y.Len), randVec(r, p.NumZ)
			for k := range y {
				y[k] *= scale
			}
			for k := range z {
				z[k] = math.Abs(z[k]) * scale
			}
			c, err := p.Certify(y, z)
			if err != nil {
				t.Fatal(err)
			}
			if c.EnergyBound > minE {
				t.Fatalf("model %d: certified bound %v above the minimum energy %v", checked, c.EnergyBound, minE)
			}
			if c.LambdaMinFace < c.LambdaMin-c.Margin {
				t.Fatalf("model %d: face lambda_min %v below the full one %v", checked, c.LambdaMinFace, c.LambdaMin)
			}
			s := NewSym(p)
			p.DualSlack(s, y, z)
			var es mat.EigenSym
			es.Factorize(s.ToDense(), false)
			vals := es.Values(nil)
			neg := 0.0
			for _, v := range vals {
				neg += math.Pow(min(v, 0), 2)
			}
			if !near(c.LambdaMin, vals[0], 1e-12) || !near(c.DualInfeasibility, math.Sqrt(neg)/(1+p.C.Norm()), 1e-12) {
				t.Fatalf("model %d: lambda_min %v (want %v), dinf %v", checked, c.LambdaMin, vals[0], c.DualInfeasibility)
			}
		}
		checked++
	}
	for _, p := range randProblems(t, 6, 20) {
		if p.NumZ == 0 {
			continue
		}
		z := make([]float64, p.NumZ)
		z[0] = -1
		if _, err := p.Certify(make([]float64, p.Y.Len), z); err == nil {
			t.Fatal("negative z accepted")
		}
		if _, err := p.Certify(make([]float64, p.Y.Len), z[1:]); err == nil {
			t.Fatal("short z accepted")
		}
	}
}

// TestProtocolMeasures checks the measures of docs/relaxation.md, Protocol on an integral feasible point
// (zero primal infeasibility) and on a perturbed one.
func TestProtocolMeasures(t *testing.T) {
	for _, p := range randProblems(t, 7, 40) {
		lift := mat.NewVecDense(p.N(), nil)
		lift.SetVec(0, 1)
		for i := range p.Card {
			lift.SetVec(p.Offset[i], 1)
		}
		xd := mat.NewSymDense(p.N(), nil)
		xd.SymOuterK(1, lift)
		x := NewSym(p)
		x.FromDense(xd)
		feasible := true
		for _, e := range p.Edges {
			if e.Forbidden != nil && e.Forbidden[0] {
				feasible = false
			}
		}
		if pinf := p.PrimalInfeasibility(x, nil, nil); feasible != (pinf == 0) {
			t.Fatalf("pinf %v on the first-state assignment (feasible %v)", pinf, feasible)
		}
		x.Row0[0] = 2
		nb := math.Sqrt(float64(1 + p.NumVars()))
		if pinf := p.PrimalInfeasibility(x, nil, nil); feasible && !near(pinf, 1/(1+nb), 1e-15) {
			t.Fatalf("pinf %v after Xbar[0,0] = 2, want %v", pinf, 1/(1+nb))
		}
	}
	if g := Gap(-1, -1.5); !near(g, 0.5/3.5, 1e-15) {
		t.Fatalf("Gap = %v", g)
	}
}

// TestShiftDual: y + t w moves the slack by t I and the dual objective by
// -(n+1) t; BestShift's gap and dual infeasibility are the shifted point's
// (dense oracle): exactly from all the face eigenvalues, bounded from above
// from the smallest three; its larger is never above the unshifted point's.
func TestShiftDual(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	shifted := 0
	for _, p := range randProblems(t, 8, 30) {
		y, z := randVec(r, p.Y.Len), randVec(r, p.NumZ)
		for k := range z {
			z[k] = math.Abs(z[k])
		}
		const sh = 0.37
		ys := p.ShiftDual(y, sh)
		s, ss := NewSym(p), NewSym(p)
		p.DualSlack(s, y, z)
		p.DualSlack(ss, ys, z)
		d, ds := s.ToDense(), ss.ToDense()
		for i := range p.N() {
			for j := range p.N() {
				want := d.At(i, j)
				if i == j {
					want += sh
				}
				if math.Abs(ds.At(i, j)-want) > 1e-12 {
					t.Fatalf("shifted slack [%d,%d] = %v, want %v", i, j, ds.At(i, j), want)
				}
			}
		}
		dobj := p.DualObjective(y)
		if got, want := p.DualObjective(ys), dobj-float64(p.NumVars()+1)*sh; !near(got, want, 1e-13) {
			t.Fatalf("shifted dual objective %v, want %v", got, want)
		}
		face := p.Face()
		sf := mat.NewSymDense(face.Dim(), nil)
		face.Compress(sf, d)
		var es mat.EigenSym
		if !es.Factorize(sf, false) {
			t.Fatal("eigenvalues did not converge")
		}
		vals := es.Values(nil)
		c0, err := p.Certify(y, z)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []float64{-1, 0, 0.5, 2} {
			pobj := dobj + u*float64(p.NumVars()+1)*vals[0]
			for _, k := range []int{len(vals), min(3, len(vals))} {
				tt, gap, dinf := p.BestShift(pobj, dobj, vals[:k], true)
				ysh := p.ShiftDual(y, tt)
				c, err := p.Certify(ysh, z)
				if err != nil {
					t.Fatal(err)
				}
				if !near(gap, Gap(pobj, p.DualObjective(ysh)), 1e-12) {
					t.Fatalf("shift %v: gap %v, the shifted point's %v", tt, gap, Gap(pobj, p.DualObjective(ysh)))
				}
				if k == len(vals) && !near(dinf, c.FaceDualInfeasibility, 1e-9) || dinf < c.FaceDualInfeasibility-1e-12 {
					t.Fatalf("shift %v from %d of %d eigenvalues: dinf %v, the shifted point's %v", tt, k, len(vals), dinf, c.FaceDualInfeasibility)
				}
				if k == len(vals) && max(gap, dinf) > max(Gap(pobj, dobj), c0.FaceDualInfeasibility)*(1+1e-12) {
					t.Fatalf("shift %v: max(gap, dinf) = %v above the unshifted %v", tt, max(gap, dinf), max(Gap(pobj, dobj), c0.FaceDualInfeasibility))
				}
				if tt > 0 {
					shifted++
				}
			}
		}
	}
	if shifted == 0 {
		t.Fatal("no test case chose a shift")
	}
}
