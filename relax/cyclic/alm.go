package cyclic

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/sdrmap/sdrmap/internal/halves"
)

// alm is the augmented Lagrangian of the reduced relaxation (see the
// package doc) on a factor of each frequency block, M_k = U_k U_k^*, with
// costs divided by scale (largest |T| = 1):
//
//	L(U) = sum_e sum_s T_e(s) q_e(s) + 1/(2 sigma) sum (max(0, mu - sigma q)^2 - mu^2),
//	q_e(s) = (1 + sum_k alpha_k Re(M_k(I,J) omega^-ks)) / m,  omega = exp(2 pi i / m).
//
// The point x holds the rows u_{k,i} in C^r as 2r reals (re, im), row
// (k, i) at x[(k n + i) 2r:], frequencies k = 1..K (index k-1), K = m/2
// rounded down; every row has unit norm (diag M_k = 1), kept exactly by
// projecting gradients onto the spheres' tangent spaces and retracting
// steps by normalizing. A frequency with 2k = m is real (alpha 1, its
// imaginary parts held at 0); the others stand for k and m - k (alpha 2).
type alm struct {
	p          *Problem
	n, m, k, r int
	scale      float64
	cnorm      float64     // 1 + ||T / scale||_2
	alpha      []float64   // per frequency
	cos, sin   [][]float64 // [k][s]: cos, sin of 2 pi (k+1) s / m
	t          []float64   // T / scale, edge e at t[e m:]
	mu         []float64   // multipliers of q >= 0, same layout
	q, w       []float64   // q and T/scale - max(0, mu - sigma q) at the last evaluation
	g1         []float64   // the second half's gradient (split)
	sigma      float64
}

func newALM(p *Problem, r int, sigma float64) *alm {
	m := p.M
	a := &alm{p: p, n: p.N, m: m, k: m / 2, r: r, scale: p.scale(), sigma: sigma}
	a.alpha = make([]float64, a.k)
	a.cos, a.sin = make([][]float64, a.k), make([][]float64, a.k)
	for k := range a.k {
		a.alpha[k] = 2
		if 2*(k+1) == m {
			a.alpha[k] = 1
		}
		a.cos[k], a.sin[k] = make([]float64, m), make([]float64, m)
		for s := range m {
			th := 2 * math.Pi * float64((k+1)*s%m) / float64(m)
			a.cos[k][s], a.sin[k][s] = math.Cos(th), math.Sin(th)
		}
	}
	ne := len(p.Edges)
	a.t, a.mu, a.q, a.w = make([]float64, ne*m), make([]float64, ne*m), make([]float64, ne*m), make([]float64, ne*m)
	ss := 0.0
	for e, ed := range p.Edges {
		for s, v := range ed.T {
			a.t[e*m+s] = v / a.scale
			ss += (v / a.scale) * (v / a.scale)
		}
	}
	a.cnorm = 1 + math.Sqrt(ss)
	return a
}

// size is the length of a point.
func (a *alm) size() int { return a.k * a.n * 2 * a.r }

func (a *alm) row(x []float64, k, i int) []float64 {
	o := (k*a.n + i) * 2 * a.r
	return x[o : o+2*a.r]
}

// real reports whether frequency index k is the real one (2(k+1) = m).
func (a *alm) real(k int) bool { return a.alpha[k] == 1 }

// initial returns a random point: every row a random unit vector.
func (a *alm) initial(seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0xc1c11c))
	x := make([]float64, a.size())
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	a.Retract(x)
	return x
}

// products sets q and w at x and returns L.
func (a *alm) products(x []float64) float64 {
	var f [2]float64
	a.split(func(part, e0, e1 int) { f[part] = a.productsRange(x, e0, e1) })
	return f[0] + f[1]
}

// productsRange sets q and w on edges e0..e1-1 and returns their terms of L.
func (a *alm) productsRange(x []float64, e0, e1 int) float64 {
	m, sig := a.m, a.sigma
	re, im := make([]float64, a.k), make([]float64, a.k)
	f := 0.0
	for e := e0; e < e1; e++ {
		ed := &a.p.Edges[e]
		for k := range a.k {
			ui, uj := a.row(x, k, ed.I), a.row(x, k, ed.J)
			var sr, si float64
			for c := 0; c < len(ui); c += 2 {
				sr += ui[c]*uj[c] + ui[c+1]*uj[c+1]
				si += ui[c+1]*uj[c] - ui[c]*uj[c+1]
			}
			re[k], im[k] = sr, si
		}
		for s := range m {
			q := 1.0
			for k := range a.k {
				q += a.alpha[k] * (re[k]*a.cos[k][s] + im[k]*a.sin[k][s])
			}
			q /= float64(m)
			j := e*m + s
			t, mu := a.t[j], a.mu[j]
			f += t * q
			w := t
			if v := mu - sig*q; v > 0 {
				f += (v*v - mu*mu) / (2 * sig)
				w -= v
			} else {
				f -= mu * mu / (2 * sig)
			}
			a.q[j], a.w[j] = q, w
		}
	}
	return f
}

// gradient sets g to the Euclidean gradient in x of sum_e sum_s w_e(s)
// q_e(s) for the current w: row (k, i) of g is 2 alpha_k (G_k U_k)_i, with
// G_k of the package doc. With w from products it is L's gradient.
func (a *alm) gradient(x, g []float64) {
	if len(a.g1) != len(g) {
		a.g1 = make([]float64, len(g))
	}
	a.split(func(part, e0, e1 int) {
		if part == 0 {
			a.gradientRange(x, g, e0, e1)
		} else {
			a.gradientRange(x, a.g1, e0, e1)
		}
	})
	if len(a.p.Edges) >= parallelEdges {
		floats.Add(g, a.g1)
	}
}

// gradientRange sets g to the gradient's terms of edges e0..e1-1.
func (a *alm) gradientRange(x, g []float64, e0, e1 int) {
	clear(g)
	m := a.m
	for e := e0; e < e1; e++ {
		ed := &a.p.Edges[e]
		w := a.w[e*m : (e+1)*m]
		for k := range a.k {
			wr, wi := a.transform(w, k)
			b := a.alpha[k] / float64(m)
			wr, wi = b*wr, b*wi
			ui, uj := a.row(x, k, ed.I), a.row(x, k, ed.J)
			gi, gj := a.row(g, k, ed.I), a.row(g, k, ed.J)
			for c := 0; c < len(ui); c += 2 {
				// g_i += u_j conj(W), g_j += u_i W
				gi[c] += uj[c]*wr + uj[c+1]*wi
				gi[c+1] += uj[c+1]*wr - uj[c]*wi
				gj[c] += ui[c]*wr - ui[c+1]*wi
				gj[c+1] += ui[c+1]*wr + ui[c]*wi
			}
		}
	}
}

// transform returns W = sum_s w(s) omega^{-(k+1)s}, omega = exp(2 pi i /
// m): the Fourier coefficient of an edge's reduced costs w at frequency
// index k.
func (a *alm) transform(w []float64, k int) (wr, wi float64) {
	for s, v := range w {
		wr += v * a.cos[k][s]
		wi -= v * a.sin[k][s]
	}
	return wr, wi
}

// parallelEdges is the number of edges from which products and gradient
// run in two halves at once (package halves).
const parallelEdges = 4096

// split runs f(part, e0, e1) over the edges: once, or on the two halves at
// once when there are at least parallelEdges.
func (a *alm) split(f func(part, e0, e1 int)) {
	ne := len(a.p.Edges)
	if ne < parallelEdges {
		f(0, 0, ne)
		return
	}
	halves.Run(func(h int) {
		e0, e1 := halves.Range(ne, h)
		f(h, e0, e1)
	})
}

// Eval returns L at x and sets g to its gradient projected onto the
// tangent space of the spheres (lbfgs.Func).
func (a *alm) Eval(x, g []float64) float64 {
	f := a.products(x)
	a.gradient(x, g)
	a.Tangent(x, g)
	return f
}

// Tangent projects every row of d onto the tangent space of the unit
// sphere at the row of x (real frequencies: of the real sphere).
func (a *alm) Tangent(x, d []float64) {
	for k := range a.k {
		for i := range a.n {
			u, v := a.row(x, k, i), a.row(d, k, i)
			if a.real(k) {
				for c := 1; c < len(v); c += 2 {
					v[c] = 0
				}
			}
			dot := 0.0
			for c, uc := range u {
				dot += uc * v[c]
			}
			for c, uc := range u {
				v[c] -= dot * uc
			}
		}
	}
}

// Retract normalizes every row of x.
func (a *alm) Retract(x []float64) {
	for k := range a.k {
		for i := range a.n {
			u := a.row(x, k, i)
			if a.real(k) {
				for c := 1; c < len(u); c += 2 {
					u[c] = 0
				}
			}
			nn := 0.0
			for _, v := range u {
				nn += v * v
			}
			if nn == 0 {
				u[0], nn = 1, 1
			}
			s := 1 / math.Sqrt(nn)
			for c := range u {
				u[c] *= s
			}
		}
	}
}

// update moves the multipliers to max(0, mu - sigma q) at the last
// evaluated point and returns the largest violation max(0, -q).
func (a *alm) update() float64 {
	viol := 0.0
	for j, q := range a.q {
		a.mu[j] = max(0, a.mu[j]-a.sigma*q)
		viol = max(viol, -q)
	}
	return viol
}

// objective returns sum_e sum_s T_e(s) q_e(s) / scale at the last
// evaluation.
func (a *alm) objective() float64 {
	f := 0.0
	for j, q := range a.q {
		f += a.t[j] * q
	}
	return f
}

// widen returns x with r2 > a.r columns per block and sets a.r = r2: the
// old columns, then per block the direction dir(k) (a complex n-vector as
// n real parts then n imaginary parts, or n reals for the real block; nil
// for none) and random directions, scaled by eps before the rows are
// normalized again. Along a direction of negative curvature of the
// certificate's slack the Lagrangian decreases (the factor ALM's rank
// step).
func (a *alm) widen(x []float64, r2 int, dir func(k int) []float64, eps float64, rng *rand.Rand) []float64 {
	r := a.r
	a.r = r2
	y := make([]float64, a.size())
	noise := eps / math.Sqrt(float64(a.n))
	for k := range a.k {
		v := dir(k)
		for i := range a.n {
			o := (k*a.n + i) * 2 * r
			row := a.row(y, k, i)
			copy(row, x[o:o+2*r])
			for c := 2 * r; c < 2*r2; c += 2 {
				row[c], row[c+1] = noise*rng.NormFloat64(), noise*rng.NormFloat64()
			}
			if v != nil {
				row[2*r] = eps * v[i]
				if len(v) == 2*a.n {
					row[2*r+1] = eps * v[a.n+i]
				}
			}
		}
	}
	a.Retract(y)
	return y
}
