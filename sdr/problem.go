package sdr

import (
	"errors"
	"fmt"

	"github.com/sdrmap/sdrmap/model"
)

// ErrInfeasible reports a model without any assignment of finite energy,
// detected while building the relaxation.
var ErrInfeasible = errors.New("infeasible model")

// Edge is an edge block of the relaxation: variables I < J of the Problem,
// block (I,J) of Xbar with Card[I] x Card[J] entries, row-major.
type Edge struct {
	I, J   int
	Source int // index of the edge in Pairwise.Edges

	// Forbidden[a*Card[J]+b] marks a forbidden pair (reduced numbering): an
	// E4 row instead of a P entry. Nil when no pair is forbidden.
	Forbidden []bool
	Z         int // index in P(Xbar) of the edge's first allowed entry
	Y4        int // index in y of the edge's first E4 row
}

// Layout gives the position of each constraint family in y (docs/relaxation.md, Relaxation):
// y = [E0 | E1_i | E2_ia | E3_iab (a<b) | E4]. E0 is y[0].
type Layout struct {
	E1, E2, E3, E4 int   // first index of each family
	E3Start        []int // E3Start[i]: first E3 row of variable i
	Len            int   // len(y)
}

// Problem is the SDR of a pairwise model (docs/relaxation.md, Relaxation) with forbidden entries handled
// as described in the package doc. It is read-only after Build.
type Problem struct {
	Pairwise *model.Pairwise // the source; variable i of the Problem is variable i of the Pairwise

	Card   []int   // Card[i]: allowed states of variable i
	States [][]int // States[i][a]: the Pairwise's number of reduced state a
	Offset []int   // Offset[i]: index of (i,0) in Xbar; Offset[n] = N
	Edges  []Edge  // one per Pairwise edge, same order

	Y    Layout
	NumZ int // len(z) = number of allowed edge entries

	C     *Sym      // cost, unary on the diagonal (docs/relaxation.md, Relaxation)
	B     []float64 // right-hand side b, len Y.Len
	Const float64   // the Pairwise's Const: energy = <C,Xbar> - Const

	adj   [][]Incidence // per variable, its edges
	split int           // first variable of the second half for 2-way parallel work
}

// Incidence is an edge seen from one endpoint.
type Incidence struct {
	Edge  int  // index into Edges
	First bool // this endpoint is the edge's I
}

// Incident returns the edges at variable i in the order of Edges (shared:
// not to be modified).
func (p *Problem) Incident(i int) []Incidence { return p.adj[i] }

// N returns the order of Xbar, 1 + sum_i Card[i].
func (p *Problem) N() int { return p.Offset[len(p.Card)] }

// NumVars returns n, the number of variables (trace(Xbar) = n+1 on the
// feasible set).
func (p *Problem) NumVars() int { return len(p.Card) }

// IndexE1 returns the y index of E1_i.
func (p *Problem) IndexE1(i int) int { return p.Y.E1 + i }

// IndexE2 returns the y index of E2_ia.
func (p *Problem) IndexE2(i, a int) int { return p.Y.E2 + p.Offset[i] - 1 + a }

// IndexE3 returns the y index of E3_iab, a < b.
func (p *Problem) IndexE3(i, a, b int) int {
	m := p.Card[i]
	return p.Y.E3Start[i] + a*m - a*(a+1)/2 + b - a - 1
}

// Build returns the SDR of p. It fails with ErrInfeasible when a variable
// has no allowed state or an edge forbids every pair of allowed states.
func Build(p *model.Pairwise) (*Problem, error) {
	n := p.NumVars()
	prob := &Problem{Pairwise: p, Card: make([]int, n), States: make([][]int, n), Offset: make([]int, n+1), Const: p.Const}
	prob.Offset[0] = 1
	for i := range n {
		for a := range p.Card[i] {
			if !p.Unary[i].IsForbidden(a) {
				prob.States[i] = append(prob.States[i], a)
			}
		}
		if len(prob.States[i]) == 0 {
			return nil, fmt.Errorf("%w: every state of variable %d is forbidden", ErrInfeasible, i)
		}
		prob.Card[i] = len(prob.States[i])
		prob.Offset[i+1] = prob.Offset[i] + prob.Card[i]
	}
	prob.Y.E1 = 1
	prob.Y.E2 = 1 + n
	prob.Y.E3 = prob.Y.E2 + prob.N() - 1
	prob.Y.E3Start = make([]int, n)
	k := prob.Y.E3
	for i, m := range prob.Card {
		prob.Y.E3Start[i] = k
		k += m * (m - 1) / 2
	}
	prob.Y.E4 = k
	prob.Edges = make([]Edge, len(p.Edges))
	for e := range p.Edges {
		pe := &p.Edges[e]
		ed := Edge{I: pe.I, J: pe.J, Source: e, Z: prob.NumZ, Y4: k}
		mi, mj := prob.Card[pe.I], prob.Card[pe.J]
		bad := 0
		for a, sa := range prob.States[pe.I] {
			for b, sb := range prob.States[pe.J] {
				if pe.IsForbidden(sa*p.Card[pe.J] + sb) {
					if ed.Forbidden == nil {
						ed.Forbidden = make([]bool, mi*mj)
					}
					ed.Forbidden[a*mj+b] = true
					bad++
				}
			}
		}
		if bad == mi*mj {
			return nil, fmt.Errorf("%w: edge (%d,%d) forbids every pair of allowed states", ErrInfeasible, pe.I, pe.J)
		}
		k += bad
		prob.NumZ += mi*mj - bad
		prob.Edges[e] = ed
	}
	prob.Y.Len = k
	prob.B = make([]float64, k)
	prob.B[0] = 1
	for i := range n {
		prob.B[prob.IndexE1(i)] = 1
	}
	prob.adj = make([][]Incidence, n)
	for e := range prob.Edges {
		ed := &prob.Edges[e]
		prob.adj[ed.I] = append(prob.adj[ed.I], Incidence{Edge: e, First: true})
		prob.adj[ed.J] = append(prob.adj[ed.J], Incidence{Edge: e, First: false})
	}
	prob.split = prob.balance()
	prob.C = prob.cost()
	return prob, nil
}

// cost returns C of docs/relaxation.md, Relaxation: C[ia,ia] = -w_i(a), C[ia,jb] = C[jb,ia] = -W_ij(a,b)/2
// (0 on forbidden pairs, which E4 pins to 0).
func (p *Problem) cost() *Sym {
	c := NewSym(p)
	for i, m := range p.Card {
		for a, s := range p.States[i] {
			c.Diag[i][a*m+a] = -p.Pairwise.Unary[i].Log[s]
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		src := &p.Pairwise.Edges[ed.Source]
		mj, cj := p.Card[ed.J], p.Pairwise.Card[ed.J]
		for a, sa := range p.States[ed.I] {
			for b, sb := range p.States[ed.J] {
				if !src.IsForbidden(sa*cj + sb) {
					c.Edge[e][a*mj+b] = -src.Log[sa*cj+sb] / 2
				}
			}
		}
	}
	return c
}

// balance returns the variable that splits the work of a pattern sweep
// (row 0, diagonal and edge blocks) into two nearly equal halves.
func (p *Problem) balance() int {
	n := len(p.Card)
	work := make([]int, n)
	total := 0
	for i, m := range p.Card {
		w := m + m*m
		for _, in := range p.adj[i] {
			ed := &p.Edges[in.Edge]
			w += p.Card[ed.I] * p.Card[ed.J]
		}
		work[i] = w
		total += w
	}
	acc := 0
	for i, w := range work {
		if 2*(acc+w) > total {
			return i
		}
		acc += w
	}
	return n
}

// Original maps an assignment in reduced numbering (state a of variable i is
// States[i][a]) to the Pairwise's numbering.
func (p *Problem) Original(x []int) []int {
	out := make([]int, len(x))
	for i, a := range x {
		out[i] = p.States[i][a]
	}
	return out
}

// Marginals returns x_ia = Xbar[0,ia] from row 0 of Xbar, per variable in
// the Pairwise's numbering (0 for removed states).
func (p *Problem) Marginals(row0 []float64) [][]float64 {
	out := make([][]float64, len(p.Card))
	for i, st := range p.States {
		out[i] = make([]float64, p.Pairwise.Card[i])
		for a, s := range st {
			out[i][s] = row0[p.Offset[i]+a]
		}
	}
	return out
}

// Argmax returns the assignment, in the Pairwise's numbering, that takes for
// every variable the state of largest x_ia = Xbar[0,ia] (first on ties).
func (p *Problem) Argmax(row0 []float64) []int {
	x := make([]int, len(p.Card))
	for i, m := range p.Card {
		best := 0
		for a := 1; a < m; a++ {
			if row0[p.Offset[i]+a] > row0[p.Offset[i]+best] {
				best = a
			}
		}
		x[i] = p.States[i][best]
	}
	return x
}
