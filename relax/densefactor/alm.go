package densefactor

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
)

// Kinds of an entry of Xbar's upper triangle.
const (
	free   uint8 = iota // row 0, the diagonal, pairs of variables without an edge: no product constraint
	equal               // v_k . v_l = 0: E3 (within a variable) and E4 (a forbidden pair)
	nonneg              // v_k . v_l >= 0: an allowed entry of an edge block (P)
)

// alm is the augmented Lagrangian of the SDR on a factor V (N x r, row 0
// e_1, each variable's rows summing to e_1), on costs divided by scale,
// with every matrix of order N stored densely (row-major, N x N):
//
//	L(V) = <C, X> + sum_h (lam_h h + sigma/2 h^2)
//	       + 1/(2 sigma) sum_g (max(0, mu_g - sigma g)^2 - mu_g^2),   X = V V^T,
//
// h over the equal entries and g over the nonneg entries of X's upper
// triangle. Its gradient is 2 M V with M = C + (lam + sigma h)/2 on the
// equal entries and C - max(0, mu - sigma g)/2 on the nonneg ones (both
// triangles): M is the dual slack C + A*(y) - P*(z) at the updated
// multipliers, without its E0-E2 part.
type alm struct {
	prob  *sdr.Problem
	n     int       // N
	scale float64   // costs are C / scale
	cnorm float64   // 1 + ||C / scale||_F
	c     []float64 // C / scale, full
	kind  []uint8   // upper triangle: free, equal or nonneg
	mult  []float64 // upper triangle: lam on equal entries, mu on nonneg ones
	x     []float64 // upper triangle of V V^T at the last evaluation
	m     []float64 // M at the last evaluation, full
	sigma float64
	evals int
	bands []int // row bands of equal upper-triangle area, one per goroutine
}

func newALM(p *sdr.Problem, sigma float64) *alm {
	n := p.N()
	a := &alm{prob: p, n: n, sigma: sigma, c: make([]float64, n*n), kind: make([]uint8, n*n),
		mult: make([]float64, n*n), x: make([]float64, n*n), m: make([]float64, n*n)}
	cd := p.C.ToDense().RawSymmetric()
	big := 0.0
	for k := range n {
		for l := k; l < n; l++ {
			v := cd.Data[k*cd.Stride+l]
			a.c[k*n+l], a.c[l*n+k] = v, v
			big = max(big, math.Abs(v))
		}
	}
	a.scale = 1
	if big > 0 {
		a.scale = big
	}
	fro := 0.0
	for k := range a.c {
		a.c[k] /= a.scale
		fro += a.c[k] * a.c[k]
	}
	a.cnorm = 1 + math.Sqrt(fro)
	for i, mi := range p.Card {
		o := p.Offset[i]
		for u := range mi {
			for w := u + 1; w < mi; w++ {
				a.kind[(o+u)*n+o+w] = equal
			}
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		oi, oj, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.J]
		for u := range p.Card[ed.I] {
			for w := range mj {
				k := nonneg
				if ed.Forbidden != nil && ed.Forbidden[u*mj+w] {
					k = equal
				}
				a.kind[(oi+u)*n+oj+w] = k
			}
		}
	}
	a.bands = triangleBands(n, 2)
	return a
}

// triangleBands splits the rows [0, n) of an upper triangle into p bands
// of about equal area: band b is rows [out[b], out[b+1]).
func triangleBands(n, p int) []int {
	out := make([]int, p+1)
	for b := 1; b < p; b++ {
		// rows [0, k) hold n^2/2 - (n-k)^2/2 entries of the triangle
		out[b] = n - int(math.Round(float64(n)*math.Sqrt(1-float64(b)/float64(p))))
	}
	out[p] = n
	return out
}

// byBands runs f on each row band b = [r0, r1) at once (from minParallel
// rows on; below, on one band holding every row).
func (a *alm) byBands(f func(b, r0, r1 int)) {
	if a.n < minParallel {
		f(0, 0, a.n)
		return
	}
	var wg sync.WaitGroup
	for b := 0; b+1 < len(a.bands); b++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(b, a.bands[b], a.bands[b+1])
		}()
	}
	wg.Wait()
}

// minParallel is the order from which the passes run on row bands.
const minParallel = 256

// gram sets the upper triangle of a.x to V V^T (Dsyrk, split over
// goroutines by the process's BLAS).
func (a *alm) gram(v *mat.Dense) {
	blas64.Syrk(blas.NoTrans, 1, v.RawMatrix(), 0, blas64.Symmetric{Uplo: blas.Upper, N: a.n, Stride: a.n, Data: a.x})
}

// eval returns L(V) and sets g to its gradient 2 M V projected onto the
// tangent space of the affine set (row 0 zero, each variable's rows
// summing to zero).
func (a *alm) eval(v, g *mat.Dense) float64 {
	a.evals++
	a.gram(v)
	n, sig := a.n, a.sigma
	parts := make([]float64, len(a.bands))
	a.byBands(func(b, r0, r1 int) {
		s := 0.0
		for k := r0; k < r1; k++ {
			row := k * n
			s += a.c[row+k] * a.x[row+k]
			a.m[row+k] = a.c[row+k]
			for l := k + 1; l < n; l++ {
				q := row + l
				x, c := a.x[q], a.c[q]
				m := c
				s += 2 * c * x
				switch a.kind[q] {
				case equal:
					lam := a.mult[q]
					s += lam*x + sig/2*x*x
					m += (lam + sig*x) / 2
				case nonneg:
					mu := a.mult[q]
					if t := mu - sig*x; t > 0 {
						s += (t*t - mu*mu) / (2 * sig)
						m -= t / 2
					} else {
						s -= mu * mu / (2 * sig)
					}
				}
				a.m[q] = m
			}
		}
		parts[b] = s
	})
	a.mirror(a.m)
	f := 0.0
	for _, s := range parts {
		f += s
	}
	a.mulM(g, v, 2)
	project(a.prob, g)
	return f
}

// mirror copies the upper triangle of the full matrix s to its lower one.
func (a *alm) mirror(s []float64) {
	n := a.n
	a.byBands(func(b, r0, r1 int) {
		for k := r0; k < r1; k++ {
			for l := k + 1; l < n; l++ {
				s[l*n+k] = s[k*n+l]
			}
		}
	})
}

// mulM sets dst = alpha M V (Dgemm, gonum's own goroutines).
func (a *alm) mulM(dst, v *mat.Dense, alpha float64) {
	m := blas64.General{Rows: a.n, Cols: a.n, Stride: a.n, Data: a.m}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, alpha, m, v.RawMatrix(), 0, dst.RawMatrix())
}

// update moves the multipliers to lam + sigma h and max(0, mu - sigma g) at
// the last evaluation and returns the largest violations of the equal and
// the nonneg entries (in the scaled units of x: x is Xbar itself).
func (a *alm) update() (eq, neg float64) {
	n, sig := a.n, a.sigma
	eqs, negs := make([]float64, len(a.bands)), make([]float64, len(a.bands))
	a.byBands(func(b, r0, r1 int) {
		e, g := 0.0, 0.0
		for k := r0; k < r1; k++ {
			for l := k + 1; l < n; l++ {
				q := k*n + l
				switch a.kind[q] {
				case equal:
					x := a.x[q]
					a.mult[q] += sig * x
					e = max(e, math.Abs(x))
				case nonneg:
					x := a.x[q]
					a.mult[q] = max(0, a.mult[q]-sig*x)
					g = max(g, -x)
				}
			}
		}
		eqs[b], negs[b] = e, g
	})
	for b := range eqs {
		eq, neg = max(eq, eqs[b]), max(neg, negs[b])
	}
	return eq, neg
}

// hessDiag sets d to the diagonal of L's Hessian in V at v over the terms
// active at the last evaluation: 2 (P M P)_kk (blockDiag) + sigma sum_l
// [active kl] v_l[c]^2 (Gauss-Newton part of the penalties); scratch w is
// N x N.
func (a *alm) hessDiag(v, d *mat.Dense, w []float64) {
	n, sig := a.n, a.sigma
	a.byBands(func(b, r0, r1 int) {
		for k := r0; k < r1; k++ {
			w[k*n+k] = 0
			for l := k + 1; l < n; l++ {
				q := k*n + l
				act := 0.0
				switch a.kind[q] {
				case equal:
					act = sig
				case nonneg:
					if a.mult[q]-sig*a.x[q] > 0 {
						act = sig
					}
				}
				w[q] = act
			}
		}
	})
	a.mirror(w)
	vr := v.RawMatrix()
	vv := mat.NewDense(vr.Rows, vr.Cols, nil)
	vvr := vv.RawMatrix()
	for k, x := range vr.Data {
		vvr.Data[k] = x * x
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: w}, vvr, 0, d.RawMatrix())
	dr := d.RawMatrix()
	diag := a.blockDiag()
	for k := range n {
		row := dr.Data[k*dr.Stride : k*dr.Stride+dr.Cols]
		for c := range row {
			row[c] += 2 * diag[k]
		}
	}
}

// blockDiag returns the diagonal of P M P, P the projection onto the
// tangent space of the affine set (project): per variable block B of m
// rows, (P M P)_kk = M_kk - (2/m) sum_{l in B} M_kl + (1/m^2) sum_{l,l' in
// B} M_ll'. It is the curvature of <M, V V^T> along row k within the
// affine set; M_kk alone would count the unary cost, which the block sums
// cancel, and miss the E3 multipliers.
func (a *alm) blockDiag() []float64 {
	n, p := a.n, a.prob
	diag := make([]float64, n)
	diag[0] = a.m[0]
	rs := make([]float64, 0, n)
	for i, mi := range p.Card {
		o := p.Offset[i]
		rs = rs[:0]
		tot := 0.0
		for u := range mi {
			r := 0.0
			for _, x := range a.m[(o+u)*n+o : (o+u)*n+o+mi] {
				r += x
			}
			rs = append(rs, r)
			tot += r
		}
		fm := float64(mi)
		for u := range mi {
			diag[o+u] = a.m[(o+u)*n+o+u] - 2*rs[u]/fm + tot/(fm*fm)
		}
	}
	return diag
}

// precond sets d to the L-BFGS's diagonal preconditioner at v: the inverse
// of the Hessian diagonal (hessDiag), clipped below at precondShift times
// its mean and scaled to a mean of about 1.
func (a *alm) precond(v, d *mat.Dense, w []float64) {
	a.hessDiag(v, d, w)
	dr := d.RawMatrix()
	mean := 0.0
	for k, x := range dr.Data {
		dr.Data[k] = max(x, 0)
		mean += dr.Data[k]
	}
	mean /= float64(len(dr.Data))
	if mean == 0 {
		mean = 1
	}
	for k, x := range dr.Data {
		dr.Data[k] = (1 + precondShift) * mean / (x + precondShift*mean)
	}
}

// precondShift bounds the preconditioner's spread: entries lie in
// (0, (1 + precondShift) / precondShift] times the mean's inverse.
const precondShift = 0.1

// dual returns the dual point (y, z >= 0) in the problem's units from the
// multipliers after update, at V: E3 and E4 from lam, z = mu, E1 and E2
// zero and E0 fixed by the first column of M V (the slack S = C + A*(y) -
// P*(z) then annihilates V's first column on the minimal face at a
// stationary point; as relax/factor's dual).
func (a *alm) dual(v *mat.Dense) (y, z []float64) {
	p, n := a.prob, a.n
	v0 := make([]float64, n)
	mat.Col(v0, 0, v)
	r0 := make([]float64, n)
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: a.m}, blas64.Vector{N: n, Inc: 1, Data: v0}, 0, blas64.Vector{N: n, Inc: 1, Data: r0})
	y = make([]float64, p.Y.Len)
	y0 := -r0[0]
	for i, mi := range p.Card {
		s := 0.0
		for b := range mi {
			s += r0[p.Offset[i]+b]
		}
		y0 -= s / float64(mi)
	}
	y[0] = y0 * a.scale
	for i, mi := range p.Card {
		o := p.Offset[i]
		for u := range mi {
			for w := u + 1; w < mi; w++ {
				y[p.IndexE3(i, u, w)] = a.mult[(o+u)*n+o+w] * a.scale
			}
		}
	}
	z = make([]float64, p.NumZ)
	for e := range p.Edges {
		ed := &p.Edges[e]
		oi, oj, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.J]
		k4, kz := ed.Y4, ed.Z
		for u := range p.Card[ed.I] {
			for w := range mj {
				q := (oi+u)*n + oj + w
				if ed.Forbidden != nil && ed.Forbidden[u*mj+w] {
					y[k4] = a.mult[q] * a.scale
					k4++
				} else {
					z[kz] = a.mult[q] * a.scale
					kz++
				}
			}
		}
	}
	return y, z
}

// setMultipliers loads the ALM's multipliers from a dual point in sdr's
// layout (E3, E4 and z; the rest is implied), as a warm start.
func (a *alm) setMultipliers(y, z []float64) {
	p, n := a.prob, a.n
	if len(y) == p.Y.Len {
		for i, mi := range p.Card {
			o := p.Offset[i]
			for u := range mi {
				for w := u + 1; w < mi; w++ {
					a.mult[(o+u)*n+o+w] = y[p.IndexE3(i, u, w)] / a.scale
				}
			}
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		oi, oj, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.J]
		k4, kz := ed.Y4, ed.Z
		for u := range p.Card[ed.I] {
			for w := range mj {
				q := (oi+u)*n + oj + w
				if ed.Forbidden != nil && ed.Forbidden[u*mj+w] {
					if len(y) == p.Y.Len {
						a.mult[q] = y[k4] / a.scale
					}
					k4++
				} else {
					if len(z) == p.NumZ {
						a.mult[q] = max(0, z[kz]) / a.scale
					}
					kz++
				}
			}
		}
	}
}

// xSym returns V V^T of the last evaluation on the problem's pattern.
func (a *alm) xSym() *sdr.Sym {
	s := sdr.NewSym(a.prob)
	s.FromDense(mat.NewSymDense(a.n, a.x))
	return s
}

// project sets g to its orthogonal projection onto the tangent space of the
// affine set: row 0 zero and, per variable, each column's rows summing to
// zero.
func project(p *sdr.Problem, g *mat.Dense) {
	gr := g.RawMatrix()
	r := gr.Cols
	clear(gr.Data[:r])
	mean := make([]float64, r)
	for i, mi := range p.Card {
		o := p.Offset[i]
		clear(mean)
		for u := range mi {
			row := gr.Data[(o+u)*gr.Stride:][:r]
			for c, x := range row {
				mean[c] += x
			}
		}
		inv := 1 / float64(mi)
		for u := range mi {
			row := gr.Data[(o+u)*gr.Stride:][:r]
			for c := range row {
				row[c] -= mean[c] * inv
			}
		}
	}
}

// onAffine moves v onto the affine set: row 0 e_1 and, per variable, the
// rows shifted equally so that they sum to e_1.
func onAffine(p *sdr.Problem, v *mat.Dense) {
	vr := v.RawMatrix()
	r := vr.Cols
	row0 := vr.Data[:r]
	clear(row0)
	row0[0] = 1
	mean := make([]float64, r)
	for i, mi := range p.Card {
		o := p.Offset[i]
		clear(mean)
		for u := range mi {
			for c, x := range vr.Data[(o+u)*vr.Stride:][:r] {
				mean[c] += x
			}
		}
		mean[0]--
		inv := 1 / float64(mi)
		for u := range mi {
			row := vr.Data[(o+u)*vr.Stride:][:r]
			for c := range row {
				row[c] -= mean[c] * inv
			}
		}
	}
}
