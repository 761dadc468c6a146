package sdr

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// FaceSym is the compressed matrix U^T S U of a Sym S on the minimal face
// (Face), stored with S's sparsity: with T = H S H (H block diagonal, so T
// has the blocks of S), the coordinates R of the face see T's blocks
// restricted to them, and the direction g a dense row. Applying it costs
// O(k * pattern) without the lift to Xbar's coordinates and back that
// Lift, S.MulMat and Restrict take (the eigensolves of the certificates,
// docs/relaxation.md, Certified bound, apply it hundreds of times per slack).
type FaceSym struct {
	f    *Face
	g    []float64   // row g of U^T S U (entry 0: g^T T g)
	diag [][]float64 // diag[i]: T's block (i,i) on R, (m_i-1) x (m_i-1)
	edge [][]float64 // edge[e]: T's block (I,J) on R, (m_I-1) x (m_J-1)
	off  []int       // off[i]: face coordinate of variable i's first coordinate in R
	blk  []float64   // scratch: one block of T
	row  []float64   // scratch: a row of T
}

// NewFaceSym returns the zero FaceSym of f; Set fills it.
func (f *Face) NewFaceSym() *FaceSym {
	p := f.prob
	c := &FaceSym{f: f, g: make([]float64, f.Dim()), diag: make([][]float64, len(p.Card)),
		edge: make([][]float64, len(p.Edges)), off: make([]int, len(p.Card))}
	at, mx := 1, 1
	for i, m := range p.Card {
		c.off[i] = at
		at += m - 1
		c.diag[i] = make([]float64, (m-1)*(m-1))
		mx = max(mx, m)
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		c.edge[e] = make([]float64, (p.Card[ed.I]-1)*(p.Card[ed.J]-1))
	}
	c.blk, c.row = make([]float64, mx*mx), make([]float64, mx)
	return c
}

// Set makes c the compressed matrix U^T S U, in O(pattern) time.
func (c *FaceSym) Set(s *Sym) {
	f, p := c.f, c.f.prob
	if s.prob != p {
		panic("sdr: FaceSym.Set of a Sym of another problem")
	}
	g0 := f.gVal[0]
	gi := func(i int) float64 { return f.gVal[1+i] }
	clear(c.g)
	gg := g0 * g0 * s.Row0[0]
	for i, m := range p.Card {
		o, last := p.Offset[i], m-1
		// Row 0 of T on block i: S_0,i H_i.
		t := c.row[:m]
		copy(t, s.Row0[o:o+m])
		c.reflectRight(t, 1, m, i)
		gg += 2 * g0 * gi(i) * t[last]
		for a := range last {
			c.g[c.off[i]+a] += g0 * t[a]
		}
		// Block (i,i): H_i S_ii H_i.
		b := c.blk[:m*m]
		copy(b, s.Diag[i])
		c.reflectLeft(b, m, i)
		c.reflectRight(b, m, m, i)
		gg += gi(i) * gi(i) * b[last*m+last]
		d := c.diag[i]
		for a := range last {
			c.g[c.off[i]+a] += gi(i) * b[last*m+a]
			copy(d[a*last:(a+1)*last], b[a*m:a*m+last])
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		mi, mj := p.Card[ed.I], p.Card[ed.J]
		b := c.blk[:mi*mj]
		copy(b, s.Edge[e])
		c.reflectLeft(b, mj, ed.I)
		c.reflectRight(b, mi, mj, ed.J)
		li, lj := mi-1, mj-1
		gg += 2 * gi(ed.I) * gi(ed.J) * b[li*mj+lj]
		for a := range li {
			c.g[c.off[ed.I]+a] += gi(ed.J) * b[a*mj+lj]
		}
		for bb := range lj {
			c.g[c.off[ed.J]+bb] += gi(ed.I) * b[li*mj+bb]
		}
		dst := c.edge[e]
		for a := range li {
			copy(dst[a*lj:(a+1)*lj], b[a*mj:a*mj+lj])
		}
	}
	c.g[0] = gg
}

// reflectLeft replaces the m_i x cols block b (row-major) by H_i b.
func (c *FaceSym) reflectLeft(b []float64, cols, i int) {
	u, beta := c.f.hu[i], c.f.hbeta[i]
	if u == nil {
		return
	}
	for col := range cols {
		s := 0.0
		for a, ua := range u {
			s += ua * b[a*cols+col]
		}
		s *= beta
		for a, ua := range u {
			b[a*cols+col] -= s * ua
		}
	}
}

// reflectRight replaces the rows x cols block b (row-major) by b H_i.
func (c *FaceSym) reflectRight(b []float64, rows, cols, i int) {
	u, beta := c.f.hu[i], c.f.hbeta[i]
	if u == nil {
		return
	}
	for r := range rows {
		row := b[r*cols : (r+1)*cols]
		s := 0.0
		for a, ua := range u {
			s += ua * row[a]
		}
		s *= beta
		for a, ua := range u {
			row[a] -= s * ua
		}
	}
}

// MulMat sets dst = (U^T S U) x for a d x k block x (dst d x k, not
// sharing memory with x).
func (c *FaceSym) MulMat(dst, x *mat.Dense) {
	p := c.f.prob
	xr, dr := x.RawMatrix(), dst.RawMatrix()
	d := c.f.Dim()
	if xr.Rows != d || dr.Rows != d || dr.Cols != xr.Cols {
		panic(fmt.Sprintf("sdr: FaceSym.MulMat of %d x %d into %d x %d, face order %d", xr.Rows, xr.Cols, dr.Rows, dr.Cols, d))
	}
	k := xr.Cols
	if k == 1 {
		c.mulVec(dr.Data, dr.Stride, xr.Data, xr.Stride)
		return
	}
	xs, ds := xr.Stride, dr.Stride
	xrow := func(q int) []float64 { return xr.Data[q*xs : q*xs+k] }
	drow := func(q int) []float64 { return dr.Data[q*ds : q*ds+k] }
	x0, d0 := xrow(0), drow(0)
	clear(d0)
	for q := range d {
		axpy(c.g[q], xrow(q), d0)
		if q > 0 {
			out := drow(q)
			for j := range out {
				out[j] = c.g[q] * x0[j]
			}
		}
	}
	for i, m := range p.Card {
		if l, o := m-1, c.off[i]; l > 0 {
			blockMul(c.diag[i], l, 1, l, l, xr.Data[o*xs:], xs, dr.Data[o*ds:], ds, k)
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		li, lj := p.Card[ed.I]-1, p.Card[ed.J]-1
		oi, oj := c.off[ed.I], c.off[ed.J]
		if li > 0 && lj > 0 {
			blockMul(c.edge[e], lj, 1, li, lj, xr.Data[oj*xs:], xs, dr.Data[oi*ds:], ds, k)
			blockMul(c.edge[e], 1, lj, lj, li, xr.Data[oi*xs:], xs, dr.Data[oj*ds:], ds, k)
		}
	}
}

// mulVec is MulMat for one column (Lanczos' vectors), with strides.
func (c *FaceSym) mulVec(dd []float64, ds int, xd []float64, xs int) {
	p := c.f.prob
	x0, s0 := xd[0], 0.0
	for q, gq := range c.g {
		s0 += gq * xd[q*xs]
		dd[q*ds] = gq * x0
	}
	dd[0] = s0
	for i, m := range p.Card {
		l, o := m-1, c.off[i]
		for a := range l {
			s := 0.0
			for b, w := range c.diag[i][a*l : (a+1)*l] {
				s += w * xd[(o+b)*xs]
			}
			dd[(o+a)*ds] += s
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		li, lj := p.Card[ed.I]-1, p.Card[ed.J]-1
		oi, oj := c.off[ed.I], c.off[ed.J]
		blk := c.edge[e]
		for a := range li {
			xa, s := xd[(oi+a)*xs], 0.0
			for b, w := range blk[a*lj : (a+1)*lj] {
				s += w * xd[(oj+b)*xs]
				dd[(oj+b)*ds] += w * xa
			}
			dd[(oi+a)*ds] += s
		}
	}
}
