package parblas

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

// maxDiff returns the largest |a_i - b_i| relative to 1 + |b_i|.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i])/(1+math.Abs(b[i])))
	}
	return d
}

// TestDsymv compares Dsymv with gonum's (the oracle) on random symmetric
// matrices of orders below and above minOrder, strided vectors, several
// alpha and beta, with 1 to 5 goroutines.
func TestDsymv(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(1, 2))
	for _, procs := range []int{1, 2, 3, 5} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{1, 7, minOrder - 1, minOrder, 301} {
			for _, c := range []struct{ lda, incX, incY int }{{n, 1, 1}, {n + 3, 2, 3}, {n + 1, n + 1, 1}} {
				for _, ab := range [][2]float64{{1, 0}, {-0.5, 1}, {2, 0.25}} {
					a := randSlice(r, c.lda*(n-1)+n)
					x := randSlice(r, (n-1)*c.incX+1)
					y := randSlice(r, (n-1)*c.incY+1)
					want := append([]float64(nil), y...)
					gonum.Implementation{}.Dsymv(blas.Lower, n, ab[0], a, c.lda, x, c.incX, ab[1], want, c.incY)
					Implementation{}.Dsymv(blas.Lower, n, ab[0], a, c.lda, x, c.incX, ab[1], y, c.incY)
					if d := maxDiff(y, want); d > 1e-13 {
						t.Fatalf("procs %d, n %d, %+v, alpha %v beta %v: differs by %g", procs, n, c, ab[0], ab[1], d)
					}
				}
			}
		}
	}
}

// TestDsyr2k compares Dsyr2k with gonum's on random operands: the lower
// triangle agrees, the strict upper one is untouched.
func TestDsyr2k(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(3, 4))
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{5, minOrder, 257} {
			for _, k := range []int{1, 32, 45} {
				for _, beta := range []float64{0, 1, 0.5} {
					lda, ldb, ldc := k+2, k, n+5
					a, b := randSlice(r, lda*(n-1)+k), randSlice(r, ldb*(n-1)+k)
					c := randSlice(r, ldc*(n-1)+n)
					want := append([]float64(nil), c...)
					gonum.Implementation{}.Dsyr2k(blas.Lower, blas.NoTrans, n, k, -1, a, lda, b, ldb, beta, want, ldc)
					Implementation{}.Dsyr2k(blas.Lower, blas.NoTrans, n, k, -1, a, lda, b, ldb, beta, c, ldc)
					if d := maxDiff(c, want); d > 1e-13 {
						t.Fatalf("procs %d, n %d, k %d, beta %v: differs by %g", procs, n, k, beta, d)
					}
				}
			}
		}
	}
}

// TestDsyrk compares Dsyrk with gonum's on random operands, both
// triangles and transposes: the triangle agrees, the other is untouched.
func TestDsyrk(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(9, 10))
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{5, minOrder, 257} {
			for _, k := range []int{1, 40, 130} {
				for _, beta := range []float64{0, 1, 0.5} {
					for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
						for _, tr := range []blas.Transpose{blas.Trans, blas.NoTrans} {
							ar, ac := k, n
							if tr == blas.NoTrans {
								ar, ac = n, k
							}
							lda, ldc := ac+3, n+5
							a, c := randSlice(r, lda*(ar-1)+ac), randSlice(r, ldc*(n-1)+n)
							want := append([]float64(nil), c...)
							gonum.Implementation{}.Dsyrk(ul, tr, n, k, 0.7, a, lda, beta, want, ldc)
							Implementation{}.Dsyrk(ul, tr, n, k, 0.7, a, lda, beta, c, ldc)
							if d := maxDiff(c, want); d > 1e-13 {
								t.Fatalf("procs %d, n %d, k %d, beta %v, %c %c: differs by %g", procs, n, k, beta, ul, tr, d)
							}
						}
					}
				}
			}
		}
	}
}

// TestDgemm compares Dgemm with gonum's on shapes below and above the
// kernel's and the split's thresholds, tall and wide (also narrower than
// the goroutines), every transpose, strided operands, with 1 to 3
// goroutines.
func TestDgemm(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(13, 14))
	tr := []blas.Transpose{blas.NoTrans, blas.Trans}
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		for _, sh := range [][3]int{{3, 5, 2}, {17, 16, 16}, {301, 70, 65}, {70, 301, 65}, {129, 130, 1}, {1, 2, 140000}} {
			m, n, k := sh[0], sh[1], sh[2]
			for _, ta := range tr {
				for _, tb := range tr {
					ar, ac, br, bc := m, k, k, n
					if ta == blas.Trans {
						ar, ac = k, m
					}
					if tb == blas.Trans {
						br, bc = n, k
					}
					lda, ldb, ldc := ac+1, bc+2, n+3
					a, b, c := randSlice(r, lda*(ar-1)+ac), randSlice(r, ldb*(br-1)+bc), randSlice(r, ldc*(m-1)+n)
					want := append([]float64(nil), c...)
					gonum.Implementation{}.Dgemm(ta, tb, m, n, k, -0.3, a, lda, b, ldb, 0.5, want, ldc)
					Implementation{}.Dgemm(ta, tb, m, n, k, -0.3, a, lda, b, ldb, 0.5, c, ldc)
					if d := maxDiff(c, want); d > 1e-13 {
						t.Fatalf("procs %d, %v, %c %c: differs by %g", procs, sh, ta, tb, d)
					}
				}
			}
		}
	}
}

// TestDsytrd checks gonum's tridiagonal reduction with this package's
// BLAS (GOMAXPROCS parts, and Parts 1) against gonum's own, at orders
// where both routines take the bands: the tridiagonal forms have the same
// eigenvalues (Dsterf), to 1e-13 n of the largest.
func TestDsytrd(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer blas64.Use(gonum.Implementation{})
	r := rand.New(rand.NewPCG(7, 8))
	var la lapackgonum.Implementation
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{minOrder, 300} {
			a0 := make([]float64, n*n)
			for i := range n {
				for j := 0; j <= i; j++ {
					v := r.NormFloat64()
					a0[i*n+j], a0[j*n+i] = v, v
				}
			}
			var vals [3][]float64
			for k, impl := range []blas.Float64{gonum.Implementation{}, Implementation{}, Implementation{Parts: 1}} {
				blas64.Use(impl)
				a := append([]float64(nil), a0...)
				d, e, tau := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
				work := make([]float64, 1)
				la.Dsytrd(blas.Lower, n, a, n, d, e, tau, work, -1)
				work = make([]float64, int(work[0]))
				la.Dsytrd(blas.Lower, n, a, n, d, e, tau, work, len(work))
				if !la.Dsterf(n, d, e) {
					t.Fatal("Dsterf failed")
				}
				vals[k] = d
			}
			scale := max(math.Abs(vals[0][0]), math.Abs(vals[0][n-1]))
			for k := 1; k < len(vals); k++ {
				for j := range n {
					if d := math.Abs(vals[k][j] - vals[0][j]); d > 1e-13*float64(n)*scale {
						t.Fatalf("procs %d, n %d, implementation %d: eigenvalue %d is %v, with gonum's BLAS %v", procs, n, k, j, vals[k][j], vals[0][j])
					}
				}
			}
		}
	}
}

// BenchmarkDsytrd times gonum's tridiagonal reduction at N = 541 with
// gonum's BLAS and with this package's (go test -bench Dsytrd
// ./internal/parblas; GOMAXPROCS sets the goroutines).
func BenchmarkDsytrd(b *testing.B) {
	const n = 541
	r := rand.New(rand.NewPCG(5, 6))
	a0 := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			v := r.NormFloat64()
			a0[i*n+j], a0[j*n+i] = v, v
		}
	}
	for _, c := range []struct {
		name string
		impl blas.Float64
	}{{"gonum", gonum.Implementation{}}, {"parblas", Implementation{}}} {
		b.Run(c.name, func(b *testing.B) {
			blas64.Use(c.impl)
			defer blas64.Use(gonum.Implementation{})
			var la lapackgonum.Implementation
			a := make([]float64, n*n)
			d, e, tau := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
			work := make([]float64, 1)
			la.Dsytrd(blas.Lower, n, a, n, d, e, tau, work, -1)
			work = make([]float64, int(work[0]))
			for b.Loop() {
				copy(a, a0)
				la.Dsytrd(blas.Lower, n, a, n, d, e, tau, work, len(work))
			}
		})
	}
}

// BenchmarkDsyrk times the dense projection's update B B^T at N = 541
// from 250 rows (deer_0034's face order and about its iterates' rank),
// gonum's and this package's.
func BenchmarkDsyrk(b *testing.B) {
	const n, k = 541, 250
	r := rand.New(rand.NewPCG(11, 12))
	a, c := randSlice(r, k*n), make([]float64, n*n)
	for _, impl := range []struct {
		name string
		impl blas.Float64
	}{{"gonum", gonum.Implementation{}}, {"parblas", Implementation{}}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.impl.Dsyrk(blas.Upper, blas.Trans, n, k, 1, a, n, 0, c, n)
			}
		})
	}
}
