package eigen

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

var impl gonum.Implementation

// syevd, when not nil, is LAPACK's dsyevd (divide and conquer) from a
// system library: all eigenvalues, ascending, into w, and with vectors the
// eigenvectors into a's columns (column-major, lower triangle read; a
// symmetric n x n row-major matrix is its own column-major form). The build
// tag openblas sets it (lapack_openblas.go); work and iwork have at least
// 1 + 6n + 2n^2 and 3 + 5n entries.
var syevd func(vectors bool, n int, a, w, work []float64, iwork []int32) bool

// tridiagEig and ormtr, when not nil, are dsyevd's steps apart, so that
// only some eigenvectors are back-transformed (the tag openblas sets them):
// tridiagEig reduces a to tridiagonal form (LAPACK's dsytrd, reflectors
// left in a and tau) and finds all its eigenvalues, ascending, into w and
// its eigenvectors into z's rows (dstedc); ormtr turns the k rows of z into
// eigenvectors of the original matrix (dormtr). e and tau have n - 1
// entries, work and iwork as for syevd; n > 1.
var (
	tridiagEig func(n int, a, w, e, tau, z, work []float64, iwork []int32) bool
	ormtr      func(n, k int, a, tau, z, work []float64) bool
)

// backend names what Projector computes with (Backend).
var backend = "gonum, Dsytrd and inverse iteration"

// Backend names what Projector computes with: gonum, or OpenBLAS's LAPACK
// in a build with the tag openblas.
func Backend() string { return backend }

// LAPACK reports whether Projector computes with LAPACK's dsyevd (a build
// with the tag openblas), whose full dense eigendecomposition is much
// faster than gonum's (BENCHMARKS.md, section 1).
func LAPACK() bool { return syevd != nil }

// syrk is blas64.Syrk, or OpenBLAS's with the tag openblas.
var syrk = blas64.Syrk

// Projector computes dense eigenvalues and the projection onto the PSD cone
// of symmetric matrices of one order n; it holds the work space, so that
// repeated calls do not allocate. Not safe for concurrent use.
type Projector struct {
	n         int
	a         []float64 // n x n row-major: the matrix, then reflectors or eigenvectors
	d, e, tau []float64 // tridiagonal form and reflector scalars (Dsytrd, lower)
	wd, we    []float64 // copies of d, e for the eigenvalues
	split     []int     // starts of the unreduced blocks, then n
	w         []float64 // selected eigenvalues
	z         []float64 // k x n: the selected eigenvectors, one per row
	x         []float64 // vector of inverse iteration
	b         []float64 // n x k scaled eigenvectors for the rank-k update (full path)
	work      []float64
	lu        tridiagLU
	lwork     []float64 // syevd's work space
	liwork    []int32
	rand      rng
	full      bool // test only: always take the full decomposition
	lastPath  int  // test only: 1 selective, 2 full, 3 LAPACK
}

// NewProjector returns a Projector for matrices of order n.
func NewProjector(n int) *Projector {
	e := &Projector{
		n: n, a: make([]float64, n*n), d: make([]float64, n), e: make([]float64, max(n-1, 0)), tau: make([]float64, max(n-1, 0)),
		wd: make([]float64, n), we: make([]float64, max(n-1, 0)), split: make([]int, 0, n+1),
		w: make([]float64, n), z: make([]float64, n*n), x: make([]float64, n), b: make([]float64, n*n),
		lu:   tridiagLU{a: make([]float64, n), b: make([]float64, n), c: make([]float64, n), d: make([]float64, n), in: make([]int, n)},
		rand: 0x9e3779b97f4a7c15,
	}
	q := make([]float64, 1)
	lw := 3 * n
	impl.Dsyev(lapack.EVCompute, blas.Lower, n, e.a, max(1, n), e.w, q, -1)
	lw = max(lw, int(q[0]))
	if n > 0 {
		impl.Dsytrd(blas.Lower, n, e.a, n, e.d, e.e, e.tau, q, -1)
		lw = max(lw, int(q[0]))
		impl.Dorgtr(blas.Lower, n, e.a, n, e.tau, q, -1)
		lw = max(lw, int(q[0]))
	}
	if n > 1 {
		impl.Dormqr(blas.Right, blas.Trans, n, n-1, n-1, e.a[n:], n, e.tau, e.z[1:], n, q, -1)
		lw = max(lw, int(q[0]))
	}
	e.work = make([]float64, max(lw, 2*n, 1))
	if syevd != nil && n > 0 {
		// syevd's and dstedc's work, and room for dsytrd's blocks (64n).
		e.lwork, e.liwork = make([]float64, 1+64*n+2*n*n), make([]int32, 3+5*n)
	}
	return e
}

// load copies v into a, both triangles.
func (e *Projector) load(v *mat.SymDense) {
	raw, n := v.RawSymmetric(), e.n
	for i := range n {
		copy(e.a[i*n+i:(i+1)*n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
		for j := range i {
			e.a[i*n+j] = e.a[j*n+i]
		}
	}
}

// Values returns the eigenvalues of v, ascending (a view of e's storage).
func (e *Projector) Values(v *mat.SymDense) ([]float64, bool) {
	e.load(v)
	if e.lwork != nil && !e.full {
		return e.w, syevd(false, e.n, e.a, e.w, e.lwork, e.liwork)
	}
	ok := impl.Dsyev(lapack.EVNone, blas.Lower, e.n, e.a, max(1, e.n), e.w, e.work, len(e.work))
	return e.w, ok
}

// Smallest returns the k smallest eigenvalues of v, ascending (a view of
// e's storage), with their unit eigenvectors in the columns of vecs
// (n x k), only k eigenvectors back-transformed: with the tag openblas
// from LAPACK's dsytrd, dstedc and dormtr, else as Project finds its
// eigenvectors (Dsytrd, Dsterf, inverse iteration, Dormqr), and from
// gonum's Dsyev, every eigenpair, only if inverse iteration fails.
func (e *Projector) Smallest(v *mat.SymDense, k int, vecs *mat.Dense) ([]float64, bool) {
	n := e.n
	e.load(v)
	if e.lwork != nil && !e.full && n > 1 {
		if !tridiagEig(n, e.a, e.w, e.e, e.tau, e.z, e.lwork, e.liwork) || k > 0 && !ormtr(n, k, e.a, e.tau, e.z, e.lwork) {
			return nil, false
		}
		for c := range k {
			vecs.SetCol(c, e.z[c*n:(c+1)*n])
		}
		return e.w[:k], true
	}
	if e.lwork != nil && !e.full {
		if !syevd(true, n, e.a, e.w, e.lwork, e.liwork) {
			return nil, false
		}
		for c := range k {
			vecs.SetCol(c, e.a[c*n:(c+1)*n]) // dsyevd: eigenvector c is row c
		}
		return e.w[:k], true
	}
	if !e.full && n > 1 && k > 0 {
		impl.Dsytrd(blas.Lower, n, e.a, n, e.d, e.e, e.tau, e.work, len(e.work))
		if _, _, ok := e.tridiagValues(); !ok {
			return nil, false
		}
		if e.selectSmallest(k) {
			e.lastPath = 1
			e.backTransform(k)
			for c := range k {
				vecs.SetCol(c, e.z[c*n:(c+1)*n])
			}
			return e.w[:k], true
		}
		e.load(v)
	}
	if !impl.Dsyev(lapack.EVCompute, blas.Lower, n, e.a, max(1, n), e.w, e.work, len(e.work)) {
		return nil, false
	}
	e.lastPath = 2
	for i := range n {
		for c := range k {
			vecs.Set(i, c, e.a[i*n+c]) // Dsyev: eigenvector c is column c
		}
	}
	return e.w[:k], true
}

// Project sets dst = Proj_PSD(v) = sum over positive eigenvalues of lambda
// u u^T (the step of Algorithm 1, docs/relaxation.md, SDPAD) and returns the number of positive
// eigenvalues. dst may be v. It reduces v to tridiagonal form, finds all
// eigenvalues (Dsterf), and computes eigenvectors for the sign with fewer
// eigenvalues only (k <= n/2 of them), by inverse iteration (dstein); only if
// that fails does it complete the full decomposition (as Dsyev), whose
// implicit QL sweeps make it several times slower at deer's order and rank
// (BenchmarkProject601). The result is Proj(v) = B B^T from the positive
// side, or v + B B^T from the negative side, B = eigenvectors scaled by
// sqrt|lambda|. Built with the tag openblas it takes LAPACK's dsytrd and
// dstedc instead (projectLAPACK).
func (e *Projector) Project(dst, v *mat.SymDense) (int, bool) {
	n := e.n
	if n == 0 {
		return 0, true
	}
	e.load(v)
	if e.lwork != nil && !e.full {
		return e.projectLAPACK(dst, v)
	}
	impl.Dsytrd(blas.Lower, n, e.a, n, e.d, e.e, e.tau, e.work, len(e.work))
	pos, neg, ok := e.tridiagValues()
	if !ok {
		return 0, false
	}
	positive := pos <= neg
	k := min(pos, neg)
	if !e.full && e.selectSign(positive, k) {
		e.lastPath = 1
		e.backTransform(k)
		for c, l := range e.w[:k] {
			floats.Scale(math.Sqrt(math.Abs(l)), e.z[c*n:(c+1)*n])
		}
		e.update(dst, v, blas64.General{Rows: k, Cols: n, Stride: n, Data: e.z[:k*n]}, blas.Trans, positive)
		return pos, true
	}
	e.lastPath = 2
	impl.Dorgtr(blas.Lower, n, e.a, n, e.tau, e.work, len(e.work))
	if !impl.Dsteqr(lapack.EVOrig, n, e.d, e.e, e.a, n, e.work) {
		return 0, false
	}
	lo := 0 // columns lo..lo+k-1 of a: the negative eigenvalues, or the positive ones
	for lo < n && e.d[lo] <= 0 {
		lo++
	}
	pos = n - lo
	positive = pos <= lo
	if positive {
		k = pos
	} else {
		k, lo = lo, 0
		for k > 0 && e.d[k-1] == 0 {
			k--
		}
	}
	for i := range n {
		out := e.b[i*k : (i+1)*k]
		for c, l := range e.d[lo : lo+k] {
			out[c] = e.a[i*n+lo+c] * math.Sqrt(math.Abs(l))
		}
	}
	e.update(dst, v, blas64.General{Rows: n, Cols: k, Stride: k, Data: e.b[:n*k]}, blas.NoTrans, positive)
	return pos, true
}

// projectLAPACK is Project by LAPACK (the tag openblas): the eigenvalues
// and the tridiagonal form's eigenvectors by dsytrd and dstedc, and only
// the eigenvectors of the sign with fewer eigenvalues back-transformed
// (tridiagEig, ormtr; 0.82 of dsyevd's time at N = 601 with 220 positive
// eigenvalues, BenchmarkProject601). They are rows of z, ascending; B^T is
// their block, each row scaled by sqrt|lambda|. Order 1 takes dsyevd.
func (e *Projector) projectLAPACK(dst, v *mat.SymDense) (int, bool) {
	n := e.n
	e.lastPath = 3
	z := e.z
	if n == 1 {
		if !syevd(true, n, e.a, e.w, e.lwork, e.liwork) {
			return 0, false
		}
		z = e.a
	} else if !tridiagEig(n, e.a, e.w, e.e, e.tau, e.z, e.lwork, e.liwork) {
		return 0, false
	}
	neg := 0
	for neg < n && e.w[neg] < 0 {
		neg++
	}
	lo := neg
	for lo < n && e.w[lo] <= 0 {
		lo++
	}
	pos := n - lo
	positive := pos <= neg
	if !positive {
		lo = 0
	}
	k := min(pos, neg)
	if n > 1 && k > 0 && !ormtr(n, k, e.a, e.tau, e.z[lo*n:], e.lwork) {
		return 0, false
	}
	for c := lo; c < lo+k; c++ {
		floats.Scale(math.Sqrt(math.Abs(e.w[c])), z[c*n:(c+1)*n])
	}
	e.update(dst, v, blas64.General{Rows: k, Cols: n, Stride: n, Data: z[lo*n : (lo+k)*n]}, blas.Trans, positive)
	return pos, true
}

// tridiagValues splits the tridiagonal form into unreduced blocks
// (off-diagonal entries below eps (|d_j| + |d_j+1|) are dropped) and sorts
// the eigenvalues of each block into wd with Dsterf. It returns the numbers
// of positive and negative eigenvalues.
func (e *Projector) tridiagValues() (pos, neg int, ok bool) {
	n := e.n
	copy(e.wd, e.d)
	copy(e.we, e.e)
	e.split = append(e.split[:0], 0)
	for j := 0; j < n-1; j++ {
		if math.Abs(e.e[j]) <= dlamchP*(math.Abs(e.d[j])+math.Abs(e.d[j+1])) {
			e.split = append(e.split, j+1)
		}
	}
	e.split = append(e.split, n)
	for s := 0; s+1 < len(e.split); s++ {
		b0, b1 := e.split[s], e.split[s+1]
		if b1-b0 > 1 && !impl.Dsterf(b1-b0, e.wd[b0:b1], e.we[b0:b1-1]) {
			return 0, 0, false
		}
	}
	for _, l := range e.wd {
		if l > 0 {
			pos++
		} else if l < 0 {
			neg++
		}
	}
	return pos, neg, true
}

// selectVectors computes the eigenvectors of the tridiagonal form for the
// eigenvalues that pick chooses in each unreduced block (the range lo:hi
// of its eigenvalues, ascending) into the rows of z and the eigenvalues
// into w, block by block. It reports false if inverse iteration failed or
// the blocks gave other than k.
func (e *Projector) selectVectors(k int, pick func(vals []float64) (lo, hi int)) bool {
	n := e.n
	z := e.z[:n*k]
	clear(z)
	col := 0
	for s := 0; s+1 < len(e.split); s++ {
		b0, b1 := e.split[s], e.split[s+1]
		vals := e.wd[b0:b1]
		lo, hi := pick(vals)
		if lo == hi {
			continue
		}
		if col+hi-lo > k {
			return false
		}
		copy(e.w[col:], vals[lo:hi])
		if !e.steinBlock(e.d[b0:b1], e.e[b0:max(b0, b1-1)], vals[lo:hi], z, n, b0, col) {
			return false
		}
		col += hi - lo
	}
	return col == k
}

// selectSign is selectVectors for the k positive (or negative) eigenvalues.
func (e *Projector) selectSign(positive bool, k int) bool {
	return e.selectVectors(k, func(vals []float64) (lo, hi int) {
		if positive {
			hi = len(vals)
			for lo < hi && vals[lo] <= 0 {
				lo++
			}
			return lo, hi
		}
		for hi < len(vals) && vals[hi] < 0 {
			hi++
		}
		return 0, hi
	})
}

// selectSmallest is selectVectors for the k smallest eigenvalues, then
// sorted across the blocks: w ascending, z's rows with them.
func (e *Projector) selectSmallest(k int) bool {
	n := e.n
	sorted := e.work[:n] // Dsytrd is done with it
	copy(sorted, e.wd)
	slices.Sort(sorted)
	t := sorted[k-1]
	ties := k // eigenvalues equal to t still to take, once those below it are
	for _, l := range sorted[:k] {
		if l < t {
			ties--
		}
	}
	if !e.selectVectors(k, func(vals []float64) (int, int) {
		hi := 0
		for hi < len(vals) && vals[hi] < t {
			hi++
		}
		for hi < len(vals) && vals[hi] == t && ties > 0 {
			hi, ties = hi+1, ties-1
		}
		return 0, hi
	}) {
		return false
	}
	order := make([]int, k)
	for c := range order {
		order[c] = c
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(e.w[a], e.w[b]) })
	for c, r := range order {
		e.x[c] = e.w[r]
		copy(e.b[c*n:(c+1)*n], e.z[r*n:(r+1)*n])
	}
	copy(e.w, e.x[:k])
	copy(e.z, e.b[:n*k])
	return true
}

// backTransform replaces the tridiagonal eigenvectors (the k rows of z) by
// those of the original matrix, z_c <- Q z_c, that is z <- z Q^T, with Q =
// H_0 ... H_{n-2} from Dsytrd (lower): Q = diag(1, Q') and Q' the product
// of the reflectors stored below the subdiagonal, as Dormtr applies it
// (blocked, through Dormqr).
func (e *Projector) backTransform(k int) {
	n := e.n
	if n < 2 || k == 0 {
		return
	}
	impl.Dormqr(blas.Right, blas.Trans, k, n-1, n-1, e.a[n:], n, e.tau, e.z[1:], n, e.work, len(e.work))
}

// update sets dst = B B^T (positive side) or dst = v + B B^T (negative
// side) for the scaled eigenvectors B, given as b (n x k, t NoTrans) or
// as b^T (k x n, t Trans).
func (e *Projector) update(dst, v *mat.SymDense, b blas64.General, t blas.Transpose, positive bool) {
	n := e.n
	beta := 0.0
	if !positive {
		beta = 1
		if dst != v {
			dst.CopySym(v)
		}
	}
	raw := dst.RawSymmetric()
	if b.Rows == 0 || b.Cols == 0 {
		if positive {
			for i := range n {
				clear(raw.Data[i*raw.Stride+i : i*raw.Stride+n])
			}
		}
		return
	}
	syrk(t, 1, b, beta, raw)
}
