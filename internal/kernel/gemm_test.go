package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func random(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	return s
}

// TestDgemm compares Dgemm with gonum's on every transpose, on shapes that
// cross the strip and block sizes (edges of 1 to 11 columns and 1 to 3
// rows, k past kc, n past nc), with strides wider than the matrices and
// beta 0 over a C full of NaN.
func TestDgemm(t *testing.T) {
	if !Available() {
		t.Skip("no AVX2/FMA kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int{{1, 1, 1}, {4, 12, 1}, {3, 11, 7}, {5, 13, 257}, {97, 25, 300}, {96, 24, 256},
		{130, 2405, 9}, {7, 50, 520}, {64, 64, 64}, {1, 100, 3}, {100, 1, 3}, {33, 35, 0}}
	trans := []blas.Transpose{blas.NoTrans, blas.Trans}
	coef := [][2]float64{{1, 0}, {-0.5, 1}, {2, 0.25}, {0, 3}}
	for _, sh := range shapes {
		for _, ta := range trans {
			for _, tb := range trans {
				for _, ab := range coef {
					m, n, k := sh[0], sh[1], sh[2]
					t.Run(fmt.Sprint(sh, ta, tb, ab), func(t *testing.T) {
						ar, ac := m, k
						if ta == blas.Trans {
							ar, ac = k, m
						}
						br, bc := k, n
						if tb == blas.Trans {
							br, bc = n, k
						}
						lda, ldb, ldc := ac+3, bc+1, n+2
						a := random(rng, max(ar*lda, 1))
						b := random(rng, max(br*ldb, 1))
						c := random(rng, m*ldc)
						if ab[1] == 0 {
							for i := range c {
								c[i] = math.NaN()
							}
						}
						want := append([]float64(nil), c...)
						gonum.Implementation{}.Dgemm(ta, tb, m, n, k, ab[0], a, lda, b, ldb, ab[1], want, ldc)
						Dgemm(ta, tb, m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
						for i := range m {
							for j := range ldc {
								g, w := c[i*ldc+j], want[i*ldc+j]
								if j >= n {
									if math.Float64bits(g) != math.Float64bits(w) {
										t.Fatalf("C[%d,%d] past n changed: %v, was %v", i, j, g, w)
									}
									continue
								}
								if math.Abs(g-w) > 1e-12*(1+math.Abs(w))*float64(k+1) || math.IsNaN(g) {
									t.Fatalf("C[%d,%d] = %v, gonum %v", i, j, g, w)
								}
							}
						}
					})
				}
			}
		}
	}
}

func benchmark(b *testing.B, m, n, k int, f func(m, n, k int, a, bb, c []float64)) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, bb, c := random(rng, m*k), random(rng, k*n), make([]float64, m*n)
	for b.Loop() {
		f(m, n, k, a, bb, c)
	}
	b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkDgemm times M V on one goroutine, M of order 601, V 601 x 320
// (a dense factor ALM's pass on deer_0034), against gonum's Dgemm.
func BenchmarkDgemm(b *testing.B) {
	for _, sh := range [][3]int{{601, 320, 601}, {1001, 320, 1001}, {300, 301, 320}} {
		m, n, k := sh[0], sh[1], sh[2]
		b.Run(fmt.Sprintf("kernel/%dx%dx%d", m, n, k), func(b *testing.B) {
			if !Available() {
				b.Skip("no kernel")
			}
			benchmark(b, m, n, k, func(m, n, k int, a, bb, c []float64) {
				Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, bb, n, 0, c, n)
			})
		})
		b.Run(fmt.Sprintf("gonum/%dx%dx%d", m, n, k), func(b *testing.B) {
			benchmark(b, m, n, k, func(m, n, k int, a, bb, c []float64) {
				gonum.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, bb, n, 0, c, n)
			})
		})
	}
}
