package sdr

import "fmt"

// A returns A(X) (docs/relaxation.md, Relaxation): <A_k, X> for every row of y, into dst (of
// length Y.Len; allocated when nil). X is read on the pattern only.
func (p *Problem) A(x *Sym, dst []float64) []float64 {
	dst = p.vec(dst, p.Y.Len, "A")
	dst[0] = x.Row0[0]
	for i, m := range p.Card {
		o := p.Offset[i]
		sum := 0.0
		d := x.Diag[i]
		e2 := p.IndexE2(i, 0)
		for a := range m {
			sum += x.Row0[o+a]
			dst[e2+a] = d[a*m+a] - x.Row0[o+a]
		}
		dst[p.IndexE1(i)] = sum
		k := p.Y.E3Start[i]
		for a := range m {
			for b := a + 1; b < m; b++ {
				dst[k] = (d[a*m+b] + d[b*m+a]) / 2
				k++
			}
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		if ed.Forbidden == nil {
			continue
		}
		k := ed.Y4
		for q, f := range ed.Forbidden {
			if f {
				dst[k] = x.Edge[e][q]
				k++
			}
		}
	}
	return dst
}

// AStar adds alpha A*(y) = alpha sum_k y_k A_k to dst.
func (p *Problem) AStar(dst *Sym, alpha float64, y []float64) {
	if len(y) != p.Y.Len {
		panic(fmt.Sprintf("sdr: AStar of %d values, want %d", len(y), p.Y.Len))
	}
	dst.Row0[0] += alpha * y[0]
	for i, m := range p.Card {
		o := p.Offset[i]
		d := dst.Diag[i]
		h := alpha * y[p.IndexE1(i)] / 2
		e2 := p.IndexE2(i, 0)
		for a := range m {
			dst.Row0[o+a] += h - alpha*y[e2+a]/2
			d[a*m+a] += alpha * y[e2+a]
		}
		k := p.Y.E3Start[i]
		for a := range m {
			for b := a + 1; b < m; b++ {
				v := alpha * y[k] / 2
				d[a*m+b] += v
				d[b*m+a] += v
				k++
			}
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		if ed.Forbidden == nil {
			continue
		}
		k := ed.Y4
		for q, f := range ed.Forbidden {
			if f {
				dst.Edge[e][q] += alpha * y[k] / 2
				k++
			}
		}
	}
}

// P returns P(X): X[ia,jb] for every allowed edge entry, into dst (of length
// NumZ; allocated when nil).
func (p *Problem) P(x *Sym, dst []float64) []float64 {
	dst = p.vec(dst, p.NumZ, "P")
	for e := range p.Edges {
		ed := &p.Edges[e]
		blk := x.Edge[e]
		if ed.Forbidden == nil {
			copy(dst[ed.Z:ed.Z+len(blk)], blk)
			continue
		}
		k := ed.Z
		for q, f := range ed.Forbidden {
			if !f {
				dst[k] = blk[q]
				k++
			}
		}
	}
	return dst
}

// PStar adds alpha P*(z) to dst: alpha z/2 at [ia,jb] and [jb,ia], so that
// P P* = I/2.
func (p *Problem) PStar(dst *Sym, alpha float64, z []float64) {
	if len(z) != p.NumZ {
		panic(fmt.Sprintf("sdr: PStar of %d values, want %d", len(z), p.NumZ))
	}
	h := alpha / 2
	for e := range p.Edges {
		ed := &p.Edges[e]
		blk := dst.Edge[e]
		if ed.Forbidden == nil {
			axpy(h, z[ed.Z:ed.Z+len(blk)], blk)
			continue
		}
		k := ed.Z
		for q, f := range ed.Forbidden {
			if !f {
				blk[q] += h * z[k]
				k++
			}
		}
	}
}

// ApplyAAtInv replaces v by (A A*)^{-1} v in O(len(v)) (docs/relaxation.md, Operators): E0 is
// orthonormal, E3 and E4 rows have Gram diagonal 1/2, and per variable the
// block over (E1_i, E2_i.) has the inverse
// [[3/m, (1/m) 1^T], [(1/m) 1, (2/3) I + (1/(3m)) 1 1^T]].
func (p *Problem) ApplyAAtInv(v []float64) {
	if len(v) != p.Y.Len {
		panic(fmt.Sprintf("sdr: ApplyAAtInv of %d values, want %d", len(v), p.Y.Len))
	}
	for i, m := range p.Card {
		fm := float64(m)
		k1 := p.IndexE1(i)
		e2 := v[p.IndexE2(i, 0) : p.IndexE2(i, 0)+m]
		u := v[k1]
		s := 0.0
		for _, w := range e2 {
			s += w
		}
		v[k1] = (3*u + s) / fm
		c := (u + s/3) / fm
		for a, w := range e2 {
			e2[a] = 2*w/3 + c
		}
	}
	for k := p.Y.E3; k < p.Y.Len; k++ {
		v[k] *= 2
	}
}

// DualSlack sets dst = S' = C + A*(y) - P*(z), the dual slack of docs/relaxation.md, Protocol (PSD
// exactly when (y, z) is dual feasible).
func (p *Problem) DualSlack(dst *Sym, y, z []float64) {
	dst.CopyFrom(p.C)
	p.AStar(dst, 1, y)
	p.PStar(dst, -1, z)
}

func (p *Problem) vec(dst []float64, n int, what string) []float64 {
	if dst == nil {
		return make([]float64, n)
	}
	if len(dst) != n {
		panic(fmt.Sprintf("sdr: %s into %d values, want %d", what, len(dst), n))
	}
	return dst
}
