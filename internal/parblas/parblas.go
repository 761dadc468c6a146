// Package parblas is gonum's pure-Go BLAS with the level-2/3 routines
// that the dense solvers spend their time in made faster, on
// internal/kernel's assembly kernels where the CPU has them (AVX2 and
// FMA) and split over goroutines: Dgemm and Dsyrk, and the tridiagonal
// reduction's Dsymv and Dsyr2k (lower triangle; gonum's Dsytrd). Without
// the kernels, Dgemm is gonum's, Dsymv runs on gonum's assembly Dot and
// Axpy, and only Dsyrk's upper triangle of A^T A (the dense projection's
// B B^T) is split, over gonum's Dsyrk and Dgemm. The sdrmap command
// installs it with blas64.Use at start, and sdrmap-batch with Parts 1
// (its workers already take the cores); the library never does (a
// process-wide choice belongs to the program).
//
// The triangular routines split the triangle into p row bands of equal
// area (lower: band k holds rows [n sqrt(k/p), n sqrt((k+1)/p)); upper:
// mirrored), p = GOMAXPROCS up to maxParts, one goroutine each. Dsymv
// takes a row at a time (kernel.DotAxpy: the row's dot with x and its
// axpy into the result in one read); Dsyr2k updates the blocks left of
// the diagonal by Dgemm and diagonal blocks of blockRows rows by one
// kernel product each (gonum's loops without the kernels). All are faster
// than gonum's loops from one core on (BenchmarkDsytrd, BenchmarkDsyrk;
// internal/kernel's BenchmarkDgemm).
package parblas

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/floats"

	"github.com/sdrmap/sdrmap/internal/kernel"
)

// Implementation is gonum's BLAS with Dsymv, Dsyr2k and Dsyrk on bands
// (order at least minOrder).
type Implementation struct {
	gonum.Implementation
	// Parts is the number of goroutines a call takes: 0 for GOMAXPROCS
	// (up to maxParts); 1 keeps the calls serial, as in a process that
	// already runs one solve per core.
	Parts int
}

// minOrder is the smallest order the bands take: below it gonum's own
// routines serve (with two goroutines they cost more than they saved).
const minOrder = 128

// maxParts bounds the number of bands.
const maxParts = 8

// parts returns the number of bands for order n, one per goroutine: 0
// when gonum's own routine serves (small orders).
func (im Implementation) parts(n int) int {
	switch {
	case n < minOrder:
		return 0
	case im.Parts > 0:
		return min(im.Parts, maxParts)
	}
	return min(runtime.GOMAXPROCS(0), maxParts)
}

// blockRows is the height of the diagonal blocks Dsyr2k leaves to gonum's
// loops; the rest of each band goes to Dgemm.
const blockRows = 64

// bands returns the p + 1 row boundaries of p bands of equal area of the
// lower triangle of order n.
func bands(n, p int) []int {
	b := make([]int, p+1)
	for k := 1; k < p; k++ {
		b[k] = int(float64(n) * math.Sqrt(float64(k)/float64(p)))
	}
	b[p] = n
	return b
}

// Dsymv computes y = alpha A x + beta y for symmetric A (blas.Dsymv); the
// lower triangle is split into row bands, each accumulating A x into its
// own vector.
func (im Implementation) Dsymv(ul blas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	p := im.parts(n)
	if ul != blas.Lower || p == 0 || incX <= 0 || incY <= 0 || alpha == 0 {
		im.Implementation.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	if lda < max(1, n) || len(a) < lda*(n-1)+n || len(x) < (n-1)*incX+1 || len(y) < (n-1)*incY+1 {
		panic("parblas: Dsymv: short slice")
	}
	xs := make([]float64, n)
	for i := range n {
		xs[i] = x[i*incX]
	}
	acc := make([][]float64, p)
	b := bands(n, p)
	fused := kernel.Available()
	var wg sync.WaitGroup
	for k := range p {
		acc[k] = make([]float64, b[k+1])
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := acc[k]
			for i := b[k]; i < b[k+1]; i++ {
				row := a[i*lda : i*lda+i]
				if fused {
					t[i] += kernel.DotAxpy(xs[i], row, xs, t) + a[i*lda+i]*xs[i]
					continue
				}
				t[i] += floats.Dot(row, xs[:i]) + a[i*lda+i]*xs[i]
				floats.AddScaled(t[:i], xs[i], row)
			}
		}()
	}
	wg.Wait()
	for i := range n {
		s := 0.0
		for k := range p {
			if i < len(acc[k]) {
				s += acc[k][i]
			}
		}
		if beta == 0 {
			y[i*incY] = alpha * s
		} else {
			y[i*incY] = beta*y[i*incY] + alpha*s
		}
	}
}

// Dgemm computes C = alpha op(A) op(B) + beta C (blas.Dgemm): with
// internal/kernel's kernel, C's rows (or columns, if C is wider than tall)
// are split into bands, one goroutine each, from minGemmWork multiply-adds
// on; without it, gonum's call (which has its own goroutines).
func (im Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !kernel.Available() || m*n*k < minKernelWork {
		im.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	p := 1
	if m*n*k >= minGemmWork {
		p = im.parts(max(m, n, minOrder))
	}
	if p <= 1 {
		kernel.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	var wg sync.WaitGroup
	split := func(size, q int, f func(i0, i1 int)) {
		step := max(q, (size/p+q-1)/q*q)
		for i0 := 0; i0 < size; i0 += step {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(i0, min(i0+step, size))
			}()
		}
		wg.Wait()
	}
	if m >= n {
		split(m, 4, func(i0, i1 int) {
			as := a[i0:]
			if tA == blas.NoTrans {
				as = a[i0*lda:]
			}
			kernel.Dgemm(tA, tB, i1-i0, n, k, alpha, as, lda, b, ldb, beta, c[i0*ldc:], ldc)
		})
		return
	}
	split(n, 12, func(j0, j1 int) {
		bs := b[j0:]
		if tB != blas.NoTrans {
			bs = b[j0*ldb:]
		}
		kernel.Dgemm(tA, tB, m, j1-j0, k, alpha, a, lda, bs, ldb, beta, c[j0:], ldc)
	})
}

// minKernelWork and minGemmWork are the products (m n k) from which
// Dgemm takes the kernel and from which it splits over goroutines.
const (
	minKernelWork = 16 * 16 * 16
	minGemmWork   = 64 * 64 * 64
)

// dgemm1 is Dgemm on the calling goroutine: the kernel, or gonum's call.
func (im Implementation) dgemm1(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if kernel.Available() && m*n*k >= minKernelWork {
		kernel.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	im.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dsyr2k computes C = alpha (A B^T + B A^T) + beta C on the lower triangle
// (blas.Dsyr2k, NoTrans): band k updates diagonal blocks of blockRows
// rows by syr2kBlock (gonum's Dsyr2k without the kernels) and the rest,
// left of them, by two Dgemm.
func (im Implementation) Dsyr2k(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	p := im.parts(n)
	if ul != blas.Lower || t != blas.NoTrans || p == 0 || k == 0 {
		im.Implementation.Dsyr2k(ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if lda < max(1, k) || ldb < max(1, k) || ldc < max(1, n) || len(a) < lda*(n-1)+k || len(b) < ldb*(n-1)+k || len(c) < ldc*(n-1)+n {
		panic("parblas: Dsyr2k: short slice")
	}
	g := im.Implementation
	// A^T and B^T (k x n), so that the blocks left of the diagonal are
	// products NoTrans x NoTrans, whose kernel is an axpy along the row,
	// instead of dots of length k, which BenchmarkDsytrd found faster.
	at, bt := transpose(n, k, a, lda), transpose(n, k, b, ldb)
	rb := bands(n, p)
	var wg sync.WaitGroup
	for part := range p {
		r0, r1 := rb[part], rb[part+1]
		if r1 == r0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var diag []float64
			if kernel.Available() {
				diag = make([]float64, blockRows*blockRows)
			}
			for s0 := r0; s0 < r1; s0 += blockRows {
				s1 := min(s0+blockRows, r1)
				if diag != nil {
					syr2kBlock(s1-s0, k, alpha, a[s0*lda:], lda, b[s0*ldb:], ldb, beta, c[s0*ldc+s0:], ldc, diag)
				} else {
					g.Dsyr2k(ul, t, s1-s0, k, alpha, a[s0*lda:], lda, b[s0*ldb:], ldb, beta, c[s0*ldc+s0:], ldc)
				}
				if s0 > 0 {
					im.dgemm1(blas.NoTrans, blas.NoTrans, s1-s0, s0, k, alpha, a[s0*lda:], lda, bt, n, beta, c[s0*ldc:], ldc)
					im.dgemm1(blas.NoTrans, blas.NoTrans, s1-s0, s0, k, alpha, b[s0*ldb:], ldb, at, n, 1, c[s0*ldc:], ldc)
				}
			}
		}()
	}
	wg.Wait()
}

// syr2kBlock is Dsyr2k (lower, NoTrans) of order h on the kernel: T =
// alpha A B^T into scratch (h x h), then C = beta C + T + T^T on the lower
// triangle.
func syr2kBlock(h, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, scratch []float64) {
	kernel.Dgemm(blas.NoTrans, blas.Trans, h, h, k, alpha, a, lda, b, ldb, 0, scratch, h)
	for i := range h {
		row := c[i*ldc : i*ldc+i+1]
		for j := range row {
			v := scratch[i*h+j] + scratch[j*h+i]
			if beta == 0 {
				row[j] = v
			} else {
				row[j] = beta*row[j] + v
			}
		}
	}
}

// Dsyrk computes C = alpha op(A) op(A)^T + beta C on the triangle ul
// (blas.Dsyrk). With internal/kernel's kernel, any triangle and transpose:
// the triangle is split into p bands of equal area, one goroutine each,
// and each band into blocks of syrkRows rows whose diagonal block and the
// block beside it (right of it on the upper triangle, left on the lower)
// are kernel products. Without the kernel, the upper triangle of A^T A
// (the dense projection's B B^T from its k x n rows) is split the same
// way over gonum's Dsyrk and Dgemm, and the rest is gonum's call.
func (im Implementation) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	p := im.parts(n)
	if kernel.Available() && n > 0 && k > 0 && alpha != 0 {
		im.syrkKernel(ul, t, n, k, alpha, a, lda, beta, c, ldc, max(p, 1))
		return
	}
	if ul != blas.Upper || t != blas.Trans || p < 2 || k == 0 { // one band is gonum's call
		im.Implementation.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	if lda < max(1, n) || ldc < max(1, n) || len(a) < lda*(k-1)+n || len(c) < ldc*(n-1)+n {
		panic("parblas: Dsyrk: short slice")
	}
	g := im.Implementation
	lb := bands(n, p) // the upper triangle's bands of equal area, mirrored
	var wg sync.WaitGroup
	for part := range p {
		r0, r1 := n-lb[p-part], n-lb[p-part-1]
		if r1 == r0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.Dsyrk(ul, t, r1-r0, k, alpha, a[r0:], lda, beta, c[r0*ldc+r0:], ldc)
			if r1 < n {
				g.Dgemm(blas.Trans, blas.NoTrans, r1-r0, n-r1, k, alpha, a[r0:], lda, a[r1:], lda, beta, c[r0*ldc+r1:], ldc)
			}
		}()
	}
	wg.Wait()
}

// syrkRows is the height of the blocks of Dsyrk's bands on the kernel.
const syrkRows = 96

// syrkKernel is Dsyrk on internal/kernel's kernel in p bands.
func (im Implementation) syrkKernel(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int, p int) {
	ar, ac := n, k // A's stored shape
	if t != blas.NoTrans {
		ar, ac = k, n
	}
	if lda < max(1, ac) || ldc < max(1, n) || len(a) < lda*(ar-1)+ac || len(c) < ldc*(n-1)+n {
		panic("parblas: Dsyrk: short slice")
	}
	// rows returns op(A)'s rows [i0, i1) as a Dgemm operand and its transpose.
	rows := func(i0 int) (tr, trT blas.Transpose, s []float64) {
		if t == blas.NoTrans {
			return blas.NoTrans, blas.Trans, a[i0*lda:]
		}
		return blas.Trans, blas.NoTrans, a[i0:]
	}
	rb := bands(n, p) // lower triangle; the upper one's are mirrored
	var wg sync.WaitGroup
	for part := range p {
		r0, r1 := rb[part], rb[part+1]
		if ul == blas.Upper {
			r0, r1 = n-rb[p-part], n-rb[p-part-1]
		}
		if r1 == r0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			diag := make([]float64, syrkRows*syrkRows)
			for i0 := r0; i0 < r1; i0 += syrkRows {
				i1 := min(i0+syrkRows, r1)
				h := i1 - i0
				ta, tbT, ai := rows(i0)
				kernel.Dgemm(ta, tbT, h, h, k, alpha, ai, lda, ai, lda, 0, diag, h)
				for i := range h {
					lo, hi := 0, i+1
					if ul == blas.Upper {
						lo, hi = i, h
					}
					row := c[(i0+i)*ldc+i0:]
					for j := lo; j < hi; j++ {
						if beta == 0 {
							row[j] = diag[i*h+j]
						} else {
							row[j] = beta*row[j] + diag[i*h+j]
						}
					}
				}
				j0, j1 := 0, i0 // the block beside the diagonal one
				if ul == blas.Upper {
					j0, j1 = i1, n
				}
				if j1 > j0 {
					_, tbT, bj := rows(j0)
					kernel.Dgemm(ta, tbT, h, j1-j0, k, alpha, ai, lda, bj, lda, beta, c[i0*ldc+j0:], ldc)
				}
			}
		}()
	}
	wg.Wait()
}

// transpose returns the k x n transpose of the n x k row-major matrix a.
func transpose(n, k int, a []float64, lda int) []float64 {
	t := make([]float64, k*n)
	for i := range n {
		for l, v := range a[i*lda : i*lda+k] {
			t[l*n+i] = v
		}
	}
	return t
}
