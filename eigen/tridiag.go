package eigen

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Inverse iteration for selected eigenvectors of a symmetric tridiagonal
// matrix: a port of LAPACK's dstein with its helpers dlagtf (LU of T - lambda
// I with partial pivoting) and dlagts (solve with perturbed tiny pivots),
// which gonum does not provide.

const (
	dlamchE     = 0x1p-53   // relative machine precision (LAPACK dlamch('E'))
	dlamchP     = 0x1p-52   // eps * base (dlamch('P'))
	dlamchS     = 0x1p-1022 // safe minimum
	steinMaxIts = 5
	steinExtra  = 2
)

// tridiagLU is the factorization P L U = T - lambda I of dlagtf, for one
// unreduced block of order n.
type tridiagLU struct {
	a, b, c, d []float64 // U's diagonal and two super-diagonals, L's multipliers
	in         []int     // pivots; in[n-1] is the index of the first tiny pivot (1-based, 0 if none)
}

// factor runs dlagtf on the block with diagonal diag, off-diagonal off
// (len n-1), shifted by lambda; tol = 0 as dstein calls it.
func (f *tridiagLU) factor(diag, off []float64, lambda float64) {
	n := len(diag)
	a, b, c, d, in := f.a[:n], f.b[:max(n-1, 0)], f.c[:max(n-1, 0)], f.d[:max(n-2, 0)], f.in[:n]
	copy(b, off)
	copy(c, off)
	for k := range n {
		a[k] = diag[k] - lambda
	}
	in[n-1] = 0
	if n == 1 {
		if a[0] == 0 {
			in[0] = 1
		}
		return
	}
	tl := dlamchE
	scale1 := math.Abs(a[0]) + math.Abs(b[0])
	for k := 0; k < n-1; k++ {
		scale2 := math.Abs(c[k]) + math.Abs(a[k+1])
		if k < n-2 {
			scale2 += math.Abs(b[k+1])
		}
		piv1 := 0.0
		if a[k] != 0 {
			piv1 = math.Abs(a[k]) / scale1
		}
		piv2 := 0.0
		if c[k] == 0 {
			in[k] = 0
			scale1 = scale2
			if k < n-2 {
				d[k] = 0
			}
		} else {
			piv2 = math.Abs(c[k]) / scale2
			if piv2 <= piv1 {
				in[k] = 0
				scale1 = scale2
				c[k] /= a[k]
				a[k+1] -= c[k] * b[k]
				if k < n-2 {
					d[k] = 0
				}
			} else {
				in[k] = 1
				mult := a[k] / c[k]
				a[k] = c[k]
				temp := a[k+1]
				a[k+1] = b[k] - mult*temp
				if k < n-2 {
					d[k] = b[k+1]
					b[k+1] = -mult * d[k]
				}
				b[k] = temp
				c[k] = mult
			}
		}
		if max(piv1, piv2) <= tl && in[n-1] == 0 {
			in[n-1] = k + 1
		}
	}
	if math.Abs(a[n-1]) <= scale1*tl && in[n-1] == 0 {
		in[n-1] = n
	}
}

// solve overwrites y with the solution of (T - lambda I) x = y, perturbing
// tiny pivots (dlagts with job = -1 and tol computed from U).
func (f *tridiagLU) solve(y []float64) {
	n := len(y)
	a, b, c, d, in := f.a, f.b, f.c, f.d, f.in
	tol := math.Abs(a[0])
	if n > 1 {
		tol = max(tol, math.Abs(a[1]), math.Abs(b[0]))
	}
	for k := 2; k < n; k++ {
		tol = max(tol, math.Abs(a[k]), math.Abs(b[k-1]), math.Abs(d[k-2]))
	}
	tol *= dlamchE
	if tol == 0 {
		tol = dlamchE
	}
	for k := 1; k < n; k++ {
		if in[k-1] == 0 {
			y[k] -= c[k-1] * y[k-1]
		} else {
			temp := y[k-1]
			y[k-1] = y[k]
			y[k] = temp - c[k-1]*y[k]
		}
	}
	const sfmin = dlamchS
	bignum := 1 / sfmin
	for k := n - 1; k >= 0; k-- {
		temp := y[k]
		if k < n-2 {
			temp -= b[k]*y[k+1] + d[k]*y[k+2]
		} else if k == n-2 {
			temp -= b[k] * y[k+1]
		}
		ak := a[k]
		pert := math.Copysign(tol, ak)
		for {
			absak := math.Abs(ak)
			if absak < 1 {
				if absak < sfmin {
					if absak == 0 || math.Abs(temp)*sfmin > absak {
						ak += pert
						pert *= 2
						continue
					}
					temp *= bignum
					ak *= bignum
				} else if math.Abs(temp) > absak*bignum {
					ak += pert
					pert *= 2
					continue
				}
			}
			break
		}
		y[k] = temp / ak
	}
}

// rng is a small deterministic generator for the start vectors.
type rng uint64

func (r *rng) uniform() float64 { // in (-1, 1)
	*r ^= *r << 13
	*r ^= *r >> 7
	*r ^= *r << 17
	return 2*float64(uint64(*r)>>11)/(1<<53) - 1
}

// steinBlock computes unit eigenvectors of the unreduced tridiagonal block
// (diag, off) for its eigenvalues w (ascending), into the rows col0,
// col0+1, ... of z (row-major with stride ldz; entries row0 .. row0 +
// len(diag) - 1 of each), as dstein does: inverse iteration from a random
// vector, with modified Gram-Schmidt against the previous vectors of a
// cluster (gap <= 1e-3 ||T||). It returns false when some vector did not
// converge in steinMaxIts iterations.
func (e *Projector) steinBlock(diag, off, w []float64, z []float64, ldz, row0, col0 int) bool {
	n := len(diag)
	vec := func(j int) []float64 { return z[(col0+j)*ldz+row0:][:n] }
	if n == 1 {
		vec(0)[0] = 1
		return true
	}
	onenrm := max(math.Abs(diag[0])+math.Abs(off[0]), math.Abs(diag[n-1])+math.Abs(off[n-2]))
	for i := 1; i < n-1; i++ {
		onenrm = max(onenrm, math.Abs(diag[i])+math.Abs(off[i-1])+math.Abs(off[i]))
	}
	ortol := 1e-3 * onenrm
	dtpcrt := math.Sqrt(0.1 / float64(n))
	x := e.x[:n]
	ok := true
	gpind := 0
	xjm := 0.0
	for jb, xj := range w {
		if jb > 0 {
			if pertol := 10 * math.Abs(dlamchP*xj); xj-xjm < pertol {
				xj = xjm + pertol
			}
		}
		for i := range x {
			x[i] = e.rand.uniform()
		}
		e.lu.factor(diag, off, xj)
		if jb == 0 || math.Abs(xj-xjm) > ortol {
			gpind = jb
		}
		nrmchk := 0
		for its := 1; ; its++ {
			if its > steinMaxIts {
				ok = false
				break
			}
			xmax := 0.0
			for _, v := range x {
				xmax = max(xmax, math.Abs(v))
			}
			scl := float64(n) * onenrm * max(dlamchP, math.Abs(e.lu.a[n-1])) / xmax
			for i := range x {
				x[i] *= scl
			}
			e.lu.solve(x)
			for g := gpind; g < jb; g++ {
				floats.AddScaled(x, -floats.Dot(x, vec(g)), vec(g))
			}
			nrm := 0.0
			for _, v := range x {
				nrm = max(nrm, math.Abs(v))
			}
			if nrm < dtpcrt {
				continue
			}
			nrmchk++
			if nrmchk >= steinExtra+1 {
				break
			}
		}
		nrm2, jmax := 0.0, 0
		for i, v := range x {
			nrm2 += v * v
			if math.Abs(v) > math.Abs(x[jmax]) {
				jmax = i
			}
		}
		scl := 1 / math.Sqrt(nrm2)
		if x[jmax] < 0 {
			scl = -scl
		}
		floats.ScaleTo(vec(jb), scl, x)
		xjm = xj
	}
	return ok
}
