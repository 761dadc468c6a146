package sdpad

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// TestMeasureSSN measures a second-order phase after the ADMM (issue 44's
// route of SDPNAL+): a semismooth Newton augmented Lagrangian method on the
// dual, warm-started from Solve's iterate after some iterations, on complete
// graphs with 10 labels and Gaussian costs. It counts Newton steps, CG
// steps (each one application of the generalized Jacobian of the face
// projection, about 8 d^2 r flops at rank r in face order d, against
// 4/3 d^3 for the tridiagonal reduction of one ADMM iteration) and
// eigendecompositions, and checks that the phase reaches Solve's SDR value
// (to 1e-8) to 1e-5 relative. Slow; run with SDPAD_MEASURE=1 go test -run
// MeasureSSN -v ./relax/sdpad (SDPAD_MEASURE_ROWS=big adds 20 variables).
//
// The phase minimizes, for the multipliers (X, s) and the penalty sigma,
//
//	phi(y, z) = <b,y> + ||Pi_K(X - sigma S'(y, z))||^2 / (2 sigma)
//	          + ||(s - sigma z)_+||^2 / (2 sigma) + tau ||(y, z) - (y, z)_ref||^2 / 2
//
// (S' = C + A*(y) - P*(z), K the face's cone, s the multiplier of z >= 0,
// tau = 1e-2/sigma a proximal term without which the Newton system is
// singular: |y| + |z| exceeds d(d+1)/2 on dense models) by Newton-CG with an
// Armijo line search, then sets X = Pi_K(X - sigma S'), s = (s - sigma z)_+
// and triples sigma.
func TestMeasureSSN(t *testing.T) {
	if os.Getenv("SDPAD_MEASURE") == "" {
		t.Skip("set SDPAD_MEASURE=1 to measure the semismooth Newton phase")
	}
	rows := []struct{ vars, warm int }{{6, 30}, {6, 60}}
	if os.Getenv("SDPAD_MEASURE_ROWS") == "big" {
		rows = append(rows, struct{ vars, warm int }{20, 50})
	}
	for _, row := range rows {
		p, err := sdr.Build(completePW(rand.New(rand.NewPCG(1, 7)), row.vars, 10))
		if err != nil {
			t.Fatal(err)
		}
		s := DefaultSettings()
		s.Tol = 1e-8
		s.MaxIter = 20000
		ref, err := Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		if ref.Status != solver.Solved {
			t.Fatalf("reference: %v", ref.Status)
		}
		s.Tol = 1e-3
		to3, _ := Solve(context.Background(), p, s)
		s.MaxIter = row.warm
		mu := 0.0
		s.Monitor = func(it *Iterate) { mu = it.Mu }
		w, _ := Solve(context.Background(), p, s)
		o := newSSN(p, w.X, w.Y, w.Z, mu)
		reached3, done := false, false
		for outer := 1; outer <= 10 && !done; outer++ {
			o.outer(1e-3 / math.Pow(3, float64(outer-1)))
			pobj, gap, pinf, dinf := o.measure()
			t.Logf("%d x 10, from ADMM iteration %d: outer %d: pobj %.8g gap %.1e pinf %.1e dinf %.1e sigma %.3g; Newton %d, CG %d, eigendecompositions %d",
				row.vars, row.warm, outer, pobj, gap, pinf, dinf, o.sigma, o.newton, o.cg, o.eigs)
			if !reached3 && max(gap, pinf, dinf) <= 1e-3 {
				reached3 = true
				t.Logf("1e-3 protocol: ADMM alone %d iterations; the phase: %d ADMM iterations, %d Newton steps, %d CG steps, %d eigendecompositions",
					to3.Iterations, row.warm, o.newton, o.cg, o.eigs)
			}
			if max(gap, pinf, dinf) <= 1e-7 {
				if d := math.Abs(pobj - ref.PrimalObjective); d > 1e-5*(1+math.Abs(ref.PrimalObjective)) {
					t.Errorf("the phase ends at %.10g, Solve at %.10g", pobj, ref.PrimalObjective)
				}
				done = true
			}
			o.sigma *= 3
		}
		if row.vars <= 6 && !done {
			t.Errorf("%d x 10: the phase did not reach the protocol at 1e-7 in 10 outer iterations", row.vars)
		}
	}
}

// completePW returns the complete graph on n variables with the given
// labels and standard normal log potentials.
func completePW(r *rand.Rand, n, labels int) *model.Pairwise {
	md := &model.Model{Card: make([]int, n)}
	for i := range md.Card {
		md.Card[i] = labels
		md.Factors = append(md.Factors, model.Factor{Scope: []int{i}, Table: model.Table{Log: randSlice(r, labels)}})
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			md.Factors = append(md.Factors, model.Factor{Scope: []int{i, j}, Table: model.Table{Log: randSlice(r, labels*labels)}})
		}
	}
	pw, err := md.Pairwise(nil)
	if err != nil {
		panic(err)
	}
	return pw
}

// ssnPhase is the semismooth Newton ALM of TestMeasureSSN.
type ssnPhase struct {
	p          *sdr.Problem
	f          *sdr.Face
	n, d       int
	sigma, tau float64
	x          *mat.SymDense // the multiplier X, N x N
	s          []float64     // the multiplier of z >= 0
	y, z       []float64
	yr, zr     []float64 // proximal centre

	q      *mat.Dense // eigenvectors of the compressed W, ascending
	lam    []float64
	alpha  int      // first positive eigenvalue
	xplus  *sdr.Sym // Pi_K(W) on the pattern
	xdense *mat.SymDense
	phi    float64
	gy, gz []float64
	proj   *eigen.Projector

	newton, cg, eigs int
}

func newSSN(p *sdr.Problem, x *mat.SymDense, y, z []float64, mu float64) *ssnPhase {
	f := p.Face()
	o := &ssnPhase{p: p, f: f, n: p.N(), d: f.Dim(), sigma: 1 / mu, x: mat.NewSymDense(p.N(), nil),
		y: append([]float64(nil), y...), z: append([]float64(nil), z...), proj: eigen.NewProjector(f.Dim())}
	o.x.CopySym(x)
	xs := sdr.NewSym(p)
	xs.FromDense(x)
	o.s = p.P(xs, nil)
	for k, v := range o.s {
		o.s[k] = max(v, 0)
	}
	return o
}

// wc returns U^T (X - sigma S'(y, z)) U.
func (o *ssnPhase) wc(y, z []float64) *mat.SymDense {
	g := sdr.NewSym(o.p)
	o.p.DualSlack(g, y, z)
	w := mat.NewSymDense(o.n, nil)
	w.CopySym(o.x)
	g.AddTo(w, -o.sigma)
	c := mat.NewSymDense(o.d, nil)
	o.f.Compress(c, w)
	return c
}

func (o *ssnPhase) phiAt(y, z, lam []float64) float64 {
	v, pos, pr := floats.Dot(o.p.B, y), 0.0, 0.0
	for _, l := range lam {
		pos += max(l, 0) * max(l, 0)
	}
	for k := range z {
		u := max(o.s[k]-o.sigma*z[k], 0)
		pos += u * u
		pr += (z[k] - o.zr[k]) * (z[k] - o.zr[k])
	}
	for k := range y {
		pr += (y[k] - o.yr[k]) * (y[k] - o.yr[k])
	}
	return v + pos/(2*o.sigma) + o.tau*pr/2
}

// eval sets the eigendecomposition, Pi_K(W), phi and its gradient at (y, z).
func (o *ssnPhase) eval() {
	var es mat.EigenSym
	if !es.Factorize(o.wc(o.y, o.z), true) {
		panic("sdpad: EigenSym failed")
	}
	o.eigs++
	o.lam = es.Values(nil)
	o.q = mat.NewDense(o.d, o.d, nil)
	es.VectorsTo(o.q)
	o.alpha = 0
	for o.alpha < o.d && o.lam[o.alpha] <= 0 {
		o.alpha++
	}
	xc := mat.NewSymDense(o.d, nil)
	if r := o.d - o.alpha; r > 0 {
		b := mat.NewDense(o.d, r, nil)
		b.Copy(o.q.Slice(0, o.d, o.alpha, o.d))
		for j := range r {
			l := math.Sqrt(o.lam[o.alpha+j])
			for i := range o.d {
				b.Set(i, j, b.At(i, j)*l)
			}
		}
		xc.SymOuterK(1, b)
	}
	o.xdense = mat.NewSymDense(o.n, nil)
	o.f.Expand(o.xdense, xc)
	o.xplus = sdr.NewSym(o.p)
	o.xplus.FromDense(o.xdense)
	o.phi = o.phiAt(o.y, o.z, o.lam)
	o.gy = o.p.A(o.xplus, nil)
	for k := range o.gy {
		o.gy[k] = o.p.B[k] - o.gy[k] + o.tau*(o.y[k]-o.yr[k])
	}
	o.gz = o.p.P(o.xplus, nil)
	for k := range o.gz {
		o.gz[k] += -max(0, o.s[k]-o.sigma*o.z[k]) + o.tau*(o.z[k]-o.zr[k])
	}
}

// hess sets (oy, oz) = V (dy, dz), V = sigma M^T J M + sigma D + tau I with
// M(dy, dz) = A*(dy) - P*(dz), J the generalized Jacobian of the face
// projection at W (Q (Omega o Q^T H Q) Q^T, Omega_ab = lambda_a / (lambda_a
// - lambda_b) between a positive and a nonpositive eigenvalue, 1 between
// positive ones, 0 between nonpositive ones) and D the indicator of s -
// sigma z > 0.
func (o *ssnPhase) hess(dy, dz, oy, oz []float64) {
	o.cg++
	h := sdr.NewSym(o.p)
	o.p.AStar(h, 1, dy)
	o.p.PStar(h, -1, dz)
	hc := mat.NewSymDense(o.d, nil)
	o.f.Compress(hc, h.ToDense())
	d, a := o.d, o.alpha
	jc := mat.NewSymDense(d, nil)
	if r := d - a; r > 0 {
		qa := o.q.Slice(0, d, a, d)
		var t, haa mat.Dense
		t.Mul(hc, qa)
		haa.Mul(qa.T(), &t)
		rm := mat.NewDense(d, r, nil)
		rm.Mul(qa, &haa)
		rm.Scale(0.5, rm)
		if a > 0 {
			qb := o.q.Slice(0, d, 0, a)
			var hba, t2 mat.Dense
			hba.Mul(qb.T(), &t)
			for i := range a {
				for j := range r {
					la := o.lam[a+j]
					hba.Set(i, j, hba.At(i, j)*la/(la-o.lam[i]))
				}
			}
			t2.Mul(qb, &hba)
			rm.Add(rm, &t2)
		}
		var jj mat.Dense
		jj.Mul(rm, qa.T())
		for i := range d {
			for j := i; j < d; j++ {
				jc.SetSym(i, j, jj.At(i, j)+jj.At(j, i))
			}
		}
	}
	jd := mat.NewSymDense(o.n, nil)
	o.f.Expand(jd, jc)
	js := sdr.NewSym(o.p)
	js.FromDense(jd)
	o.p.A(js, oy)
	o.p.P(js, oz)
	for k := range oy {
		oy[k] = o.sigma*oy[k] + o.tau*dy[k]
	}
	for k := range oz {
		v := -o.sigma*oz[k] + o.tau*dz[k]
		if o.s[k]-o.sigma*o.z[k] > 0 {
			v += o.sigma * dz[k]
		}
		oz[k] = v
	}
}

// direction solves V d = -grad by CG to the relative residual tol (at
// most ssnMaxCG steps).
func (o *ssnPhase) direction(tol float64) ([]float64, []float64) {
	ny := len(o.y)
	g := append(append([]float64(nil), o.gy...), o.gz...)
	x, r := make([]float64, len(g)), make([]float64, len(g))
	floats.ScaleTo(r, -1, g)
	pv, av := append([]float64(nil), r...), make([]float64, len(g))
	rr := floats.Dot(r, r)
	r0 := math.Sqrt(rr)
	for it := 0; it < ssnMaxCG && math.Sqrt(rr) > tol*r0; it++ {
		o.hess(pv[:ny], pv[ny:], av[:ny], av[ny:])
		pap := floats.Dot(pv, av)
		if !(pap > 0) {
			break
		}
		al := rr / pap
		floats.AddScaled(x, al, pv)
		floats.AddScaled(r, -al, av)
		rn := floats.Dot(r, r)
		for k := range pv {
			pv[k] = r[k] + rn/rr*pv[k]
		}
		rr = rn
	}
	return x[:ny], x[ny:]
}

const ssnMaxCG = 300

func (o *ssnPhase) gradNorm() float64 {
	return math.Hypot(floats.Norm(o.gy, 2), floats.Norm(o.gz, 2)) / (1 + floats.Norm(o.p.B, 2))
}

// outer solves the inner problem to the gradient norm tol (at most 20
// Newton steps) and updates the multipliers.
func (o *ssnPhase) outer(tol float64) {
	o.tau = 1e-2 / o.sigma
	o.yr, o.zr = append([]float64(nil), o.y...), append([]float64(nil), o.z...)
	o.eval()
	for k := 0; k < 20 && o.gradNorm() > tol; k++ {
		o.newton++
		dy, dz := o.direction(min(0.1, math.Sqrt(o.gradNorm())))
		slope := floats.Dot(dy, o.gy) + floats.Dot(dz, o.gz)
		y0, z0, phi0 := append([]float64(nil), o.y...), append([]float64(nil), o.z...), o.phi
		for step, ls := 1.0, 0; ; step, ls = step/2, ls+1 {
			floats.AddScaledTo(o.y, y0, step, dy)
			floats.AddScaledTo(o.z, z0, step, dz)
			lam, ok := o.proj.Values(o.wc(o.y, o.z))
			o.eigs++
			if !ok || o.phiAt(o.y, o.z, lam) <= phi0+1e-4*step*slope || ls == 20 {
				break
			}
		}
		o.eval()
	}
	o.x.CopySym(o.xdense)
	for k := range o.s {
		o.s[k] = max(0, o.s[k]-o.sigma*o.z[k])
	}
}

// measure returns §8's measures at (Pi_K(W), y, z_+): the objective, gap,
// primal and face dual infeasibility.
func (o *ssnPhase) measure() (pobj, gap, pinf, dinf float64) {
	p := o.p
	pobj = p.PrimalObjective(o.xplus)
	gap = sdr.Gap(pobj, p.DualObjective(o.y))
	ra, rp := 0.0, 0.0
	for k, v := range p.A(o.xplus, nil) {
		ra += (v - p.B[k]) * (v - p.B[k])
	}
	for _, v := range p.P(o.xplus, nil) {
		rp += min(v, 0) * min(v, 0)
	}
	pinf = (math.Sqrt(ra) + math.Sqrt(rp)) / (1 + floats.Norm(p.B, 2))
	zp := make([]float64, len(o.z))
	for k, v := range o.z {
		zp[k] = max(v, 0)
	}
	g := sdr.NewSym(p)
	p.DualSlack(g, o.y, zp)
	gc := mat.NewSymDense(o.d, nil)
	o.f.Compress(gc, g.ToDense())
	lam, _ := o.proj.Values(gc)
	c, err := p.CertifyEigen(o.y, zp, nil, lam)
	if err != nil {
		panic(err)
	}
	return pobj, gap, pinf, c.FaceDualInfeasibility
}
