// Package kernel holds the assembly kernels (AVX2 and FMA on amd64,
// checked at run time) of internal/parblas's BLAS: Dgemm, C = alpha op(A)
// op(B) + beta C on one goroutine by the packed, blocked scheme of
// GotoBLAS (blocks of op(B), kc x nc, and of op(A), mc x kc, times alpha,
// are copied into contiguous strips of 12 columns and 4 rows, and a
// micro-kernel adds each 4 x 12 block of C from a pair of strips); and
// DotAxpy, the fused row step of a symmetric matrix-vector product.
// Available reports whether this CPU and build have them; without them
// the caller keeps gonum's routines (internal/parblas does).
package kernel

import (
	"sync"

	"gonum.org/v1/gonum/blas"
)

// Strip and block sizes: a 4 x 12 block of C fills twelve AVX2 registers;
// a kc x 12 strip of B (24 KiB) stays in L1 while the mc x kc block of A
// (192 KiB) stays in L2.
const (
	mr, nr = 4, 12
	kc     = 256
	mc     = 96
	nc     = 2400
)

// Available reports whether the kernels run here (amd64 with AVX2 and
// FMA, not built with the purego tag).
func Available() bool { return available }

var pool = sync.Pool{New: func() any { return new([]float64) }}

func buffer(n int) *[]float64 {
	p := pool.Get().(*[]float64)
	if cap(*p) < n {
		*p = make([]float64, n)
	}
	*p = (*p)[:n]
	return p
}

// Dgemm sets C = alpha op(A) op(B) + beta C, op(A) m x k and op(B) k x n,
// all row-major (blas.Float64's Dgemm). It panics when Available is false
// or a slice is too short for its dimensions.
func Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !available {
		panic("kernel: Dgemm without a kernel")
	}
	if m == 0 || n == 0 {
		return
	}
	check(tA, m, k, a, lda, "A")
	check(tB, k, n, b, ldb, "B")
	if ldc < n || len(c) < ldc*(m-1)+n {
		panic("kernel: C too short")
	}
	scale(m, n, beta, c, ldc)
	if alpha == 0 || k == 0 {
		return
	}
	pb := buffer(kc * min(roundUp(n, nr), nc))
	pa := buffer(mc * kc)
	defer pool.Put(pb)
	defer pool.Put(pa)
	var edge [mr * nr]float64
	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			packB(tB, kb, nb, b, ldb, pc, jc, *pb)
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				packA(tA, mb, kb, alpha, a, lda, ic, pc, *pa)
				for jr := 0; jr < nb; jr += nr {
					bs := (*pb)[jr*kb:]
					w := min(nr, nb-jr)
					for ir := 0; ir < mb; ir += mr {
						as := (*pa)[ir*kb:]
						h := min(mr, mb-ir)
						ci := (ic+ir)*ldc + jc + jr
						if h == mr && w == nr {
							kern4x12(kb, &as[0], &bs[0], &c[ci], ldc)
							continue
						}
						edge = [mr * nr]float64{}
						kern4x12(kb, &as[0], &bs[0], &edge[0], nr)
						for i := range h {
							row := c[ci+i*ldc : ci+i*ldc+w]
							for j := range row {
								row[j] += edge[i*nr+j]
							}
						}
					}
				}
			}
		}
	}
}

// check panics unless the row-major matrix stored in s with stride ld
// holds op(S) of r x cols.
func check(t blas.Transpose, r, cols int, s []float64, ld int, name string) {
	if t != blas.NoTrans {
		r, cols = cols, r
	}
	if r == 0 || cols == 0 {
		return
	}
	if ld < cols || len(s) < ld*(r-1)+cols {
		panic("kernel: " + name + " too short")
	}
}

// scale sets C = beta C (C = 0 when beta is 0, whatever C held).
func scale(m, n int, beta float64, c []float64, ldc int) {
	if beta == 1 {
		return
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

func roundUp(x, q int) int { return (x + q - 1) / q * q }

// packB copies op(B)[pc:pc+kb, jc:jc+nb] into strips of nr columns, strip
// s at dst[s nr kb:], row p of a strip at its [p nr:], zeros past nb.
func packB(t blas.Transpose, kb, nb int, b []float64, ldb, pc, jc int, dst []float64) {
	for jr := 0; jr < nb; jr += nr {
		s := dst[jr*kb : jr*kb+kb*nr]
		w := min(nr, nb-jr)
		for p := range kb {
			d := s[p*nr : p*nr+nr]
			if t == blas.NoTrans {
				copy(d, b[(pc+p)*ldb+jc+jr:(pc+p)*ldb+jc+jr+w])
			} else {
				for j := range w {
					d[j] = b[(jc+jr+j)*ldb+pc+p]
				}
			}
			clear(d[w:])
		}
	}
}

// packA copies alpha op(A)[ic:ic+mb, pc:pc+kb] into strips of mr rows,
// strip s at dst[s mr kb:], column p of a strip at its [p mr:], zeros
// past mb.
func packA(t blas.Transpose, mb, kb int, alpha float64, a []float64, lda, ic, pc int, dst []float64) {
	for ir := 0; ir < mb; ir += mr {
		s := dst[ir*kb : ir*kb+kb*mr]
		h := min(mr, mb-ir)
		switch {
		case h == mr && t == blas.NoTrans:
			o := (ic+ir)*lda + pc
			r0, r1, r2, r3 := a[o:o+kb], a[o+lda:o+lda+kb], a[o+2*lda:o+2*lda+kb], a[o+3*lda:o+3*lda+kb]
			for p := range kb {
				d := s[p*mr : p*mr+mr]
				d[0], d[1], d[2], d[3] = alpha*r0[p], alpha*r1[p], alpha*r2[p], alpha*r3[p]
			}
		case t == blas.NoTrans:
			clear(s)
			for i := range h {
				for p, v := range a[(ic+ir+i)*lda+pc : (ic+ir+i)*lda+pc+kb] {
					s[p*mr+i] = alpha * v
				}
			}
		default:
			for p := range kb {
				d := s[p*mr : p*mr+mr]
				col := a[(pc+p)*lda+ic+ir : (pc+p)*lda+ic+ir+h]
				for i, v := range col {
					d[i] = alpha * v
				}
				clear(d[h:])
			}
		}
	}
}
