package sdr

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Complement returns a dual point (yc, zc >= 0) complementary to the
// integral point Xhat = v v^T of an assignment x (the Pairwise's
// numbering), v = e_0 + sum_i e_{i,x_i}: its slack S = C + A*(yc) - P*(zc)
// has S v = 0 and zc vanishes on the support of P(Xhat), so that its dual
// objective -<b,yc> equals <C,Xhat>, the energy of x plus Const.
//
// It changes (y, z) by as little as the closed form below allows: zc is z
// with the entries on Xhat's support set to 0, and with r = S' v for the
// slack S' of (y, zc) and c_i = x_i,
//
//	yc[E3_i{a,c_i}] -= 2 r_ia (a != c_i),  yc[E2_ic_i] -= 2 r_ic_i,
//	yc[E0] -= r_0 + sum_i r_ic_i,
//
// which cancels r exactly: the residual of S v that the solver leaves,
// small near a solution, moves into the diagonal blocks and row 0.
//
// Ties: when changing x_i alone to a keeps the energy (a tie), the point
// v_a of that assignment is optimal too, and a dual solution must also
// vanish on it. For every tie at a variable with no tied neighbour and no
// forbidden pair on its edges, zc also vanishes on v_a's support and the
// slack maps e_ia - e_ic_i into the span of the v_j, which the face
// ignores (tieZ, tieY): otherwise each such tie leaves a negative
// eigenvalue of the order of the solver's error.
//
// When the SDR is tight at x, every dual solution (y*, z*) is
// complementary to Xhat, so near one the slack of (yc, zc) is PSD up to
// the solver's error on the complement of v instead of along v, and the
// certified bound (docs/relaxation.md) Certify gives from it is -<b,yc> = E(x) + Const up to (n+1)
// times that error's negative part: the certificate of x's optimality.
// It is a valid bound for every (y, z) and x. x must have finite energy
// (an error otherwise).
func (p *Problem) Complement(y, z []float64, x []int) (yc, zc []float64, err error) {
	if err := p.checkDual(y, z); err != nil {
		return nil, nil, err
	}
	if len(x) != p.NumVars() {
		return nil, nil, fmt.Errorf("sdr: complement of an assignment of %d variables, want %d", len(x), p.NumVars())
	}
	c, err := p.reduce(x)
	if err != nil {
		return nil, nil, err
	}
	zc = append([]float64(nil), z...)
	for e := range p.Edges {
		ed := &p.Edges[e]
		k, ok := ed.zIndex(c[ed.I]*p.Card[ed.J] + c[ed.J])
		if !ok {
			return nil, nil, fmt.Errorf("sdr: complement of an assignment with forbidden pair (%d,%d) on variables (%d,%d)", x[ed.I], x[ed.J], ed.I, ed.J)
		}
		zc[k] = 0
	}
	ties := p.ties(c)
	for _, t := range ties {
		p.tieZ(zc, c, t)
	}
	s := NewSym(p)
	p.DualSlack(s, y, zc)
	v := p.point(c)
	r := mat.NewDense(p.N(), 1, nil)
	s.MulMat(r, v)

	yc = append([]float64(nil), y...)
	sum := 0.0
	for i, ci := range c {
		o := p.Offset[i]
		for a := range p.Card[i] {
			ria := r.At(o+a, 0)
			if a == ci {
				yc[p.IndexE2(i, a)] -= 2 * ria
				sum += ria
				continue
			}
			yc[p.IndexE3(i, min(a, ci), max(a, ci))] -= 2 * ria
		}
	}
	yc[0] -= r.At(0, 0) + sum
	if len(ties) > 0 {
		p.DualSlack(s, yc, zc)
		for _, t := range ties {
			p.tieY(yc, s, c[t.v], t)
		}
	}
	return yc, zc, nil
}

// tie is a variable v whose states alt give x the same energy as c_v: the
// points v_a = v + e_{v,a} - e_{v,c_v} are as optimal as v.
type tie struct {
	v   int
	alt []int
}

// ties returns the ties of x (reduced states c) that Complement handles:
// variables with no handled neighbour and no forbidden pair on their edges,
// whose local energy C[ia,ia] + 2 sum_j C[ia,jc_j] equals that of c_i up
// to rounding.
func (p *Problem) ties(c []int) []tie {
	var out []tie
	handled := make([]bool, len(c))
	local := make([]float64, 0, 16)
	for i, ci := range c {
		ok := true
		for _, inc := range p.adj[i] {
			ed := &p.Edges[inc.Edge]
			ok = ok && !handled[ed.I] && !handled[ed.J] && ed.Forbidden == nil
		}
		if !ok {
			continue
		}
		m := p.Card[i]
		local = local[:0]
		for a := range m {
			local = append(local, p.C.Diag[i][a*m+a])
		}
		for _, inc := range p.adj[i] {
			ed := &p.Edges[inc.Edge]
			for a := range m {
				if inc.First {
					local[a] += 2 * p.C.Edge[inc.Edge][a*p.Card[ed.J]+c[ed.J]]
				} else {
					local[a] += 2 * p.C.Edge[inc.Edge][c[ed.I]*m+a]
				}
			}
		}
		var alt []int
		for a, l := range local {
			if a != ci && math.Abs(l-local[ci]) <= 1e-12*(1+math.Abs(local[ci])) {
				alt = append(alt, a)
			}
		}
		if alt != nil {
			handled[i] = true
			out = append(out, tie{v: i, alt: alt})
		}
	}
	return out
}

// tieZ makes z complementary to every v_a of tie t and gives the columns
// (i,a) and (i,c_i) of the slack equal differences over each neighbour's
// block j: with kappa_j = C[jc_j,ia] - C[jc_j,ic_i], z[ia,jb] - z[ic_i,jb]
// = 2 (C[jb,ia] - C[jb,ic_i] - kappa_j) for b != c_j (z[ic_i,jb] as close to
// the mean of what the pairs ask as z >= 0 allows). Then S (e_ia -
// e_ic_i) is constant on every neighbour's block: a combination of the
// v_j, which the face ignores.
func (p *Problem) tieZ(z []float64, c []int, t tie) {
	i := t.v
	m, ci := p.Card[i], c[i]
	delta := make([]float64, len(t.alt))
	for _, inc := range p.adj[i] {
		ed := &p.Edges[inc.Edge]
		blk := p.C.Edge[inc.Edge]
		j, mj := ed.J, p.Card[ed.J]
		if !inc.First {
			j, mj = ed.I, p.Card[ed.I]
		}
		// q returns the index in the edge block of (ia, jb).
		q := func(a, b int) int {
			if inc.First {
				return a*mj + b
			}
			return b*m + a
		}
		cj := c[j]
		for _, a := range t.alt {
			z[ed.Z+q(a, cj)] = 0
		}
		for b := range mj {
			if b == cj {
				continue
			}
			lo, mean := 0.0, z[ed.Z+q(ci, b)]
			for k, a := range t.alt {
				kappa := blk[q(a, cj)] - blk[q(ci, cj)]
				delta[k] = 2 * (blk[q(a, b)] - blk[q(ci, b)] - kappa)
				lo = max(lo, -delta[k])
				mean += z[ed.Z+q(a, b)] - delta[k]
			}
			zc := max(lo, mean/float64(len(t.alt)+1))
			z[ed.Z+q(ci, b)] = zc
			for k, a := range t.alt {
				z[ed.Z+q(a, b)] = zc + delta[k]
			}
		}
	}
}

// tieY sets, for the slack s of a dual point that already annihilates v,
// the off-diagonal entries (a',a) of block i, a an alternative of tie t and
// a' != a, c (E3 rows, which S v does not read), so that S (e_ia - e_ic)
// is constant on block i too: S[a'a] - S[a'c] = S[ca] - S[cc]. Row 0 and
// the entries (a,a), (a,c) then agree by the tie itself.
func (p *Problem) tieY(y []float64, s *Sym, ci int, t tie) {
	i, m := t.v, p.Card[t.v]
	d := s.Diag[i]
	for k, a := range t.alt {
		for ap := range m {
			if ap == ci || ap == a || slices.Contains(t.alt[:k], ap) {
				continue
			}
			want := d[ap*m+ci] + d[ci*m+a] - d[ci*m+ci]
			y[p.IndexE3(i, min(a, ap), max(a, ap))] += 2 * (want - d[ap*m+a])
		}
	}
}

// Point returns the lifted integral point v = e_0 + sum_i e_{i,x_i} (N x
// 1) of an assignment x in the Pairwise's numbering: Xbar = v v^T.
func (p *Problem) Point(x []int) (*mat.Dense, error) {
	if len(x) != p.NumVars() {
		return nil, fmt.Errorf("sdr: point of an assignment of %d variables, want %d", len(x), p.NumVars())
	}
	c, err := p.reduce(x)
	if err != nil {
		return nil, err
	}
	return p.point(c), nil
}

// point is Point for reduced states.
func (p *Problem) point(c []int) *mat.Dense {
	v := mat.NewDense(p.N(), 1, nil)
	v.Set(0, 0, 1)
	for i, a := range c {
		v.Set(p.Offset[i]+a, 0, 1)
	}
	return v
}

// reduce maps an assignment in the Pairwise's numbering to reduced states,
// failing on a removed (forbidden) state or one out of range.
func (p *Problem) reduce(x []int) ([]int, error) {
	c := make([]int, len(x))
	for i, s := range x {
		c[i] = -1
		for a, t := range p.States[i] {
			if t == s {
				c[i] = a
				break
			}
		}
		if c[i] < 0 {
			return nil, fmt.Errorf("sdr: state %d of variable %d is forbidden or out of range", s, i)
		}
	}
	return c, nil
}

// zIndex returns the index in z of the edge's entry q (row-major in the
// reduced block), false when the entry is forbidden.
func (ed *Edge) zIndex(q int) (int, bool) {
	if ed.Forbidden == nil {
		return ed.Z + q, true
	}
	if ed.Forbidden[q] {
		return 0, false
	}
	k := ed.Z
	for _, f := range ed.Forbidden[:q] {
		if !f {
			k++
		}
	}
	return k, true
}
