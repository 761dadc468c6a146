package factor

import (
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/internal/lbfgs"
)

// lagrangian adapts the ALM to lbfgs.Func on points of rows x cols
// flattened row by row.
type lagrangian struct {
	a          *alm
	rows, cols int
}

func (l lagrangian) dense(x []float64) *mat.Dense { return mat.NewDense(l.rows, l.cols, x) }
func (l lagrangian) Eval(x, g []float64) float64  { return l.a.eval(l.dense(x), l.dense(g)) }
func (l lagrangian) Tangent(x, d []float64)       { l.a.tangent(l.dense(x), l.dense(d)) }
func (l lagrangian) Retract(x []float64)          { l.a.retract(l.dense(x)) }

// inner is the state of the inner minimization (internal/lbfgs) and the
// preconditioner's diagonal (alm.precond), nil until needed.
type inner struct {
	*lbfgs.Minimizer
	fn  lagrangian
	pre *mat.Dense
}

// newInner evaluates a at v, which the state keeps (v must be contiguous).
func newInner(a *alm, v *mat.Dense, mem int) *inner {
	r, c := v.Dims()
	fn := lagrangian{a: a, rows: r, cols: c}
	return &inner{Minimizer: lbfgs.New(fn, flat(v), pairs(mem, r*c)), fn: fn}
}

// longPoint is the length of the iteration's point from which Memory 0
// keeps 5 L-BFGS pairs instead of 10: from there the two-loop recursion
// streams its pairs from memory, and fewer pairs make an iteration cheaper
// there without a clear loss end to end (bench/results/2026-11-27/NOTES.md,
// "Five L-BFGS pairs on long points").
const longPoint = 1 << 17

// pairs returns the L-BFGS memory for a point of n entries: mem, or when
// mem is 0 the default by length (longPoint).
func pairs(mem, n int) int {
	switch {
	case mem > 0:
		return mem
	case n >= longPoint:
		return 5
	default:
		return 10
	}
}

// v is the current point.
func (in *inner) v() *mat.Dense { return in.fn.dense(in.X) }

func flat(m *mat.Dense) []float64 { return m.RawMatrix().Data }

// minimize runs the L-BFGS (lbfgs.Minimizer.Minimize), preconditioned
// at the start point on multi-label models.
func (in *inner) minimize(a *alm, tol float64, iters int, stop func() bool) int {
	if a.multi {
		if in.pre == nil {
			in.pre = mat.NewDense(in.fn.rows, in.fn.cols, nil)
		}
		a.precond(in.v(), in.pre)
		in.Mem.Pre = flat(in.pre)
	}
	return in.Minimize(in.fn, tol, iters, stop)
}
