package sdr

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Sym is a symmetric N x N matrix supported on row/column 0, the diagonal
// blocks (i,i) and the edge blocks (i,j) of a Problem (docs/relaxation.md, SDPAD-LR: the pattern of C,
// A*(y) and P*(z)). Create it with NewSym; the slices share one backing
// array and must not be reassigned. A Sym is not safe for concurrent use.
type Sym struct {
	Row0 []float64   // entries [0,k], k = 0..N-1
	Diag [][]float64 // Diag[i]: m_i x m_i block (i,i), row-major (its own symmetric copy)
	Edge [][]float64 // Edge[e]: m_I x m_J block (I,J), row-major; block (J,I) is its transpose

	prob *Problem
	par  parallel // state of the 2-goroutine sweeps of MulMat and PatternOf
}

// NewSym returns the zero matrix on prob's pattern.
func NewSym(prob *Problem) *Sym {
	size := prob.N()
	for _, m := range prob.Card {
		size += m * m
	}
	for e := range prob.Edges {
		ed := &prob.Edges[e]
		size += prob.Card[ed.I] * prob.Card[ed.J]
	}
	data := make([]float64, size)
	s := &Sym{prob: prob, Diag: make([][]float64, len(prob.Card)), Edge: make([][]float64, len(prob.Edges))}
	s.Row0, data = data[:prob.N():prob.N()], data[prob.N():]
	for i, m := range prob.Card {
		s.Diag[i], data = data[:m*m:m*m], data[m*m:]
	}
	for e := range prob.Edges {
		ed := &prob.Edges[e]
		k := prob.Card[ed.I] * prob.Card[ed.J]
		s.Edge[e], data = data[:k:k], data[k:]
	}
	return s
}

// Problem returns the problem whose pattern s lives on.
func (s *Sym) Problem() *Problem { return s.prob }

// each calls f on every stored block: Row0, the diagonal blocks, the edge blocks.
func (s *Sym) each(f func(part []float64)) {
	f(s.Row0)
	for _, d := range s.Diag {
		f(d)
	}
	for _, d := range s.Edge {
		f(d)
	}
}

// Zero sets s to the zero matrix.
func (s *Sym) Zero() {
	s.each(func(part []float64) { clear(part) })
}

// CopyFrom sets s = t (same pattern).
func (s *Sym) CopyFrom(t *Sym) {
	copy(s.Row0, t.Row0)
	for i := range s.Diag {
		copy(s.Diag[i], t.Diag[i])
	}
	for e := range s.Edge {
		copy(s.Edge[e], t.Edge[e])
	}
}

// Dot returns the Frobenius inner product <s,t> = sum_kl s[k,l] t[k,l]
// (off-diagonal entries of row 0 and the edge blocks count twice).
func (s *Sym) Dot(t *Sym) float64 {
	r := s.Row0[0] * t.Row0[0]
	var r0, dg, ed float64
	for k := 1; k < len(s.Row0); k++ {
		r0 += s.Row0[k] * t.Row0[k]
	}
	for i, d := range s.Diag {
		td := t.Diag[i][:len(d)]
		for k, v := range d {
			dg += v * td[k]
		}
	}
	for e, d := range s.Edge {
		te := t.Edge[e][:len(d)]
		for k, v := range d {
			ed += v * te[k]
		}
	}
	return r + dg + 2*(r0+ed)
}

// Norm returns the Frobenius norm of s.
func (s *Sym) Norm() float64 { return math.Sqrt(s.Dot(s)) }

// Scale sets s = alpha s.
func (s *Sym) Scale(alpha float64) {
	s.each(func(part []float64) {
		for k := range part {
			part[k] *= alpha
		}
	})
}

// AddScaled sets s = s + alpha t.
func (s *Sym) AddScaled(alpha float64, t *Sym) {
	axpy(alpha, t.Row0, s.Row0)
	for i := range s.Diag {
		axpy(alpha, t.Diag[i], s.Diag[i])
	}
	for e := range s.Edge {
		axpy(alpha, t.Edge[e], s.Edge[e])
	}
}

func axpy(alpha float64, x, y []float64) {
	x = x[:len(y)]
	for k := range y {
		y[k] += alpha * x[k]
	}
}

// ToDense returns s as a dense symmetric matrix (zero off the pattern).
func (s *Sym) ToDense() *mat.SymDense {
	d := mat.NewSymDense(s.prob.N(), nil)
	s.AddTo(d, 1)
	return d
}

// AddTo adds alpha s to the dense symmetric matrix d, which must be N x N.
// Only the pattern is touched: O(pattern) work.
func (s *Sym) AddTo(d *mat.SymDense, alpha float64) {
	p := s.prob
	raw := d.RawSymmetric()
	if raw.N != p.N() {
		panic(fmt.Sprintf("sdr: AddTo on a %d x %d matrix, want %d", raw.N, raw.N, p.N()))
	}
	at := func(i, j int) *float64 {
		if i > j {
			i, j = j, i
		}
		return &raw.Data[i*raw.Stride+j]
	}
	for k, v := range s.Row0 {
		*at(0, k) += alpha * v
	}
	for i, m := range p.Card {
		o := p.Offset[i]
		for a := range m {
			for b := a; b < m; b++ {
				*at(o+a, o+b) += alpha * s.Diag[i][a*m+b]
			}
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		oi, oj, mi, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.I], p.Card[ed.J]
		for a := range mi {
			for b := range mj {
				*at(oi+a, oj+b) += alpha * s.Edge[e][a*mj+b]
			}
		}
	}
}

// FromDense sets s to the entries of d on the pattern (d must be N x N).
func (s *Sym) FromDense(d *mat.SymDense) {
	p := s.prob
	raw := d.RawSymmetric()
	if raw.N != p.N() {
		panic(fmt.Sprintf("sdr: FromDense of a %d x %d matrix, want %d", raw.N, raw.N, p.N()))
	}
	at := func(i, j int) float64 {
		if i > j {
			i, j = j, i
		}
		return raw.Data[i*raw.Stride+j]
	}
	copy(s.Row0, raw.Data[:p.N()])
	for i, m := range p.Card {
		o := p.Offset[i]
		for a := range m {
			for b := range m {
				s.Diag[i][a*m+b] = at(o+a, o+b)
			}
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		oi, oj, mj := p.Offset[ed.I], p.Offset[ed.J], p.Card[ed.J]
		for a := range p.Card[ed.I] {
			copy(s.Edge[e][a*mj:(a+1)*mj], raw.Data[(oi+a)*raw.Stride+oj:])
		}
	}
}

// parallel holds what the second goroutine of a sweep needs, so that
// starting it allocates nothing.
type parallel struct {
	once sync.Once
	wg   sync.WaitGroup
	run  func() // the second half of a sweep, created once
	kind int
	acc  []float64      // partial row-0 sums of the second half
	x, d blas64.General // operands of the running sweep
}
