package sdr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Face is the minimal face of the PSD cone that holds the feasible set of
// the SDR (docs/relaxation.md, Minimal face): F = {X PSD : X v_i = 0 for all
// i}, v_i = e_0 - sum_a e_ia, of dimension d = N - n. It is F = {U Y U^T : Y
// PSD of order d} for the orthonormal basis
//
//	U = H [g, E_R],   H = diag(1, H_1, ..., H_n),
//
// where the Householder reflector H_i maps 1/sqrt(m_i) (all ones on block i)
// to the block's last coordinate f_i, E_R holds the coordinate vectors other
// than e_0 and the f_i, and g = (e_0 + sum_i f_i / sqrt(m_i)) / ||.|| is the
// direction of span{e_0, f_i} orthogonal to every H v_i = e_0 - sqrt(m_i)
// f_i. Compress and Expand apply U^T . U and U . U^T in O(N^2) (this is
// facial reduction done as a change of cone: the paper's operators and
// (A A*)^{-1} stay as they are).
type Face struct {
	prob  *Problem
	rest  []int     // R: coordinates of Xbar other than 0 and the f_i, ascending
	gIdx  []int     // support of g: 0 and the f_i
	gVal  []float64 // g on its support
	hu    [][]float64
	hbeta []float64 // H_i = I - hbeta[i] hu[i] hu[i]^T (hbeta 0: identity)
	buf   []float64 // N x N scratch of Compress and Expand, row-major, allocated on first use
	t     []float64 // N scratch
	tk    []float64 // k scratch of Lift and Restrict
}

// Face returns the minimal face of prob's feasible set. A Face holds
// scratch space and is not safe for concurrent use.
func (p *Problem) Face() *Face {
	n := p.N()
	f := &Face{prob: p, t: make([]float64, n)}
	f.hu = make([][]float64, len(p.Card))
	f.hbeta = make([]float64, len(p.Card))
	gn := 1.0
	for _, m := range p.Card {
		gn += 1 / float64(m)
	}
	gn = math.Sqrt(gn)
	f.gIdx = append(f.gIdx, 0)
	f.gVal = append(f.gVal, 1/gn)
	for i, m := range p.Card {
		last := p.Offset[i] + m - 1
		for k := p.Offset[i]; k < last; k++ {
			f.rest = append(f.rest, k)
		}
		f.gIdx = append(f.gIdx, last)
		f.gVal = append(f.gVal, 1/(math.Sqrt(float64(m))*gn))
		if m == 1 {
			continue
		}
		s := 1 / math.Sqrt(float64(m))
		u := make([]float64, m)
		for a := range u {
			u[a] = s
		}
		u[m-1] -= 1
		f.hu[i] = u
		f.hbeta[i] = 2 / (2 - 2*s) // 2 / (u^T u)
	}
	return f
}

// Dim returns d = N - n, the order of the compressed matrices.
func (f *Face) Dim() int { return len(f.rest) + 1 }

// Compress sets dst = U^T w U (d x d; index 0 is g, then R in order).
func (f *Face) Compress(dst, w *mat.SymDense) {
	n := f.prob.N()
	f.check(w, n, "Compress source")
	f.check(dst, f.Dim(), "Compress destination")
	rw := w.RawSymmetric()
	buf := f.scratch()
	for i := range n {
		for j := i; j < n; j++ {
			v := rw.Data[i*rw.Stride+j]
			buf[i*n+j], buf[j*n+i] = v, v
		}
	}
	f.applyH()
	t := f.t
	clear(t)
	for s, r := range f.gIdx {
		axpy(f.gVal[s], buf[r*n:(r+1)*n], t)
	}
	rd := dst.RawSymmetric()
	g0 := 0.0
	for s, r := range f.gIdx {
		g0 += f.gVal[s] * t[r]
	}
	rd.Data[0] = g0
	for j, r := range f.rest {
		rd.Data[1+j] = t[r]
	}
	for j, r := range f.rest {
		row := rd.Data[(1+j)*rd.Stride:]
		src := buf[r*n : (r+1)*n]
		for l := j; l < len(f.rest); l++ {
			row[1+l] = src[f.rest[l]]
		}
	}
}

// Expand sets dst = U y U^T (N x N), a matrix of the face when y is PSD.
func (f *Face) Expand(dst, y *mat.SymDense) {
	n := f.prob.N()
	f.check(y, f.Dim(), "Expand source")
	f.check(dst, n, "Expand destination")
	ry := y.RawSymmetric()
	buf := f.scratch()
	clear(buf)
	for j, r := range f.rest {
		row := ry.Data[(1+j)*ry.Stride:]
		for l := j; l < len(f.rest); l++ {
			c := f.rest[l]
			buf[r*n+c], buf[c*n+r] = row[1+l], row[1+l]
		}
		yg := ry.Data[1+j]
		for s, q := range f.gIdx {
			v := f.gVal[s] * yg
			buf[q*n+r], buf[r*n+q] = v, v
		}
	}
	y00 := ry.Data[0]
	for s, q := range f.gIdx {
		for s2, q2 := range f.gIdx {
			buf[q*n+q2] = y00 * f.gVal[s] * f.gVal[s2]
		}
	}
	f.applyH()
	rd := dst.RawSymmetric()
	for i := range n {
		copy(rd.Data[i*rd.Stride+i:i*rd.Stride+n], buf[i*n+i:(i+1)*n])
	}
}

// scratch returns the N x N scratch, allocating it on first use (the
// block methods Lift and Restrict do not need it).
func (f *Face) scratch() []float64 {
	if f.buf == nil {
		n := f.prob.N()
		f.buf = make([]float64, n*n)
	}
	return f.buf
}

// applyH replaces buf by H buf H.
func (f *Face) applyH() {
	p := f.prob
	n := p.N()
	buf, t := f.buf, f.t
	for i, u := range f.hu {
		if u == nil {
			continue
		}
		o, beta := p.Offset[i], f.hbeta[i]
		clear(t)
		for a, ua := range u {
			axpy(ua, buf[(o+a)*n:(o+a+1)*n], t)
		}
		for a, ua := range u {
			axpy(-beta*ua, t, buf[(o+a)*n:(o+a+1)*n])
		}
	}
	for r := range n {
		row := buf[r*n : (r+1)*n]
		for i, u := range f.hu {
			if u == nil {
				continue
			}
			blk := row[p.Offset[i] : p.Offset[i]+len(u)]
			s := 0.0
			for a, ua := range u {
				s += ua * blk[a]
			}
			s *= f.hbeta[i]
			for a, ua := range u {
				blk[a] -= s * ua
			}
		}
	}
}

func (f *Face) check(m *mat.SymDense, want int, what string) {
	if m.SymmetricDim() != want {
		panic(fmt.Sprintf("sdr: Face %s has order %d, want %d", what, m.SymmetricDim(), want))
	}
}

// Lift sets dst = U w for a d x k block w (dst N x k): a point of the face
// coordinates in the coordinates of Xbar, in O(N k).
func (f *Face) Lift(dst, w *mat.Dense) {
	p := f.prob
	dr, wr := dst.RawMatrix(), w.RawMatrix()
	if dr.Rows != p.N() || wr.Rows != f.Dim() || dr.Cols != wr.Cols {
		panic(fmt.Sprintf("sdr: Face.Lift of %d x %d into %d x %d", wr.Rows, wr.Cols, dr.Rows, dr.Cols))
	}
	k := wr.Cols
	row := func(m blas64.General, i int) []float64 { return m.Data[i*m.Stride : i*m.Stride+k] }
	w0 := row(wr, 0)
	for s, q := range f.gIdx {
		out := row(dr, q)
		for c := range out {
			out[c] = f.gVal[s] * w0[c]
		}
	}
	for j, q := range f.rest {
		copy(row(dr, q), row(wr, 1+j))
	}
	f.applyHRows(dr)
}

// Restrict sets dst = U^T x for an N x k block x (dst d x k), in O(N k). x
// is left unchanged (it is used as scratch and restored).
func (f *Face) Restrict(dst, x *mat.Dense) {
	p := f.prob
	dr, xr := dst.RawMatrix(), x.RawMatrix()
	if xr.Rows != p.N() || dr.Rows != f.Dim() || dr.Cols != xr.Cols {
		panic(fmt.Sprintf("sdr: Face.Restrict of %d x %d into %d x %d", xr.Rows, xr.Cols, dr.Rows, dr.Cols))
	}
	k := xr.Cols
	row := func(m blas64.General, i int) []float64 { return m.Data[i*m.Stride : i*m.Stride+k] }
	f.applyHRows(xr)
	d0 := row(dr, 0)
	clear(d0)
	for s, q := range f.gIdx {
		axpy(f.gVal[s], row(xr, q), d0)
	}
	for j, q := range f.rest {
		copy(row(dr, 1+j), row(xr, q))
	}
	f.applyHRows(xr)
}

// applyHRows replaces the N x k block m by H m (H is its own inverse).
func (f *Face) applyHRows(m blas64.General) {
	p := f.prob
	k := m.Cols
	if cap(f.tk) < k {
		f.tk = make([]float64, k)
	}
	t := f.tk[:k]
	for i, u := range f.hu {
		if u == nil {
			continue
		}
		o := p.Offset[i]
		if k == 1 {
			// One column (Lanczos' single vectors): scalars, no calls.
			col := m.Data[o*m.Stride:]
			s := 0.0
			for a, ua := range u {
				s += ua * col[a*m.Stride]
			}
			for a, ua := range u {
				col[a*m.Stride] += -f.hbeta[i] * ua * s
			}
			continue
		}
		clear(t)
		for a, ua := range u {
			axpy(ua, m.Data[(o+a)*m.Stride:(o+a)*m.Stride+k], t)
		}
		for a, ua := range u {
			axpy(-f.hbeta[i]*ua, t, m.Data[(o+a)*m.Stride:(o+a)*m.Stride+k])
		}
	}
}
