// Package parblas is gonum's pure-Go BLAS with the two level-2/3 routines
// of the tridiagonal reduction (gonum's Dsytrd, the core of the dense
// SDPAD's projection) split over goroutines: Dsymv and Dsyr2k on the
// lower triangle. gonum's Dgemm is parallel already; everything else is
// gonum's own. The sdrmap command installs it with blas64.Use at start;
// the library never does (a process-wide choice belongs to the program),
// nor does sdrmap-batch, whose workers already take the cores.
//
// Both split the lower triangle into p row bands of equal area (band k
// holds rows [n sqrt(k/p), n sqrt((k+1)/p))), p = GOMAXPROCS up to
// maxParts. At N = 541 (deer_0034's face order) Dsytrd takes 0.59 of the
// time on the 2-core VM of BENCHMARKS.md (BenchmarkDsytrd).
package parblas

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/floats"
)

// Implementation is gonum's BLAS with parallel Dsymv and Dsyr2k (lower
// triangle, order at least minOrder).
type Implementation struct{ gonum.Implementation }

// minOrder is the smallest order split over goroutines: below it the
// goroutines cost more than they save.
const minOrder = 128

// maxParts bounds the number of bands.
const maxParts = 8

// parts returns the number of bands for order n: 1 when the call stays
// serial.
func parts(n int) int {
	if n < minOrder {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), maxParts)
}

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
	p := parts(n)
	if ul != blas.Lower || p == 1 || incX <= 0 || incY <= 0 || alpha == 0 {
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
	var wg sync.WaitGroup
	for k := range p {
		acc[k] = make([]float64, b[k+1])
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := acc[k]
			for i := b[k]; i < b[k+1]; i++ {
				row := a[i*lda : i*lda+i]
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

// Dsyr2k computes C = alpha (A B^T + B A^T) + beta C on the lower triangle
// (blas.Dsyr2k, NoTrans): band k updates its diagonal block by gonum's
// Dsyr2k and the block to its left by two of gonum's Dgemm.
func (im Implementation) Dsyr2k(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	p := parts(n)
	if ul != blas.Lower || t != blas.NoTrans || p == 1 || k == 0 {
		im.Implementation.Dsyr2k(ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if lda < max(1, k) || ldb < max(1, k) || ldc < max(1, n) || len(a) < lda*(n-1)+k || len(b) < ldb*(n-1)+k || len(c) < ldc*(n-1)+n {
		panic("parblas: Dsyr2k: short slice")
	}
	g := im.Implementation
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
			g.Dsyr2k(ul, t, r1-r0, k, alpha, a[r0*lda:], lda, b[r0*ldb:], ldb, beta, c[r0*ldc+r0:], ldc)
			if r0 > 0 {
				g.Dgemm(blas.NoTrans, blas.Trans, r1-r0, r0, k, alpha, a[r0*lda:], lda, b, ldb, beta, c[r0*ldc:], ldc)
				g.Dgemm(blas.NoTrans, blas.Trans, r1-r0, r0, k, alpha, b[r0*ldb:], ldb, a, lda, 1, c[r0*ldc:], ldc)
			}
		}()
	}
	wg.Wait()
}
