//go:build openblas && cgo

package fastblas

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

import (
	"math"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"

	"github.com/sdrmap/sdrmap/internal/parblas"
)

// init keeps OpenBLAS on one thread unless OPENBLAS_NUM_THREADS says
// otherwise, as package eigen does: the bands give the parallelism, and an
// idle OpenBLAS thread spins while Go works. With more threads asked for,
// every call is one OpenBLAS call on its threads (bands of threaded calls
// would run threads times bands at once).
func init() {
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
	threaded = C.openblas_get_num_threads() > 1
}

// threaded is whether OpenBLAS runs its calls on more than one thread.
var threaded bool

// openBLAS is parblas with Dgemm, Dsyrk, Dsyr2k, Dsymm, Dsymv and Dgemv
// from OpenBLAS. Calls of at least minWork multiply-adds are split into
// row (or column) bands, one goroutine and one OpenBLAS call each; calls
// that gonum would refuse, that need no arithmetic or fewer than minCall
// multiply-adds (where a call's fixed cost would dominate) go to parblas
// (its checks and panics).
type openBLAS struct{ parblas.Implementation }

func newImpl(p parblas.Implementation) blas.Float64 { return openBLAS{p} }

// minCall is the fewest multiply-adds of a call that goes to OpenBLAS,
// minWork the number from which a call is split into bands, minBand the
// fewest rows of a band and maxBand the most bands.
const (
	minCall = 1 << 12
	minWork = 1 << 20
	minBand = 32
	maxBand = 8
)

// bandsFor returns the number of bands for a call of work multiply-adds
// along a dimension of d rows.
func (o openBLAS) bandsFor(work float64, d int) int {
	if threaded {
		return 1
	}
	p := o.Parts
	if p == 0 {
		p = runtime.GOMAXPROCS(0)
	}
	p = min(p, maxBand, d/minBand)
	if work < minWork || p < 2 {
		return 1
	}
	return p
}

// run calls f on p bands of [0, d) of equal length at once.
func run(p, d int, f func(r0, r1 int)) {
	var wg sync.WaitGroup
	for b := 1; b < p; b++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(d*b/p, d*(b+1)/p)
		}()
	}
	f(0, d/p)
	wg.Wait()
}

// runTriangle calls f on p row bands of a triangle of order n of equal
// area at once (lower: band b is rows [n sqrt(b/p), n sqrt((b+1)/p));
// upper: mirrored).
func runTriangle(p, n int, ul blas.Uplo, f func(r0, r1 int)) {
	lb := make([]int, p+1)
	for b := 1; b < p; b++ {
		lb[b] = int(float64(n) * math.Sqrt(float64(b)/float64(p)))
	}
	lb[p] = n
	if ul == blas.Upper {
		for b := range lb {
			lb[b] = n - lb[b]
		}
		for i, j := 0, p; i < j; i, j = i+1, j-1 {
			lb[i], lb[j] = lb[j], lb[i]
		}
	}
	run(p, p, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			if lb[b+1] > lb[b] {
				f(lb[b], lb[b+1])
			}
		}
	})
}

// rows returns the data of op(A)'s rows from r on (A stored with stride
// lda, op by t).
func rows(t blas.Transpose, a []float64, lda, r int) []float64 {
	if t == blas.NoTrans {
		return a[r*lda:]
	}
	return a[r:]
}

// flip returns the other transpose.
func flip(t blas.Transpose) blas.Transpose {
	if t == blas.NoTrans {
		return blas.Trans
	}
	return blas.NoTrans
}

func ptr(s []float64) *C.double { return (*C.double)(unsafe.Pointer(unsafe.SliceData(s))) }

func ctrans(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == blas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

func cuplo(ul blas.Uplo) C.enum_CBLAS_UPLO {
	if ul == blas.Upper {
		return C.CblasUpper
	}
	return C.CblasLower
}

func cside(s blas.Side) C.enum_CBLAS_SIDE {
	if s == blas.Left {
		return C.CblasLeft
	}
	return C.CblasRight
}

// fits reports whether every value is a valid C int.
func fits(v ...int) bool {
	for _, x := range v {
		if x < 0 || x > math.MaxInt32 {
			return false
		}
	}
	return true
}

func validTrans(t blas.Transpose) bool {
	return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
}

func validUplo(ul blas.Uplo) bool { return ul == blas.Upper || ul == blas.Lower }

// dims returns the rows and columns of A stored for op(A) of r x c.
func dims(t blas.Transpose, r, c int) (int, int) {
	if t == blas.NoTrans {
		return r, c
	}
	return c, r
}

// holds reports whether a holds a rows x cols matrix of stride ld.
func holds(a []float64, rows, cols, ld int) bool {
	return ld >= max(1, cols) && len(a) >= ld*(rows-1)+cols
}

func gemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	C.cblas_dgemm(C.CblasRowMajor, ctrans(tA), ctrans(tB), C.int(m), C.int(n), C.int(k), C.double(alpha),
		ptr(a), C.int(lda), ptr(b), C.int(ldb), C.double(beta), ptr(c), C.int(ldc))
}

// Dgemm computes C = alpha op(A) op(B) + beta C (blas.Dgemm) by cblas_dgemm,
// on bands of C's rows (or of its columns when it is wider than tall).
func (o openBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	ra, ca := dims(tA, m, k)
	rb, cb := dims(tB, k, n)
	if !validTrans(tA) || !validTrans(tB) || m == 0 || n == 0 || k == 0 || alpha == 0 || !fits(m, n, k, lda, ldb, ldc) ||
		!holds(a, ra, ca, lda) || !holds(b, rb, cb, ldb) || !holds(c, m, n, ldc) || float64(m)*float64(n)*float64(k) < minCall {
		o.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	work := float64(m) * float64(n) * float64(k)
	if m >= n {
		run(o.bandsFor(work, m), m, func(r0, r1 int) {
			gemm(tA, tB, r1-r0, n, k, alpha, rows(tA, a, lda, r0), lda, b, ldb, beta, c[r0*ldc:], ldc)
		})
		return
	}
	run(o.bandsFor(work, n), n, func(c0, c1 int) {
		gemm(tA, tB, m, c1-c0, k, alpha, a, lda, rows(flip(tB), b, ldb, c0), ldb, beta, c[c0:], ldc)
	})
}

// Dsyrk computes C = alpha op(A) op(A)^T + beta C on one triangle
// (blas.Dsyrk): per band of equal area, cblas_dsyrk on its diagonal block
// and cblas_dgemm on the block beside it.
func (o openBLAS) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	ra, ca := dims(t, n, k)
	if !validUplo(ul) || !validTrans(t) || n == 0 || k == 0 || alpha == 0 || !fits(n, k, lda, ldc) ||
		!holds(a, ra, ca, lda) || !holds(c, n, n, ldc) || float64(n)*float64(n)*float64(k) < 2*minCall {
		o.Implementation.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	runTriangle(o.bandsFor(float64(n)*float64(n)*float64(k)/2, n), n, ul, func(r0, r1 int) {
		ar := rows(t, a, lda, r0)
		C.cblas_dsyrk(C.CblasRowMajor, cuplo(ul), ctrans(t), C.int(r1-r0), C.int(k), C.double(alpha),
			ptr(ar), C.int(lda), C.double(beta), ptr(c[r0*ldc+r0:]), C.int(ldc))
		switch {
		case ul == blas.Upper && r1 < n:
			gemm(t, flip(t), r1-r0, n-r1, k, alpha, ar, lda, rows(t, a, lda, r1), lda, beta, c[r0*ldc+r1:], ldc)
		case ul == blas.Lower && r0 > 0:
			gemm(t, flip(t), r1-r0, r0, k, alpha, ar, lda, a, lda, beta, c[r0*ldc:], ldc)
		}
	})
}

// Dsyr2k computes C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C on
// one triangle (blas.Dsyr2k): per band of equal area, cblas_dsyr2k on its
// diagonal block and two cblas_dgemm on the block beside it.
func (o openBLAS) Dsyr2k(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	ra, ca := dims(t, n, k)
	if !validUplo(ul) || !validTrans(t) || n == 0 || k == 0 || alpha == 0 || !fits(n, k, lda, ldb, ldc) ||
		!holds(a, ra, ca, lda) || !holds(b, ra, ca, ldb) || !holds(c, n, n, ldc) || float64(n)*float64(n)*float64(k) < minCall {
		o.Implementation.Dsyr2k(ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	runTriangle(o.bandsFor(float64(n)*float64(n)*float64(k), n), n, ul, func(r0, r1 int) {
		ar, br := rows(t, a, lda, r0), rows(t, b, ldb, r0)
		C.cblas_dsyr2k(C.CblasRowMajor, cuplo(ul), ctrans(t), C.int(r1-r0), C.int(k), C.double(alpha),
			ptr(ar), C.int(lda), ptr(br), C.int(ldb), C.double(beta), ptr(c[r0*ldc+r0:]), C.int(ldc))
		s0, s1 := 0, r0 // the rows of the block beside the diagonal one
		if ul == blas.Upper {
			s0, s1 = r1, n
		}
		if s1 > s0 {
			cs := c[r0*ldc+s0:]
			gemm(t, flip(t), r1-r0, s1-s0, k, alpha, ar, lda, rows(t, b, ldb, s0), ldb, beta, cs, ldc)
			gemm(t, flip(t), r1-r0, s1-s0, k, alpha, br, ldb, rows(t, a, lda, s0), lda, 1, cs, ldc)
		}
	})
}

// Dsymm computes C = alpha A B + beta C (Left) or alpha B A + beta C
// (Right) for symmetric A (blas.Dsymm): by cblas_dsymv when B is one
// column (Left) or one row (Right), as in Lanczos's products; otherwise
// by cblas_dsymm on bands of the columns (Left) or rows (Right) of C.
func (o openBLAS) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	na := m
	if s == blas.Right {
		na = n
	}
	if (s != blas.Left && s != blas.Right) || !validUplo(ul) || m == 0 || n == 0 || alpha == 0 || !fits(m, n, lda, ldb, ldc) ||
		!holds(a, na, na, lda) || !holds(b, m, n, ldb) || !holds(c, m, n, ldc) || float64(m)*float64(n)*float64(na) < minCall {
		o.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	switch {
	case s == blas.Left && n == 1:
		symv(ul, m, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	case s == blas.Right && m == 1:
		symv(ul, n, alpha, a, lda, b, 1, beta, c, 1)
		return
	}
	work := float64(m) * float64(n) * float64(na)
	if s == blas.Left {
		run(o.bandsFor(work, n), n, func(c0, c1 int) {
			C.cblas_dsymm(C.CblasRowMajor, C.CblasLeft, cuplo(ul), C.int(m), C.int(c1-c0), C.double(alpha),
				ptr(a), C.int(lda), ptr(b[c0:]), C.int(ldb), C.double(beta), ptr(c[c0:]), C.int(ldc))
		})
		return
	}
	run(o.bandsFor(work, m), m, func(r0, r1 int) {
		C.cblas_dsymm(C.CblasRowMajor, cside(s), cuplo(ul), C.int(r1-r0), C.int(n), C.double(alpha),
			ptr(a), C.int(lda), ptr(b[r0*ldb:]), C.int(ldb), C.double(beta), ptr(c[r0*ldc:]), C.int(ldc))
	})
}

func symv(ul blas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	C.cblas_dsymv(C.CblasRowMajor, cuplo(ul), C.int(n), C.double(alpha), ptr(a), C.int(lda),
		ptr(x), C.int(incX), C.double(beta), ptr(y), C.int(incY))
}

// Dsymv computes y = alpha A x + beta y for symmetric A (blas.Dsymv) by
// one cblas_dsymv call (positive increments).
func (o openBLAS) Dsymv(ul blas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if !validUplo(ul) || n == 0 || alpha == 0 || incX <= 0 || incY <= 0 || !fits(n, lda, incX, incY) ||
		!holds(a, n, n, lda) || len(x) < (n-1)*incX+1 || len(y) < (n-1)*incY+1 || float64(n)*float64(n) < minCall {
		o.Implementation.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	symv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
}

// Dgemv computes y = alpha op(A) x + beta y (blas.Dgemv) by one
// cblas_dgemv call (positive increments).
func (o openBLAS) Dgemv(t blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	lx, ly := n, m
	if t != blas.NoTrans {
		lx, ly = m, n
	}
	if !validTrans(t) || m == 0 || n == 0 || alpha == 0 || incX <= 0 || incY <= 0 || !fits(m, n, lda, incX, incY) ||
		!holds(a, m, n, lda) || len(x) < (lx-1)*incX+1 || len(y) < (ly-1)*incY+1 || float64(m)*float64(n) < minCall {
		o.Implementation.Dgemv(t, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	C.cblas_dgemv(C.CblasRowMajor, ctrans(t), C.int(m), C.int(n), C.double(alpha), ptr(a), C.int(lda),
		ptr(x), C.int(incX), C.double(beta), ptr(y), C.int(incY))
}
