// Package eigen computes a few extreme eigenpairs of an implicit symmetric
// operator A on R^n, applied only as Y = A X on blocks of vectors.
//
// The method is LOBPCG (Knyazev 2001) without preconditioner, in the
// orthonormal-basis form of Hetmaniuk and Lehoucq (2006). The iterate X
// holds m = k+Guard Ritz vectors. Each iteration performs a Rayleigh–Ritz
// step on span[X, P, W], where W holds the residuals A x_i - θ_i x_i of the
// wanted pairs not yet converged and P their previous search directions:
// the projected matrix H = Qᵀ A Q on an orthonormal basis Q of that span
// is diagonalized densely (LAPACK dsyev), and X becomes the m leading Ritz
// vectors. Converged pairs stay in the basis but get no new direction (soft
// locking); the Guard vectors never do, they are retained Ritz vectors that
// widen the gap governing convergence at no operator cost. A·X and A·P are
// updated as the same linear combinations as X and P, so an iteration costs
// one operator application per unconverged wanted pair.
//
// The basis is orthonormalized by SVQB (eigendecomposition of the Gram
// matrix), repeated when the first pass was ill conditioned, dropping
// numerically dependent directions; rank-deficient starts and operators are
// therefore harmless. For n <= 3(k+Guard) the operator is applied to the
// identity and the dense problem is solved instead.
//
// A warm start (the Vectors of the previous call on a nearby operator) seeds
// X. Convergence is linear, so the iterations saved grow with
// log(||ΔA|| / ||A||): a relative change of 1e-3 to 1e-4 halves the work
// at Tol = 1e-8, a change of 1e-6 saves 4x (see TestWarmStart).
//
// Memory is 2 n (k+Guard+2k) floats for Q and A·Q plus the result.
//
// Settings.Lanczos selects, for Smallest, thick-restart Lanczos instead:
// one vector per operator application and a Krylov basis of up to 64
// vectors, better where the wanted eigenvalues are clustered, as in the
// SDR's dual slacks on large grids (see smallestLanczos).
//
// Projector is the dense counterpart for SDPAD's projection onto the PSD
// cone: all eigenvalues of the tridiagonal form, eigenvectors of one sign
// only, by inverse iteration (a port of LAPACK's dstein; see Project).
package eigen

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Operator is a symmetric linear operator on R^n applied to blocks of vectors.
type Operator interface {
	Dim() int
	// Apply sets dst = A x, where x and dst are Dim() x k (k >= 1); dst
	// does not alias x. Either may be a view with a stride larger than k.
	Apply(dst, x *mat.Dense)
}

// SymOp adapts a dense symmetric matrix to Operator.
type SymOp struct{ *mat.SymDense }

// Dim returns the order of the matrix.
func (a SymOp) Dim() int { return a.SymmetricDim() }

// Apply sets dst = A x.
func (a SymOp) Apply(dst, x *mat.Dense) { dst.Mul(a.SymDense, x) }

// Func adapts a function computing dst = A x to Operator.
type Func struct {
	N int
	F func(dst, x *mat.Dense)
}

// Dim returns N.
func (f Func) Dim() int { return f.N }

// Apply calls F.
func (f Func) Apply(dst, x *mat.Dense) { f.F(dst, x) }

// Settings tunes the solver; the zero value gives the defaults.
type Settings struct {
	// Tol is the relative residual tolerance: a pair (θ, u) has converged
	// when ||A u - θ u|| <= Tol * max(|θ|max, tiny), with |θ|max the largest
	// Ritz value magnitude seen (an estimate of ||A||). Default 1e-8.
	Tol float64
	// MaxIter caps the number of Rayleigh–Ritz iterations. Default 1000.
	MaxIter int
	// Guard is the number of Ritz vectors kept beyond k; they speed up
	// convergence when λ_k is close to λ_{k+1}, cost no operator
	// applications after the first iteration, and add dense work. The
	// block size is k+Guard. 0 selects the default max(4, k/4), a negative
	// value none.
	Guard int
	// Seed seeds the random start vectors; equal seeds give equal results.
	Seed uint64
	// NoVerify skips the final explicit application of A to the k returned
	// vectors (k matrix-vector products). Residuals then come from the
	// implicitly updated A·X, which is accurate to accumulated rounding
	// only. Leave it false when the residuals certify a bound.
	NoVerify bool
	// Lanczos selects thick-restart Lanczos (one vector per operator
	// application) instead of LOBPCG for Smallest; see smallestLanczos
	// for what MaxIter and Iterations then count.
	Lanczos bool
	// Stop, when not nil, is called after every iteration; true ends the
	// solve with ErrNotConverged and the pairs so far, as MaxIter does but
	// without the verification (residuals from the implicit update, as with
	// NoVerify): how a deadline reaches the eigensolver.
	Stop func() bool
}

// Result holds computed eigenpairs.
type Result struct {
	// Values are the k Ritz values, descending for Largest, ascending for
	// Smallest.
	Values []float64
	// Vectors (n x k) has orthonormal columns, the Ritz vectors.
	Vectors *mat.Dense
	// Residuals[i] = ||A u_i - θ_i u_i||_2 / ||u_i||_2, from an explicit
	// application of A to the returned vectors unless Settings.NoVerify is
	// set. By the Krylov–Weinstein bound, A has an eigenvalue in
	// [θ_i - Residuals[i], θ_i + Residuals[i]].
	Residuals []float64
	// MatVecs counts operator applications per vector: a block apply of
	// j columns counts j.
	MatVecs int
	// Iterations is the number of Rayleigh–Ritz steps (0 for the dense
	// fallback).
	Iterations int
	// Converged is the number of leading pairs that met Tol.
	Converged int
}

var (
	// ErrNotConverged is returned, wrapped and together with the best
	// Result found, when fewer than k pairs met Tol within MaxIter
	// iterations.
	ErrNotConverged = errors.New("eigen: not converged")
	// ErrBreakdown is returned, wrapped, when the operator produced a NaN
	// or an infinity, or a dense eigensolve failed.
	ErrBreakdown = errors.New("eigen: breakdown")
)

// tiny is the floor of the convergence scale, so that the zero operator
// converges.
const tiny = 0x1p-1022

// Largest returns the k algebraically largest eigenpairs of op. warm
// (n x w, may be nil, any w, may be rank deficient or zero) seeds the search
// space: its first 3k+Guard columns are used and random vectors complete it
// to k+Guard directions.
func Largest(op Operator, k int, warm *mat.Dense, s Settings) (Result, error) {
	return solve(op, k, warm, s, 1)
}

// Smallest returns the k algebraically smallest eigenpairs of op; see
// Largest for warm.
//
// For a certified bound on λ_min(A): the Ritz value θ_0 = Values[0] is a
// Rayleigh quotient, so θ_0 >= λ_min up to rounding (an upper bound), and an
// eigenvalue of A lies within Residuals[0] of θ_0; see LowerBound.
func Smallest(op Operator, k int, warm *mat.Dense, s Settings) (Result, error) {
	if s.Lanczos {
		return smallestLanczos(op, k, warm, s)
	}
	r, err := solve(op, k, warm, s, -1)
	for i := range r.Values {
		r.Values[i] = -r.Values[i]
	}
	return r, err
}

// LowerBound returns Values[0] - Residuals[0] for a Result of Smallest.
//
// It is a rigorous lower bound (up to rounding in the residual, computed
// explicitly unless Settings.NoVerify was set) on the eigenvalue of A nearest
// to Values[0]. It bounds λ_min(A) only if the search space did not miss an
// eigenvalue below that one; a random start makes this very unlikely but not
// impossible (an eigenvector exactly orthogonal to the start is never found).
// It returns -Inf for an empty result.
func LowerBound(res Result) float64 {
	if len(res.Values) == 0 || len(res.Residuals) == 0 {
		return math.Inf(-1)
	}
	return res.Values[0] - res.Residuals[0]
}

func (s Settings) withDefaults(k int) Settings {
	if s.Tol <= 0 {
		s.Tol = 1e-8
	}
	if s.MaxIter <= 0 {
		s.MaxIter = 1000
	}
	if s.Guard < 0 {
		s.Guard = 0
	} else if s.Guard == 0 {
		s.Guard = max(4, k/4)
	}
	return s
}

// checkArgs reports an error unless 1 <= k <= n and warm, when not nil,
// has n rows.
func checkArgs(op Operator, k int, warm *mat.Dense) error {
	n := op.Dim()
	if n < 1 || k < 1 || k > n {
		return fmt.Errorf("eigen: need 1 <= k <= n, got k=%d, n=%d", k, n)
	}
	if warm != nil {
		if r, _ := warm.Dims(); r != n {
			return fmt.Errorf("eigen: warm start has %d rows, want %d", r, n)
		}
	}
	return nil
}

// solve computes the k largest eigenpairs of sign·A.
func solve(op Operator, k int, warm *mat.Dense, s Settings, sign float64) (Result, error) {
	if err := checkArgs(op, k, warm); err != nil {
		return Result{}, err
	}
	n := op.Dim()
	s = s.withDefaults(k)
	if n <= 3*(k+s.Guard) {
		return denseSolve(op, k, s.Tol, sign)
	}
	return lobpcg(op, k, warm, s, sign)
}

// denseSolve applies op to the identity and solves the dense eigenproblem.
func denseSolve(op Operator, k int, tol, sign float64) (Result, error) {
	n := op.Dim()
	id := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		id.Set(i, i, 1)
	}
	a := mat.NewDense(n, n, nil)
	op.Apply(a, id)
	a.Scale(sign, a)
	if !finite(a.RawMatrix()) {
		return Result{MatVecs: n}, fmt.Errorf("%w: operator returned a non-finite value", ErrBreakdown)
	}
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, true) {
		return Result{MatVecs: n}, fmt.Errorf("%w: dense eigensolve failed", ErrBreakdown)
	}
	vals := es.RawValues()
	q := mat.NewDense(n, n, nil)
	es.VectorsTo(q)
	res := Result{
		Values:    make([]float64, k),
		Vectors:   mat.NewDense(n, k, nil),
		Residuals: make([]float64, k),
		MatVecs:   n,
	}
	for i := 0; i < k; i++ {
		res.Values[i] = vals[n-1-i]
		res.Vectors.SetCol(i, mat.Col(nil, n-1-i, q))
	}
	var au mat.Dense
	au.Mul(a, res.Vectors)
	scale := max(math.Abs(vals[0]), math.Abs(vals[n-1]), tiny)
	res.Converged = k
	for i := 0; i < k; i++ {
		var r2 float64
		for j := 0; j < n; j++ {
			d := au.At(j, i) - res.Values[i]*res.Vectors.At(j, i)
			r2 += d * d
		}
		res.Residuals[i] = math.Sqrt(r2)
		if res.Residuals[i] > tol*scale && res.Converged == k {
			res.Converged = i
		}
	}
	if res.Converged < k {
		return res, fmt.Errorf("%w: dense fallback reached residual %.3g, tolerance %.3g", ErrNotConverged, res.Residuals[res.Converged], tol*scale)
	}
	return res, nil
}
