// Package lbfgs is the limited-memory BFGS minimizer of the factor solvers
// (solver/factor, solver/cyclic): the two-loop recursion (Nocedal and
// Wright, Algorithm 7.4) with H_0 = gamma P for an optional diagonal
// preconditioner P, and an Armijo backtracking line search, on a manifold
// given by a tangent projection and a retraction (Riemannian L-BFGS with
// projection as the vector transport). It is written here rather than
// taken from gonum/optimize because the augmented Lagrangians need the
// function and its gradient from one pass, the memory kept across outer
// iterations, a stop check inside the line search, and, on long vectors,
// both cores: the passes over the vectors are memory-bound, and from
// splitFrom entries on they run on two halves at once.
package lbfgs

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/sdrmap/sdrmap/internal/halves"
)

// Func is a function on a manifold embedded in R^n.
type Func interface {
	// Eval returns f(x) and sets grad to its gradient projected onto the
	// tangent space at x.
	Eval(x, grad []float64) float64
	// Tangent projects d onto the tangent space at x.
	Tangent(x, d []float64)
	// Retract maps a point x + t d back onto the manifold.
	Retract(x []float64)
}

// Memory is the inverse-Hessian approximation: a ring of the last pairs.
type Memory struct {
	s, y  [][]float64 // ring of the last pairs, oldest first from head
	rho   []float64
	yy    []float64    // y.y of each pair
	alpha [2][]float64 // the two-loop's coefficients, per half of the vectors (Direction)
	head  int
	n     int       // pairs stored
	Pre   []float64 // the diagonal of P, nil for P = I
}

// NewMemory returns an empty memory of mem pairs.
func NewMemory(mem int) *Memory {
	return &Memory{s: make([][]float64, mem), y: make([][]float64, mem), rho: make([]float64, mem), yy: make([]float64, mem),
		alpha: [2][]float64{make([]float64, mem), make([]float64, mem)}}
}

// Reset forgets every pair.
func (l *Memory) Reset() { l.head, l.n = 0, 0 }

// Len is the number of pairs stored.
func (l *Memory) Len() int { return l.n }

// Push stores the pair s = x+ - x, y = g+ - g when it has positive
// curvature, keeping the slices themselves, and returns two slices of the
// same length for the next pair: the evicted ones, s and y if the pair was
// rejected, or new ones.
func (l *Memory) Push(s, y []float64) (sNext, yNext []float64) {
	sy, ss, yy := dot(s, y), dot(s, s), dot(y, y)
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

// Direction sets d = -H g by the two-loop recursion, H_0 = gamma P with
// gamma = s.y / y.P y of the newest pair (1 without pairs), on two halves
// from splitFrom entries on (split).
func (l *Memory) Direction(d, g []float64) {
	if len(d) < splitFrom {
		l.direction(0, len(d), d, g, l.alpha[0], func(x float64) float64 { return x })
		return
	}
	l.split(d, g)
}

// split is Direction on two halves at once: each runs the recursion on its
// entries, and the two exchange their partial dot products.
func (l *Memory) split(d, g []float64) {
	to := [2]chan float64{make(chan float64, 1), make(chan float64, 1)}
	halves.Run(func(h int) {
		lo, hi := halves.Range(len(d), h)
		l.direction(lo, hi, d, g, l.alpha[h], func(x float64) float64 {
			to[1-h] <- x
			return x + <-to[h]
		})
	})
}

// direction runs the two-loop recursion on entries [lo, hi) of the
// vectors; sum turns a dot product over them into the whole one.
func (l *Memory) direction(lo, hi int, d, g, alpha []float64, sum func(float64) float64) {
	d, g = d[lo:hi], g[lo:hi]
	copy(d, g)
	mem := len(l.s)
	for j := l.n - 1; j >= 0; j-- {
		k := (l.head + j) % mem
		alpha[k] = l.rho[k] * sum(floats.Dot(l.s[k][lo:hi], d))
		floats.AddScaled(d, -alpha[k], l.y[k][lo:hi])
	}
	if l.Pre != nil {
		floats.Mul(d, l.Pre[lo:hi])
	}
	if l.n > 0 {
		k := (l.head + l.n - 1) % mem
		ypy := l.yy[k]
		if l.Pre != nil {
			ypy = 0
			for i, y := range l.y[k][lo:hi] {
				ypy += y * l.Pre[lo+i] * y
			}
			ypy = sum(ypy)
		}
		floats.Scale(1/(l.rho[k]*ypy), d)
	}
	for j := 0; j < l.n; j++ {
		k := (l.head + j) % mem
		b := l.rho[k] * sum(floats.Dot(l.y[k][lo:hi], d))
		floats.AddScaled(d, alpha[k]-b, l.s[k][lo:hi])
	}
	floats.Scale(-1, d)
}

// Minimizer is the state of a minimization: the point, its value and
// projected gradient, the memory, and scratch of the same length.
type Minimizer struct {
	X, G       []float64 // the point and its projected gradient
	F          float64   // f(X)
	Mem        *Memory
	xt, gt, d  []float64
	sbuf, ybuf []float64
}

// New evaluates f at x (which the Minimizer keeps) and returns the state
// with an empty memory of mem pairs.
func New(f Func, x []float64, mem int) *Minimizer {
	n := len(x)
	m := &Minimizer{X: x, G: make([]float64, n), Mem: NewMemory(mem), xt: make([]float64, n), gt: make([]float64, n),
		d: make([]float64, n), sbuf: make([]float64, n), ybuf: make([]float64, n)}
	m.F = f.Eval(m.X, m.G)
	return m
}

// GradNorm is the 2-norm of the projected gradient.
func (m *Minimizer) GradNorm() float64 { return math.Sqrt(dot(m.G, m.G)) }

// Minimize runs L-BFGS with an Armijo backtracking line search until the
// projected gradient's 2-norm is at most tol, after iters iterations, or
// when stop returns true, and returns the iterations done. The last
// evaluation of f is always at m.X (X and the scratch swap slices).
func (m *Minimizer) Minimize(f Func, tol float64, iters int, stop func() bool) int {
	const c1 = 1e-4
	k := 0
	for ; k < iters && m.GradNorm() > tol && !stop(); k++ {
		m.Mem.Direction(m.d, m.G)
		f.Tangent(m.X, m.d)
		gd := dot(m.G, m.d)
		t := 1.0
		if !(gd < 0) || m.Mem.n == 0 {
			m.Mem.Reset()
			copy(m.d, m.G)
			if m.Mem.Pre != nil {
				floats.Mul(m.d, m.Mem.Pre)
				f.Tangent(m.X, m.d)
			}
			floats.Scale(-1, m.d)
			gd = dot(m.G, m.d)
			t = min(1, 1/floats.Norm(m.d, 2))
		}
		var ft float64
		for ls := 0; ; ls++ {
			halves.Each(len(m.X), splitFrom, func(lo, hi int) { floats.AddScaledTo(m.xt[lo:hi], m.X[lo:hi], t, m.d[lo:hi]) })
			f.Retract(m.xt)
			ft = f.Eval(m.xt, m.gt)
			if ft <= m.F+c1*t*gd {
				break
			}
			if ls == 30 {
				// No descent along d: forget the curvature pairs and
				// evaluate at X again (the invariant above).
				m.Mem.Reset()
				m.F = f.Eval(m.X, m.G)
				return k
			}
			// Minimizer of the quadratic through f, gd and ft, in [0.1t, 0.5t].
			q := -gd * t * t / (2 * (ft - m.F - gd*t))
			if math.IsNaN(q) {
				q = t / 2
			}
			t = max(0.1*t, min(0.5*t, q))
		}
		halves.Each(len(m.X), splitFrom, func(lo, hi int) {
			floats.SubTo(m.sbuf[lo:hi], m.xt[lo:hi], m.X[lo:hi])
			floats.SubTo(m.ybuf[lo:hi], m.gt[lo:hi], m.G[lo:hi])
		})
		m.sbuf, m.ybuf = m.Mem.Push(m.sbuf, m.ybuf)
		m.X, m.xt = m.xt, m.X
		m.G, m.gt = m.gt, m.G
		m.F = ft
	}
	return k
}
