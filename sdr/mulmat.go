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

// MulMat sets dst = S x for an N x k block x (docs/relaxation.md, SDPAD-LR: the matvec of the Lanczos
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

// PatternOf sets s to Y Y^T on the pattern (docs/relaxation.md, SDPAD-LR: the low-rank iterate seen
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
	xs, ds := x.Stride, d.Stride
	for i := v0; i < v1; i++ {
		m, o := p.Card[i], p.Offset[i]
		for a := range m {
			r := o + a
			out := d.Data[r*ds : r*ds+k]
			xa := x.Data[r*xs : r*xs+k]
			v := s.Row0[r]
			for c := range out {
				out[c] = v * x0[c]
				acc[c] += v * xa[c]
			}
		}
		blockMul(s.Diag[i], m, 1, m, m, x.Data[o*xs:], xs, d.Data[o*ds:], ds, k)
		for _, in := range p.adj[i] {
			ed := &p.Edges[in.Edge]
			blk := s.Edge[in.Edge]
			oi, oj, mi, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.I], p.Card[ed.J]
			if in.First {
				blockMul(blk, mj, 1, mi, mj, x.Data[oj*xs:], xs, d.Data[oi*ds:], ds, k)
			} else {
				blockMul(blk, 1, mj, mj, mi, x.Data[oi*xs:], xs, d.Data[oj*ds:], ds, k)
			}
		}
	}
}

// blockMul adds W x to the nOut rows of out (row stride os), for the nIn
// rows of x (stride xs) and w(r, c) = blk[r*rs + c*cs]; k columns. Four
// rows of x at a time, so each output entry is loaded and stored once per
// four products; groups of four zero weights are skipped.
func blockMul(blk []float64, rs, cs, nOut, nIn int, x []float64, xs int, out []float64, os, k int) {
	for r := range nOut {
		o := out[r*os : r*os+k]
		w := blk[r*rs:]
		c := 0
		for ; c+4 <= nIn; c += 4 {
			w0, w1, w2, w3 := w[c*cs], w[(c+1)*cs], w[(c+2)*cs], w[(c+3)*cs]
			if w0 == 0 && w1 == 0 && w2 == 0 && w3 == 0 {
				continue
			}
			x0 := x[c*xs : c*xs+k][:len(o)]
			x1 := x[(c+1)*xs : (c+1)*xs+k][:len(o)]
			x2 := x[(c+2)*xs : (c+2)*xs+k][:len(o)]
			x3 := x[(c+3)*xs : (c+3)*xs+k][:len(o)]
			for j := range o {
				o[j] += w0*x0[j] + w1*x1[j] + w2*x2[j] + w3*x3[j]
			}
		}
		for ; c < nIn; c++ {
			if wc := w[c*cs]; wc != 0 {
				axpyRow(wc, x[c*xs:c*xs+k], o)
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
			ed := &p.Edges[in.Edge]
			blk := s.Edge[in.Edge]
			oi, oj, mi, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.I], p.Card[ed.J]
			if in.First {
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
			if !in.First {
				continue
			}
			ed := &p.Edges[in.Edge]
			blk := s.Edge[in.Edge]
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
