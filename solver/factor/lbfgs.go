package factor

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// lbfgs is the limited-memory BFGS inverse-Hessian approximation (Nocedal
// and Wright, Algorithm 7.4) over the flattened factor, with H_0 = gamma P
// for a diagonal preconditioner P. It is written here
// rather than taken from gonum/optimize because the ALM needs the function
// and its gradient from one pass, its memory kept across outer iterations,
// and a stop check inside the line search.
type lbfgs struct {
	s, y  [][]float64 // ring of the last pairs, oldest first from head
	rho   []float64
	yy    []float64 // y.y of each pair
	alpha []float64
	head  int
	n     int       // pairs stored
	pre   []float64 // the diagonal of P, nil for P = I
}

func newLBFGS(mem int) *lbfgs {
	return &lbfgs{s: make([][]float64, mem), y: make([][]float64, mem), rho: make([]float64, mem), yy: make([]float64, mem), alpha: make([]float64, mem)}
}

func (l *lbfgs) reset() { l.head, l.n = 0, 0 }

// push stores the pair s = x+ - x, y = g+ - g when it has positive
// curvature, keeping the slices themselves, and returns two slices of the
// same length for the next pair: the evicted ones, s and y if the pair was
// rejected, or new ones.
func (l *lbfgs) push(s, y []float64) (sNext, yNext []float64) {
	sy, ss, yy := floats.Dot(s, y), floats.Dot(s, s), floats.Dot(y, y)
	if !(sy > 1e-12*math.Sqrt(ss*yy)) {
		return s, y
	}
	mem := len(l.s)
	k := (l.head + l.n) % mem
	if l.n == mem {
		k = l.head
		l.head = (l.head + 1) % mem
	} else {
		l.n++
	}
	sNext, yNext = l.s[k], l.y[k]
	if len(sNext) != len(s) {
		sNext, yNext = make([]float64, len(s)), make([]float64, len(s))
	}
	l.s[k], l.y[k], l.rho[k], l.yy[k] = s, y, 1/sy, yy
	return sNext, yNext
}

// direction sets d = -H g by the two-loop recursion, H_0 = gamma P with
// gamma = s.y / y.P y of the newest pair (1 without pairs).
func (l *lbfgs) direction(d, g []float64) {
	copy(d, g)
	mem := len(l.s)
	for j := l.n - 1; j >= 0; j-- {
		k := (l.head + j) % mem
		l.alpha[k] = l.rho[k] * floats.Dot(l.s[k], d)
		floats.AddScaled(d, -l.alpha[k], l.y[k])
	}
	if l.pre != nil {
		floats.Mul(d, l.pre)
	}
	if l.n > 0 {
		k := (l.head + l.n - 1) % mem
		ypy := 0.0
		if l.pre == nil {
			ypy = l.yy[k]
		} else {
			for i, y := range l.y[k] {
				ypy += y * l.pre[i] * y
			}
		}
		floats.Scale(1/(l.rho[k]*ypy), d)
	}
	for j := 0; j < l.n; j++ {
		k := (l.head + j) % mem
		b := l.rho[k] * floats.Dot(l.y[k], d)
		floats.AddScaled(d, l.alpha[k]-b, l.s[k])
	}
	floats.Scale(-1, d)
}

// inner is the state of the inner minimization: the point, its value and
// projected gradient, and scratch of the same shape.
type inner struct {
	v, vt, g, gt, d *mat.Dense
	pre             *mat.Dense // the preconditioner's diagonal (alm.precond), nil until needed
	f               float64
	mem             *lbfgs
	sbuf, ybuf      []float64
}

func newInner(a *alm, v *mat.Dense, mem int) *inner {
	n, r := v.Dims()
	in := &inner{v: v, vt: mat.NewDense(n, r, nil), g: mat.NewDense(n, r, nil), gt: mat.NewDense(n, r, nil),
		d: mat.NewDense(n, r, nil), mem: newLBFGS(mem), sbuf: make([]float64, n*r), ybuf: make([]float64, n*r)}
	in.f = a.eval(in.v, in.g)
	return in
}

func flat(m *mat.Dense) []float64 { return m.RawMatrix().Data }

// gradNorm is the 2-norm of the projected gradient.
func (in *inner) gradNorm() float64 {
	g := flat(in.g)
	return math.Sqrt(floats.Dot(g, g))
}

// minimize runs L-BFGS, preconditioned at the start point, with an Armijo
// backtracking line search until the projected gradient's 2-norm is at
// most tol, after iters iterations, or when stop returns true. It returns
// the iterations done. The last evaluation of a is always at in.v.
func (in *inner) minimize(a *alm, tol float64, iters int, stop func() bool) int {
	const c1 = 1e-4
	x, d := flat(in.v), flat(in.d)
	if a.multi {
		if in.pre == nil {
			in.pre = mat.NewDense(in.v.RawMatrix().Rows, in.v.RawMatrix().Cols, nil)
		}
		a.precond(in.v, in.pre)
		in.mem.pre = flat(in.pre)
	}
	k := 0
	for ; k < iters && in.gradNorm() > tol && !stop(); k++ {
		g := flat(in.g)
		in.mem.direction(d, g)
		a.tangent(in.v, in.d)
		gd := floats.Dot(g, d)
		t := 1.0
		if !(gd < 0) || in.mem.n == 0 {
			in.mem.reset()
			copy(d, g)
			if in.mem.pre != nil {
				floats.Mul(d, in.mem.pre)
				a.tangent(in.v, in.d)
			}
			floats.Scale(-1, d)
			gd = floats.Dot(g, d)
			t = min(1, 1/floats.Norm(d, 2))
		}
		xt := flat(in.vt)
		var ft float64
		for ls := 0; ; ls++ {
			floats.AddScaledTo(xt, x, t, d)
			a.retract(in.vt)
			ft = a.eval(in.vt, in.gt)
			if ft <= in.f+c1*t*gd {
				break
			}
			if ls == 30 {
				// No descent along d: forget the curvature pairs and
				// evaluate at v again (the invariant above).
				in.mem.reset()
				in.f = a.eval(in.v, in.g)
				return k
			}
			// Minimizer of the quadratic through f, gd and ft, in [0.1t, 0.5t].
			q := -gd * t * t / (2 * (ft - in.f - gd*t))
			if math.IsNaN(q) {
				q = t / 2
			}
			t = max(0.1*t, min(0.5*t, q))
		}
		floats.SubTo(in.sbuf, xt, x)
		floats.SubTo(in.ybuf, flat(in.gt), g)
		in.sbuf, in.ybuf = in.mem.push(in.sbuf, in.ybuf)
		in.v, in.vt = in.vt, in.v
		in.g, in.gt = in.gt, in.g
		in.f = ft
		x = flat(in.v)
	}
	return k
}
