package sdr

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// parallelMin is the number of output entries (N*k) from which MulMat and
// PatternOf split their sweep over two goroutines.
const parallelMin = 1 << 15

const (
	kindMul = iota
	kindPattern
)

// MulMat sets dst = S x for an N x k block x (§6: the matvec of the Lanczos
// eigensolver), in O(k * pattern) time and without allocating. dst must be
// N x k and must not share memory with x. Above N*k = 32768 the rows are
// split over two goroutines.
func (s *Sym) MulMat(dst, x *mat.Dense) {
	n := s.prob.N()
	xr, dr := x.RawMatrix(), dst.RawMatrix()
	if xr.Rows != n || dr.Rows != n || dr.Cols != xr.Cols {
		panic(fmt.Sprintf("sdr: MulMat of %d x %d into %d x %d, pattern order %d", xr.Rows, xr.Cols, dr.Rows, dr.Cols, n))
	}
	if xr.Cols == 0 {
		return
	}
	if &xr.Data[0] == &dr.Data[0] {
		panic("sdr: MulMat with dst == x")
	}
	s.par.x, s.par.d = xr, dr
	k := xr.Cols
	row0 := dr.Data[:k]
	x0 := xr.Data[:k]
	for c := range row0 {
		row0[c] = s.Row0[0] * x0[c]
	}
	s.sweep(kindMul, n*k, k)
	s.par.x, s.par.d = blas64.General{}, blas64.General{}
}

// PatternOf sets s to Y Y^T on the pattern (§6: the low-rank iterate seen
// through A and P), for Y of size N x r, in O(r * pattern) time.
func (s *Sym) PatternOf(y *mat.Dense) {
	yr := y.RawMatrix()
	if yr.Rows != s.prob.N() {
		panic(fmt.Sprintf("sdr: PatternOf of a %d x %d factor, pattern order %d", yr.Rows, yr.Cols, s.prob.N()))
	}
	s.par.x = yr
	r := yr.Cols
	s.Row0[0] = dot(yr.Data[:r], yr.Data[:r])
	s.sweep(kindPattern, yr.Rows*r, 0)
	s.par.x = blas64.General{}
}

// sweep runs kind over all variables, on two goroutines when work is large.
// acc is the length of the row-0 accumulator of the second half.
func (s *Sym) sweep(kind, work, acc int) {
	p := s.prob
	n := len(p.Card)
	if work < parallelMin || p.split <= 0 || p.split >= n {
		s.do(kind, 0, n, nil)
		return
	}
	par := &s.par
	par.once.Do(func() {
		par.run = func() {
			s.do(par.kind, p.split, len(p.Card), par.acc)
			par.wg.Done()
		}
	})
	if cap(par.acc) < acc {
		par.acc = make([]float64, acc)
	}
	par.acc = par.acc[:acc]
	clear(par.acc)
	par.kind = kind
	par.wg.Add(1)
	go par.run()
	s.do(kind, 0, p.split, nil)
	par.wg.Wait()
	if kind == kindMul {
		axpy(1, par.acc, par.d.Data[:acc])
	}
}

// do runs one kind of sweep on variables v0..v1-1. For kindMul, acc (nil:
// row 0 of dst itself) receives their contribution to row 0.
func (s *Sym) do(kind, v0, v1 int, acc []float64) {
	switch {
	case kind == kindMul && s.par.x.Cols == 1:
		s.mulRange1(v0, v1, acc)
	case kind == kindMul:
		s.mulRange(v0, v1, acc)
	default:
		s.patternRange(v0, v1)
	}
}

// mulRange computes the rows of S x that belong to variables v0..v1-1 and
// adds their row-0 contributions to acc (or to row 0 of dst).
func (s *Sym) mulRange(v0, v1 int, acc []float64) {
	p := s.prob
	x, d := s.par.x, s.par.d
	k := x.Cols
	if acc == nil {
		acc = d.Data[:k]
	}
	x0 := x.Data[:k]
	for i := v0; i < v1; i++ {
		m, o := p.Card[i], p.Offset[i]
		dg := s.Diag[i]
		for a := range m {
			r := o + a
			out := d.Data[r*d.Stride : r*d.Stride+k]
			xa := x.Data[r*x.Stride : r*x.Stride+k]
			v := s.Row0[r]
			for c := range out {
				out[c] = v * x0[c]
				acc[c] += v * xa[c]
			}
			for b, w := range dg[a*m : (a+1)*m] {
				if w != 0 {
					axpyRow(w, x.Data[(o+b)*x.Stride:(o+b)*x.Stride+k], out)
				}
			}
		}
		for _, in := range p.adj[i] {
			ed := &p.Edges[in.edge]
			blk := s.Edge[in.edge]
			oi, oj, mi, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.I], p.Card[ed.J]
			if in.first {
				for a := range mi {
					out := d.Data[(oi+a)*d.Stride : (oi+a)*d.Stride+k]
					for b, w := range blk[a*mj : (a+1)*mj] {
						if w != 0 {
							axpyRow(w, x.Data[(oj+b)*x.Stride:(oj+b)*x.Stride+k], out)
						}
					}
				}
			} else {
				for a := range mi {
					xa := x.Data[(oi+a)*x.Stride : (oi+a)*x.Stride+k]
					for b, w := range blk[a*mj : (a+1)*mj] {
						if w != 0 {
							axpyRow(w, xa, d.Data[(oj+b)*d.Stride:(oj+b)*d.Stride+k])
						}
					}
				}
			}
		}
	}
}

// mulRange1 is mulRange for a single column (the plain Lanczos matvec).
func (s *Sym) mulRange1(v0, v1 int, acc []float64) {
	p := s.prob
	x, d := s.par.x, s.par.d
	xs, ds := x.Stride, d.Stride
	xd, dd := x.Data, d.Data
	x0 := xd[0]
	sum0 := 0.0
	for i := v0; i < v1; i++ {
		m, o := p.Card[i], p.Offset[i]
		dg := s.Diag[i]
		for a := range m {
			r := o + a
			v := s.Row0[r]
			sum0 += v * xd[r*xs]
			out := v * x0
			for b, w := range dg[a*m : (a+1)*m] {
				out += w * xd[(o+b)*xs]
			}
			dd[r*ds] = out
		}
		for _, in := range p.adj[i] {
			ed := &p.Edges[in.edge]
			blk := s.Edge[in.edge]
			oi, oj, mi, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.I], p.Card[ed.J]
			if in.first {
				for a := range mi {
					out := 0.0
					for b, w := range blk[a*mj : (a+1)*mj] {
						out += w * xd[(oj+b)*xs]
					}
					dd[(oi+a)*ds] += out
				}
			} else {
				for a := range mi {
					xa := xd[(oi+a)*xs]
					for b, w := range blk[a*mj : (a+1)*mj] {
						dd[(oj+b)*ds] += w * xa
					}
				}
			}
		}
	}
	if acc == nil {
		dd[0] += sum0
	} else {
		acc[0] += sum0
	}
}

// patternRange fills the entries of Y Y^T that belong to variables
// v0..v1-1: their row-0 entries, diagonal blocks, and the edges where they
// are the first endpoint.
func (s *Sym) patternRange(v0, v1 int) {
	p := s.prob
	y := s.par.x
	r := y.Cols
	row := func(q int) []float64 { return y.Data[q*y.Stride : q*y.Stride+r] }
	y0 := row(0)
	for i := v0; i < v1; i++ {
		m, o := p.Card[i], p.Offset[i]
		dg := s.Diag[i]
		for a := range m {
			ya := row(o + a)
			s.Row0[o+a] = dot(y0, ya)
			for b := a; b < m; b++ {
				v := dot(ya, row(o+b))
				dg[a*m+b], dg[b*m+a] = v, v
			}
		}
		for _, in := range p.adj[i] {
			if !in.first {
				continue
			}
			ed := &p.Edges[in.edge]
			blk := s.Edge[in.edge]
			oi, oj, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.J]
			for a := range p.Card[ed.I] {
				ya := row(oi + a)
				for b := range mj {
					blk[a*mj+b] = dot(ya, row(oj+b))
				}
			}
		}
	}
}

func axpyRow(alpha float64, x, y []float64) {
	x = x[:len(y)]
	for c := range y {
		y[c] += alpha * x[c]
	}
}

func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s float64
	for c := range x {
		s += x[c] * y[c]
	}
	return s
}
