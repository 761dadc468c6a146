package factor

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/internal/halves"
	"github.com/sdrmap/sdrmap/sdr"
)

// alm is the augmented Lagrangian of the SDR on a factor V (docs/relaxation.md,
// Factor ALM), on costs divided by scale (so that the largest is 1):
//
//	L(V) = <C, V V^T> + sum_h (lam_h h + sigma/2 h^2)
//	       + 1/(2 sigma) sum_g (max(0, mu_g - sigma g)^2 - mu_g^2),
//
// h over the equalities v_ia . v_ib = 0 (E3) and v_ia . v_jb = 0 (E4), g
// over the nonnegative edge products v_ia . v_jb (P). Row 0 is e_1 and
// every variable's rows sum to it: V stays on that affine set because the
// gradient is projected onto its tangent space (row 0 zero, block means
// zero). On models with only binary variables the iteration runs on U,
// half V's rows, instead (point).
type alm struct {
	prob  *sdr.Problem
	scale float64  // costs are C / scale
	cnorm float64  // 1 + ||C / scale||_F, the scale of the inner tolerance
	c     *sdr.Sym // C / scale
	x     *sdr.Sym // V V^T on the pattern, of the last evaluation
	m     *sdr.Sym // C/scale + A*(lam + sigma h) - P*(max(0, mu - sigma g)): half the gradient is m V

	r  *mat.Dense // m V, scratch of dual
	w  *sdr.Sym   // weights of the active penalty terms, scratch of hessDiag
	vv *mat.Dense // V o V, scratch of hessDiag

	multi bool      // some variable has more than two states: the L-BFGS is preconditioned (precond)
	bin   bool      // every variable has two states: the iteration runs on U (point), not V
	lam   []float64 // multipliers of the y rows (E3, E4 used; layout sdr.Layout)
	mu    []float64 // multipliers of P, >= 0
	sigma float64
	evals int
}

func newALM(prob *sdr.Problem, sigma float64) *alm {
	a := &alm{prob: prob, c: sdr.NewSym(prob), x: sdr.NewSym(prob), m: sdr.NewSym(prob),
		lam: make([]float64, prob.Y.Len), mu: make([]float64, prob.NumZ), sigma: sigma,
		multi: slices.ContainsFunc(prob.Card, func(m int) bool { return m > 2 }),
		bin:   len(prob.Card) > 0 && !slices.ContainsFunc(prob.Card, func(m int) bool { return m != 2 })}
	a.c.CopyFrom(prob.C)
	a.scale = 0
	for _, part := range append(append([][]float64{a.c.Row0}, a.c.Diag...), a.c.Edge...) {
		for _, v := range part {
			a.scale = max(a.scale, math.Abs(v))
		}
	}
	if a.scale == 0 {
		a.scale = 1
	}
	a.c.Scale(1 / a.scale)
	a.cnorm = 1 + a.c.Norm()
	return a
}

// eval returns L at the iteration's point x (V, or U when a.bin) and sets
// grad to its projected gradient: 2 m V, or on U the rows (m V)_i0 -
// (m V)_i1 moved to the tangent spaces of the spheres (gradU).
func (a *alm) eval(x, grad *mat.Dense) float64 {
	a.evals++
	if a.bin {
		a.patternU(x)
		f := a.terms()
		a.gradU(x, grad)
		return f
	}
	a.x.PatternOf(x)
	f := a.terms()
	a.m.MulMat(grad, x)
	tangent(a.prob, x, grad, 2)
	return f
}

// terms returns L at the point whose products are a.x and sets a.m to the
// matrix whose product with V is half L's gradient in V. From splitTerms
// edges on, the variables' and the edges' terms run in two halves at once
// (package halves).
func (a *alm) terms() float64 {
	p := a.prob
	copy(a.m.Row0, a.c.Row0)
	f := a.c.Row0[0]*a.x.Row0[0] + 2*floats.Dot(a.c.Row0[1:], a.x.Row0[1:])
	n, ne := len(p.Card), len(p.Edges)
	if ne < splitTerms {
		return f + a.termsRange(0, n, 0, ne)
	}
	var part [2]float64
	halves.Run(func(h int) {
		i0, i1 := halves.Range(n, h)
		e0, e1 := halves.Range(ne, h)
		part[h] = a.termsRange(i0, i1, e0, e1)
	})
	return f + part[0] + part[1]
}

// splitTerms is the number of edges from which terms runs on two halves.
const splitTerms = 4096

// termsRange is terms on variables [i0, i1) and edges [e0, e1), without
// row 0: it sets their blocks of a.m and returns their part of L.
func (a *alm) termsRange(i0, i1, e0, e1 int) float64 {
	p := a.prob
	f := 0.0
	sig := a.sigma
	for i := i0; i < i1; i++ {
		mi := p.Card[i]
		xd, md := a.x.Diag[i], a.m.Diag[i]
		copy(md, a.c.Diag[i])
		f += floats.Dot(md, xd)
		k := p.Y.E3Start[i]
		for s := 0; s < mi; s++ {
			for t := s + 1; t < mi; t++ {
				h := xd[s*mi+t]
				l := a.lam[k]
				f += h * (l + sig/2*h)
				w := (l + sig*h) / 2
				md[s*mi+t] += w
				md[t*mi+s] += w
				k++
			}
		}
	}
	for e := e0; e < e1; e++ {
		ed := &p.Edges[e]
		xe, me := a.x.Edge[e], a.m.Edge[e]
		copy(me, a.c.Edge[e])
		f += 2 * floats.Dot(me, xe)
		zk, yk := ed.Z, ed.Y4
		for q, g := range xe {
			if ed.Forbidden != nil && ed.Forbidden[q] {
				l := a.lam[yk]
				f += g * (l + sig/2*g)
				me[q] += (l + sig*g) / 2
				yk++
				continue
			}
			mu := a.mu[zk]
			if t := mu - sig*g; t > 0 {
				f += (t*t - mu*mu) / (2 * sig)
				me[q] -= t / 2
			} else {
				f -= mu * mu / (2 * sig)
			}
			zk++
		}
	}
	return f
}

// update moves the multipliers to lam + sigma h and max(0, mu - sigma g)
// at the last evaluated point and returns the largest violation of an
// equality (h) and of a nonnegativity (-g).
func (a *alm) update() (eq, neg float64) {
	p := a.prob
	for i, mi := range p.Card {
		xd := a.x.Diag[i]
		k := p.Y.E3Start[i]
		for s := 0; s < mi; s++ {
			for t := s + 1; t < mi; t++ {
				h := xd[s*mi+t]
				eq = max(eq, math.Abs(h))
				a.lam[k] += a.sigma * h
				k++
			}
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		zk, yk := ed.Z, ed.Y4
		for q, g := range a.x.Edge[e] {
			if ed.Forbidden != nil && ed.Forbidden[q] {
				eq = max(eq, math.Abs(g))
				a.lam[yk] += a.sigma * g
				yk++
				continue
			}
			neg = max(neg, -g)
			a.mu[zk] = max(0, a.mu[zk]-a.sigma*g)
			zk++
		}
	}
	return eq, neg
}

// hessDiag sets d to the diagonal of the Hessian of L in V at v, the point
// of the last evaluation (away from the kinks of the P terms):
//
//	d[ia,c] = 2 C_(ia,ia) + sigma sum_jb v_jb[c]^2,
//
// the sum over the terms v_ia . v_jb whose penalty is active at v: E3 and
// E4 always, P where mu - sigma g > 0. Every term is bilinear in two
// distinct rows, so nothing else contributes.
func (a *alm) hessDiag(v, d *mat.Dense) {
	p := a.prob
	if a.w == nil {
		a.w = sdr.NewSym(p)
	}
	n, r := v.Dims()
	if a.vv == nil || a.vv.RawMatrix().Cols != r {
		a.vv = mat.NewDense(n, r, nil)
	}
	w, sig := a.w, a.sigma
	w.Zero()
	for i, mi := range p.Card {
		wd := w.Diag[i]
		for s := 0; s < mi; s++ {
			for t := s + 1; t < mi; t++ {
				wd[s*mi+t], wd[t*mi+s] = sig, sig
			}
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		we, zk := w.Edge[e], ed.Z
		for q, g := range a.x.Edge[e] {
			if ed.Forbidden != nil && ed.Forbidden[q] {
				we[q] = sig
				continue
			}
			if a.mu[zk]-sig*g > 0 {
				we[q] = sig
			}
			zk++
		}
	}
	a.vv.MulElem(v, v)
	w.MulMat(d, a.vv)
	dr := d.RawMatrix()
	for i, mi := range p.Card {
		cd := a.c.Diag[i]
		for s := range mi {
			floats.AddConst(2*cd[s*mi+s], dr.Data[(p.Offset[i]+s)*dr.Stride:][:r])
		}
	}
}

// precondShift is the share of the mean of the Hessian's diagonal added to
// it before it is inverted: it bounds the preconditioner where the
// diagonal is small, as on rows that no penalty reaches.
const precondShift = 0.1

// precond sets d to the L-BFGS preconditioner at v (the point of the last
// evaluation): the inverse of the Hessian's diagonal (hessDiag), made
// positive, shifted by precondShift times its mean and scaled to 1 at the
// mean. Near an integral point the penalties make L's curvature differ by
// orders of magnitude between the entries of V (large in the first
// column, the marginals), and scaled by it the L-BFGS needs far fewer
// iterations on multi-label models. Binary variables' rows, whose
// stiffest direction the sphere removed, get the mean, so 1. Models with
// only binary variables (a.multi false) use the plain L-BFGS instead.
func (a *alm) precond(v, d *mat.Dense) {
	a.hessDiag(v, d)
	dr := d.RawMatrix()
	mean := 0.0
	for k, x := range dr.Data {
		dr.Data[k] = max(x, 0)
		mean += dr.Data[k]
	}
	mean /= float64(len(dr.Data))
	if mean == 0 {
		mean = 1
	}
	for i, mi := range a.prob.Card {
		if mi == 2 {
			o := a.prob.Offset[i]
			rows := dr.Data[o*dr.Stride : (o+2)*dr.Stride]
			for k := range rows {
				rows[k] = mean
			}
		}
	}
	for k, x := range dr.Data {
		dr.Data[k] = (1 + precondShift) * mean / (x + precondShift*mean)
	}
}

// project sets g to its orthogonal projection onto the tangent space of the
// affine set: row 0 zero and, per variable, rows summing to zero.
func project(p *sdr.Problem, g *mat.Dense) {
	gr := g.RawMatrix()
	clear(gr.Data[:gr.Cols])
	mean := make([]float64, gr.Cols)
	for i, mi := range p.Card {
		center(gr, p.Offset[i], mi, mean, 1)
	}
}

// center sets rows o..o+m-1 of g to alpha times themselves less their mean
// (mean: scratch). The rows are short (r entries), so plain loops.
func center(g blas64.General, o, m int, mean []float64, alpha float64) {
	r := g.Cols
	row := func(a int) []float64 { return g.Data[(o+a)*g.Stride:][:r] }
	copy(mean, row(0))
	for a := 1; a < m; a++ {
		for c, x := range row(a) {
			mean[c] += x
		}
	}
	inv := 1 / float64(m)
	for a := range m {
		ra := row(a)
		for c, x := range ra {
			ra[c] = alpha * (x - mean[c]*inv)
		}
	}
}

// Binary variables (two states) keep their orthogonality (E3) exactly: with
// v_0 = e_1 their rows are v_i0 = (e_1 + u_i)/2 and v_i1 = (e_1 - u_i)/2, and
// v_i0 . v_i1 = (1 - ||u_i||^2)/4 vanishes exactly on the sphere ||u_i|| = 1
// (the Burer-Monteiro form of Max-Cut). The iteration stays on it: gradients
// and steps are moved to its tangent space (tangent) and points back onto it
// (retract), so its penalty term never acts; only its multiplier is needed,
// for the dual point, and dual computes it in closed form.

// tangent sets g to alpha times its projection onto the tangent space at
// v: that of the affine set (project) and, for a binary variable, of its
// sphere: its rows become w and -w, w = (g_i0 - g_i1)/2 less its component
// along u_i. From splitTangent entries on, the variables run in two halves
// at once (package halves).
func tangent(p *sdr.Problem, v, g *mat.Dense, alpha float64) {
	vr, gr := v.RawMatrix(), g.RawMatrix()
	clear(gr.Data[:gr.Cols])
	byHalves(len(p.Card), 0, gr.Rows*gr.Cols, func(i0, i1, _, _ int) {
		tangentRange(p, vr, gr, alpha, i0, i1)
	})
}

// splitTangent is the number of entries of the iteration's point from which
// tangent and the evaluation on U run on two halves (byHalves).
const splitTangent = 1 << 17

// tangentRange is tangent on variables [i0, i1).
func tangentRange(p *sdr.Problem, vr, gr blas64.General, alpha float64, i0, i1 int) {
	r := gr.Cols
	mean := make([]float64, r)
	for i := i0; i < i1; i++ {
		mi, o := p.Card[i], p.Offset[i]
		if mi != 2 {
			center(gr, o, mi, mean, alpha)
			continue
		}
		v0, v1 := rowPair(vr, o)
		g0, g1 := rowPair(gr, o)
		uu, uw := 0.0, 0.0
		for c := range r {
			u := v0[c] - v1[c]
			w := alpha * (g0[c] - g1[c]) / 2
			g0[c] = w
			uu += u * u
			uw += u * w
		}
		t := 0.0
		if uu > 0 {
			t = uw / uu
		}
		for c := range r {
			g0[c] -= t * (v0[c] - v1[c])
			g1[c] = -g0[c]
		}
	}
}

// rowPair returns rows o and o+1 of m: a binary variable's rows.
func rowPair(m blas64.General, o int) (r0, r1 []float64) {
	return m.Data[o*m.Stride : o*m.Stride+m.Cols], m.Data[(o+1)*m.Stride : (o+1)*m.Stride+m.Cols]
}

// retract moves each binary variable's rows of v (on the affine set) onto
// the sphere: u_i = v_i0 - v_i1 becomes u_i / ||u_i||.
func retract(p *sdr.Problem, v *mat.Dense) {
	vr := v.RawMatrix()
	r := vr.Cols
	for i, mi := range p.Card {
		if mi != 2 {
			continue
		}
		v0, v1 := rowPair(vr, p.Offset[i])
		uu := 0.0
		for c := range r {
			u := v0[c] - v1[c]
			uu += u * u
		}
		if uu == 0 {
			continue
		}
		inv := 1 / math.Sqrt(uu)
		for c := range r {
			u := (v0[c] - v1[c]) * inv
			e := 0.0
			if c == 0 {
				e = 1
			}
			v0[c], v1[c] = (e+u)/2, (e-u)/2
		}
	}
}

// initial returns a factor of rank r on the affine set: row 0 = e_1, the
// rows of variable i at e_1/m_i plus a small random part summing to zero.
func initial(p *sdr.Problem, r int, seed uint64) *mat.Dense {
	v := mat.NewDense(p.N(), r, nil)
	rng := rand.New(rand.NewPCG(seed, 0xfac7))
	for k := 1; k < p.N(); k++ {
		for c := 1; c < r; c++ {
			v.Set(k, c, 0.1*rng.NormFloat64())
		}
	}
	project(p, v)
	v.Set(0, 0, 1)
	for i, mi := range p.Card {
		for a := range mi {
			v.Set(p.Offset[i]+a, 0, 1/float64(mi))
		}
	}
	retract(p, v)
	return v
}

// On models whose variables all have two states the iteration runs on U,
// n x r with u_i = v_i0 - v_i1 on the unit sphere, instead of V (N = 2n+1
// rows): V is e_1 and (e_1 +- u_i)/2, so U holds all of it in half the
// rows and the L-BFGS's vectors are half as long. point and factor map
// between the two; on other models both are the identity.

// point returns the iteration's point for the factor v: v, or U when a.bin.
func (a *alm) point(v *mat.Dense) *mat.Dense {
	if !a.bin {
		return v
	}
	vr := v.RawMatrix()
	u := mat.NewDense(len(a.prob.Card), vr.Cols, nil)
	for i := range a.prob.Card {
		v0, v1 := rowPair(vr, a.prob.Offset[i])
		floats.SubTo(u.RawRowView(i), v0, v1)
	}
	return u
}

// factor returns the factor V of the iteration's point x: x, or when
// a.bin a new V with row 0 e_1 and rows (e_1 +- u_i)/2.
func (a *alm) factor(x *mat.Dense) *mat.Dense {
	if !a.bin {
		return x
	}
	v := mat.NewDense(a.prob.N(), x.RawMatrix().Cols, nil)
	vr := v.RawMatrix()
	vr.Data[0] = 1
	for i := range a.prob.Card {
		v0, v1 := rowPair(vr, a.prob.Offset[i])
		for c, u := range x.RawRowView(i) {
			v0[c], v1[c] = u/2, -u/2
		}
		v0[0] += 0.5
		v1[0] += 0.5
	}
	return v
}

// tangent moves g to the tangent space at the iteration's point x.
func (a *alm) tangent(x, g *mat.Dense) {
	if a.bin {
		sphereTangent(x, g)
	} else {
		tangent(a.prob, x, g, 1)
	}
}

// retract moves the iteration's point x back onto its manifold.
func (a *alm) retract(x *mat.Dense) {
	if !a.bin {
		retract(a.prob, x)
		return
	}
	xr := x.RawMatrix()
	for i := range xr.Rows {
		row := xr.Data[i*xr.Stride : i*xr.Stride+xr.Cols]
		if nrm := floats.Norm(row, 2); nrm > 0 {
			floats.Scale(1/nrm, row)
		}
	}
}

// sphereTangent removes from each row of g its component along the same
// row of u (on two halves of the rows from splitTangent entries on).
func sphereTangent(u, g *mat.Dense) {
	ur, gr := u.RawMatrix(), g.RawMatrix()
	byHalves(ur.Rows, 0, ur.Rows*ur.Cols, func(i0, i1, _, _ int) {
		for i := i0; i < i1; i++ {
			sphereRow(rowOf(ur, i), rowOf(gr, i))
		}
	})
}

// sphereRow removes from g its component along u.
func sphereRow(u, g []float64) {
	if uu := floats.Dot(u, u); uu > 0 {
		floats.AddScaled(g, -floats.Dot(u, g)/uu, u)
	}
}

// rowOf returns row i of m.
func rowOf(m blas64.General, i int) []float64 { return m.Data[i*m.Stride : i*m.Stride+m.Cols] }

// byHalves calls f on the variables [0, n) and edges [0, ne), from
// splitTangent entries on as two halves at once (package halves).
func byHalves(n, ne, entries int, f func(i0, i1, e0, e1 int)) {
	if entries < splitTangent {
		f(0, n, 0, ne)
		return
	}
	halves.Run(func(h int) {
		i0, i1 := halves.Range(n, h)
		e0, e1 := halves.Range(ne, h)
		f(i0, i1, e0, e1)
	})
}

// patternU sets a.x to V V^T on the pattern, V the factor of U: with v_0 =
// e_1 and v_ia = (e_1 + s_a u_i)/2, s = (1, -1), v_ia . v_jb = (1 + s_a
// u_i[0] + s_b u_j[0] + s_a s_b u_i . u_j)/4: one product of rows per edge
// instead of four.
func (a *alm) patternU(u *mat.Dense) {
	p, x := a.prob, a.x
	ur := u.RawMatrix()
	x.Row0[0] = 1
	byHalves(len(p.Card), len(p.Edges), ur.Rows*ur.Cols, func(i0, i1, e0, e1 int) {
		for i := i0; i < i1; i++ {
			ui, o := rowOf(ur, i), p.Offset[i]
			u0, uu := ui[0], floats.Dot(ui, ui)
			x.Row0[o], x.Row0[o+1] = (1+u0)/2, (1-u0)/2
			d := x.Diag[i]
			d[0], d[1], d[2], d[3] = (1+2*u0+uu)/4, (1-uu)/4, (1-uu)/4, (1-2*u0+uu)/4
		}
		for e := e0; e < e1; e++ {
			ed := &p.Edges[e]
			ui, uj := rowOf(ur, ed.I), rowOf(ur, ed.J)
			d, a0, b0 := floats.Dot(ui, uj), ui[0], uj[0]
			blk := x.Edge[e]
			blk[0], blk[1] = (1+a0+b0+d)/4, (1+a0-b0-d)/4
			blk[2], blk[3] = (1-a0+b0-d)/4, (1-a0-b0+d)/4
		}
	})
}

// gradU sets each row i of g to (m V)_i0 - (m V)_i1, the gradient of L in
// u_i, V the factor of U, moved to the tangent space of u_i's sphere: a
// row sum_b w_b v_jb of m V with v_jb = (e_1 + s_b u_j)/2 is e_1 (w_0 +
// w_1)/2 + u_j (w_0 - w_1)/2, one update of a row per edge end instead of
// four. Each row is summed over its variable's edges (Problem.Incident), so
// the halves of the rows run at once from splitTangent entries on.
func (a *alm) gradU(u, g *mat.Dense) {
	p, m := a.prob, a.m
	ur, gr := u.RawMatrix(), g.RawMatrix()
	byHalves(len(p.Card), 0, ur.Rows*ur.Cols, func(i0, i1, _, _ int) {
		for i := i0; i < i1; i++ {
			o, d := p.Offset[i], m.Diag[i]
			w0, w1 := d[0]-d[2], d[1]-d[3]
			ui, gi := rowOf(ur, i), rowOf(gr, i)
			floats.ScaleTo(gi, (w0-w1)/2, ui)
			gi[0] += m.Row0[o] - m.Row0[o+1] + (w0+w1)/2
			for _, in := range p.Incident(i) {
				ed, blk := &p.Edges[in.Edge], m.Edge[in.Edge]
				if in.First { // row I0 - row I1, columns J0, J1
					w0, w1 := blk[0]-blk[2], blk[1]-blk[3]
					floats.AddScaled(gi, (w0-w1)/2, rowOf(ur, ed.J))
					gi[0] += (w0 + w1) / 2
				} else { // column J0 - column J1, rows I0, I1
					w0, w1 := blk[0]-blk[1], blk[2]-blk[3]
					floats.AddScaled(gi, (w0-w1)/2, rowOf(ur, ed.I))
					gi[0] += (w0 + w1) / 2
				}
			}
			sphereRow(ui, gi)
		}
	})
}
