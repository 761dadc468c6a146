//go:build openblas && cgo

package fastblas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// randSlice returns n normal numbers.
func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	return s
}

// near reports whether got matches want entrywise to 1e-12 relative to the
// largest entry of want (every entry compared: also those outside the
// matrix, which neither may touch).
func near(got, want []float64) error {
	big := 1.0
	for _, w := range want {
		big = max(big, math.Abs(w))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*big {
			return fmt.Errorf("entry %d: got %v, want %v", i, got[i], want[i])
		}
	}
	return nil
}

// impls are the implementations under test: one call, and bands.
var impls = []struct {
	name string
	im   blas.Float64
}{{"serial", New(1)}, {"bands", New(3)}}

var trans = []blas.Transpose{blas.NoTrans, blas.Trans}

// TestDgemm compares Dgemm with gonum's on every transpose, on shapes that
// take one call and shapes split by rows and by columns, with padded
// strides.
func TestDgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ref gonum.Implementation
	for _, sh := range [][3]int{{1, 1, 1}, {5, 7, 3}, {40, 30, 20}, {300, 120, 70}, {90, 400, 50}, {257, 3, 1500}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range trans {
			for _, tB := range trans {
				ra, ca := dims(tA, m, k)
				rb, cb := dims(tB, k, n)
				lda, ldb, ldc := ca+2, cb+1, n+3
				a, b := randSlice(rng, ra*lda), randSlice(rng, rb*ldb)
				c0 := randSlice(rng, m*ldc)
				want := append([]float64(nil), c0...)
				ref.Dgemm(tA, tB, m, n, k, 0.7, a, lda, b, ldb, -0.3, want, ldc)
				for _, im := range impls {
					got := append([]float64(nil), c0...)
					im.im.Dgemm(tA, tB, m, n, k, 0.7, a, lda, b, ldb, -0.3, got, ldc)
					if err := near(got, want); err != nil {
						t.Errorf("%s %dx%dx%d %c%c: %v", im.name, m, n, k, tA, tB, err)
					}
				}
			}
		}
	}
}

// TestDsyrkDsyr2k compares Dsyrk and Dsyr2k with gonum's on both triangles
// and transposes; entries of the other triangle must stay untouched.
func TestDsyrkDsyr2k(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ref gonum.Implementation
	for _, sh := range [][2]int{{1, 1}, {6, 4}, {333, 60}, {200, 1}} {
		n, k := sh[0], sh[1]
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, tr := range trans {
				ra, ca := dims(tr, n, k)
				lda, ldb, ldc := ca+1, ca+3, n+2
				a, b := randSlice(rng, ra*lda), randSlice(rng, ra*ldb)
				c0 := randSlice(rng, n*ldc)
				want1, want2 := append([]float64(nil), c0...), append([]float64(nil), c0...)
				ref.Dsyrk(ul, tr, n, k, 1.3, a, lda, 0.5, want1, ldc)
				ref.Dsyr2k(ul, tr, n, k, -0.4, a, lda, b, ldb, 2, want2, ldc)
				for _, im := range impls {
					got := append([]float64(nil), c0...)
					im.im.Dsyrk(ul, tr, n, k, 1.3, a, lda, 0.5, got, ldc)
					if err := near(got, want1); err != nil {
						t.Errorf("Dsyrk %s n=%d k=%d %c %c: %v", im.name, n, k, ul, tr, err)
					}
					got = append(got[:0], c0...)
					im.im.Dsyr2k(ul, tr, n, k, -0.4, a, lda, b, ldb, 2, got, ldc)
					if err := near(got, want2); err != nil {
						t.Errorf("Dsyr2k %s n=%d k=%d %c %c: %v", im.name, n, k, ul, tr, err)
					}
				}
			}
		}
	}
}

// TestDsymmDsymvDgemv compares the symmetric and the matrix-vector
// products with gonum's, Dsymm with one column (Lanczos's products) and
// with many.
func TestDsymmDsymvDgemv(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ref gonum.Implementation
	for _, sh := range [][2]int{{1, 1}, {7, 1}, {1, 9}, {150, 1}, {1, 150}, {140, 70}, {60, 250}, {200, 150}} {
		m, n := sh[0], sh[1]
		for _, s := range []blas.Side{blas.Left, blas.Right} {
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				na := m
				if s == blas.Right {
					na = n
				}
				lda, ldb, ldc := na+1, n+2, n+1
				a, b, c0 := randSlice(rng, na*lda), randSlice(rng, m*ldb), randSlice(rng, m*ldc)
				want := append([]float64(nil), c0...)
				ref.Dsymm(s, ul, m, n, 0.9, a, lda, b, ldb, 0.2, want, ldc)
				for _, im := range impls {
					got := append([]float64(nil), c0...)
					im.im.Dsymm(s, ul, m, n, 0.9, a, lda, b, ldb, 0.2, got, ldc)
					if err := near(got, want); err != nil {
						t.Errorf("Dsymm %s %dx%d %c %c: %v", im.name, m, n, s, ul, err)
					}
				}
			}
		}
		lda := n + 3
		a := randSlice(rng, m*lda)
		for _, tr := range trans {
			lx, ly := n, m
			if tr == blas.Trans {
				lx, ly = m, n
			}
			x, y0 := randSlice(rng, 2*lx), randSlice(rng, 3*ly)
			want := append([]float64(nil), y0...)
			ref.Dgemv(tr, m, n, 1.1, a, lda, x, 2, -0.6, want, 3)
			got := append([]float64(nil), y0...)
			New(0).Dgemv(tr, m, n, 1.1, a, lda, x, 2, -0.6, got, 3)
			if err := near(got, want); err != nil {
				t.Errorf("Dgemv %dx%d %c: %v", m, n, tr, err)
			}
		}
		as := randSlice(rng, m*(m+2))
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			x, y0 := randSlice(rng, 2*m), randSlice(rng, m)
			want := append([]float64(nil), y0...)
			ref.Dsymv(ul, m, 1.1, as, m+2, x, 2, 0.4, want, 1)
			got := append([]float64(nil), y0...)
			New(0).Dsymv(ul, m, 1.1, as, m+2, x, 2, 0.4, got, 1)
			if err := near(got, want); err != nil {
				t.Errorf("Dsymv %d %c: %v", m, ul, err)
			}
		}
	}
}

// TestBadArgs checks that arguments gonum refuses still panic (with
// gonum's message) instead of reaching cblas.
func TestBadArgs(t *testing.T) {
	im := New(0)
	for name, f := range map[string]func(){
		"Dgemm short C": func() {
			im.Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, make([]float64, 4), 2, make([]float64, 4), 2, 0, make([]float64, 3), 2)
		},
		"Dsyrk bad lda": func() { im.Dsyrk(blas.Upper, blas.NoTrans, 3, 2, 1, make([]float64, 6), 1, 0, make([]float64, 9), 3) },
		"Dsymm bad side": func() {
			im.Dsymm('X', blas.Upper, 2, 2, 1, make([]float64, 4), 2, make([]float64, 4), 2, 0, make([]float64, 4), 2)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestConcurrent runs banded calls from several goroutines at once (CI
// runs it under the race detector).
func TestConcurrent(t *testing.T) {
	var ref gonum.Implementation
	rng := rand.New(rand.NewPCG(7, 8))
	n, k := 260, 90
	a := randSlice(rng, n*k)
	want := make([]float64, n*n)
	ref.Dsyrk(blas.Upper, blas.NoTrans, n, k, 1, a, k, 0, want, n)
	im := New(2)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]float64, n*n)
			for range 5 {
				im.Dsyrk(blas.Upper, blas.NoTrans, n, k, 1, a, k, 0, got, n)
			}
			errs[g] = near(got, want)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
