package model

import (
	"fmt"
	"math"
	"sort"

	"github.com/sdrmap/sdrmap/internal/fsum"
)

// Observation clamps variable Var to state Value.
type Observation struct{ Var, Value int }

// Evidence is a set of observations, each variable at most once.
type Evidence []Observation

// Clamps returns, per variable of m, the observed value or -1, and checks
// that every observation is in range and no variable is observed twice.
func (e Evidence) Clamps(m *Model) ([]int, error) {
	cl := make([]int, m.NumVars())
	for i := range cl {
		cl[i] = -1
	}
	for _, o := range e {
		if o.Var < 0 || o.Var >= len(cl) {
			return nil, fmt.Errorf("evidence on variable %d, model has variables 0..%d", o.Var, len(cl)-1)
		}
		if o.Value < 0 || o.Value >= m.Card[o.Var] {
			return nil, fmt.Errorf("evidence sets variable %d to %d, outside 0..%d", o.Var, o.Value, m.Card[o.Var]-1)
		}
		if cl[o.Var] >= 0 && cl[o.Var] != o.Value {
			return nil, fmt.Errorf("evidence sets variable %d twice (%d and %d)", o.Var, cl[o.Var], o.Value)
		}
		cl[o.Var] = o.Value
	}
	return cl, nil
}

// Edge is a pairwise table between free variables I < J, indexed
// Log[a*Card[J]+b] for states a of I and b of J.
type Edge struct {
	I, J int
	Table
}

// Pairwise is the pairwise view of a model after evidence: the objective
// f(x) = Const + sum_i w_i(x_i) + sum_E W_ij(x_i, x_j) over the free
// variables (docs/relaxation.md, Model), with w = ln phi summed over all factors of a scope.
// Free variable i is variable Orig[i] of the source model.
type Pairwise struct {
	Card  []int
	Unary []Table // Unary[i].Log has Card[i] entries
	Edges []Edge  // sorted by (I, J), no duplicates
	Const float64 // ln of arity-0 factors and of factors fixed by evidence

	Orig  []int // free variable -> source variable
	Clamp []int // source variable -> evidence value, or -1 if free
}

// NumVars returns the number of free variables.
func (p *Pairwise) NumVars() int { return len(p.Card) }

// Pairwise builds the pairwise view of m with the evidence folded in: each
// factor is restricted to the observed values, clamped variables leave the
// problem, and what a factor contributes once all its variables are observed
// goes to Const. It fails, naming the factor, if a factor still has arity > 2
// after conditioning, and if the evidence itself uses a forbidden entry.
func (m *Model) Pairwise(ev Evidence) (*Pairwise, error) {
	clamp, err := ev.Clamps(m)
	if err != nil {
		return nil, err
	}
	p := &Pairwise{Clamp: clamp}
	newIdx := make([]int, m.NumVars())
	for v, c := range clamp {
		newIdx[v] = -1
		if c < 0 {
			newIdx[v] = len(p.Orig)
			p.Orig = append(p.Orig, v)
			p.Card = append(p.Card, m.Card[v])
		}
	}
	p.Unary = make([]Table, len(p.Card))
	for i, c := range p.Card {
		p.Unary[i].Log = make([]float64, c)
	}
	var cst fsum.Sum
	edges := map[[2]int]int{}
	for fi := range m.Factors {
		f := &m.Factors[fi]
		free, sub := m.condition(f, clamp)
		switch len(free) {
		case 0:
			if sub.IsForbidden(0) {
				return nil, fmt.Errorf("factor %d forbids the observed values: %w", fi, ErrInfeasible)
			}
			cst.Add(sub.Log[0])
		case 1:
			addTable(&p.Unary[newIdx[free[0]]], &sub, false, 0, 0)
		case 2:
			i, j := newIdx[free[0]], newIdx[free[1]]
			swap := i > j
			if swap {
				i, j = j, i
			}
			k, ok := edges[[2]int{i, j}]
			if !ok {
				k = len(p.Edges)
				edges[[2]int{i, j}] = k
				p.Edges = append(p.Edges, Edge{I: i, J: j, Table: Table{Log: make([]float64, p.Card[i]*p.Card[j])}})
			}
			addTable(&p.Edges[k].Table, &sub, swap, p.Card[j], p.Card[i])
		default:
			return nil, fmt.Errorf("factor %d has arity %d (scope %v): the pairwise view needs arity <= 2", fi, len(free), f.Scope)
		}
	}
	p.Const = cst.Value()
	sort.Slice(p.Edges, func(a, b int) bool {
		ea, eb := &p.Edges[a], &p.Edges[b]
		return ea.I < eb.I || (ea.I == eb.I && ea.J < eb.J)
	})
	return p, nil
}

// condition restricts factor f to the clamped values: it returns the free
// scope variables (in scope order) and the table over them.
func (m *Model) condition(f *Factor, clamp []int) ([]int, Table) {
	var free []int
	for _, v := range f.Scope {
		if clamp[v] < 0 {
			free = append(free, v)
		}
	}
	if len(free) == len(f.Scope) {
		return free, f.Table
	}
	size := 1
	for _, v := range free {
		size *= m.Card[v]
	}
	sub := Table{Log: make([]float64, size)}
	x := make([]int, len(f.Scope)) // odometer over the free positions
	for k := 0; k < size; k++ {
		idx, rem := 0, k
		for p := len(f.Scope) - 1; p >= 0; p-- {
			v := f.Scope[p]
			if clamp[v] >= 0 {
				x[p] = clamp[v]
			} else {
				x[p] = rem % m.Card[v]
				rem /= m.Card[v]
			}
		}
		for p, v := range f.Scope {
			idx = idx*m.Card[v] + x[p]
		}
		if f.IsForbidden(idx) {
			sub.Forbid(k)
		} else {
			sub.Log[k] = f.Log[idx]
		}
	}
	return free, sub
}

// addTable adds src into dst (dst += src, forbidden flags or'ed). With
// transpose, src is indexed [b*rows+a] for dst entry [a*cols+b], where dst has
// rows x cols entries.
func addTable(dst, src *Table, transpose bool, cols, rows int) {
	for k := range dst.Log {
		s := k
		if transpose {
			a, b := k/cols, k%cols
			s = b*rows + a
		}
		if src.IsForbidden(s) {
			dst.Forbid(k)
		} else if !dst.IsForbidden(k) {
			dst.Log[k] += src.Log[s]
		}
	}
}

// LogScore returns f(x) for an assignment of the free variables, with
// compensated summation, and false if x uses a forbidden entry.
func (p *Pairwise) LogScore(x []int) (float64, bool) {
	var s fsum.Sum
	s.Add(p.Const)
	for i, a := range x {
		if p.Unary[i].IsForbidden(a) {
			return 0, false
		}
		s.Add(p.Unary[i].Log[a])
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		k := x[ed.I]*p.Card[ed.J] + x[ed.J]
		if ed.IsForbidden(k) {
			return 0, false
		}
		s.Add(ed.Log[k])
	}
	return s.Value(), true
}

// Energy returns -f(x), or +Inf if x uses a forbidden entry. It equals the
// source model's energy of Expand(x).
func (p *Pairwise) Energy(x []int) float64 {
	s, ok := p.LogScore(x)
	if !ok {
		return math.Inf(1)
	}
	return 0 - s // +0, not -0, for an empty sum
}

// Expand returns the full assignment of the source model: x on the free
// variables, the evidence values on the clamped ones.
func (p *Pairwise) Expand(x []int) []int {
	full := make([]int, len(p.Clamp))
	copy(full, p.Clamp)
	for i, v := range p.Orig {
		full[v] = x[i]
	}
	return full
}

// Restrict returns the free-variable part of a full source assignment.
func (p *Pairwise) Restrict(full []int) []int {
	x := make([]int, len(p.Orig))
	for i, v := range p.Orig {
		x[i] = full[v]
	}
	return x
}

// Neighbor is an edge seen from one endpoint: the other variable and the
// edge index; First is true when this endpoint is the edge's I.
type Neighbor struct {
	Var, Edge int
	First     bool
}

// Adjacency returns, per free variable, its incident edges.
func (p *Pairwise) Adjacency() [][]Neighbor {
	adj := make([][]Neighbor, p.NumVars())
	for e := range p.Edges {
		ed := &p.Edges[e]
		adj[ed.I] = append(adj[ed.I], Neighbor{Var: ed.J, Edge: e, First: true})
		adj[ed.J] = append(adj[ed.J], Neighbor{Var: ed.I, Edge: e, First: false})
	}
	return adj
}

// EdgeEntry returns the index into edge e's table for state a of variable
// "from" and state b of the other endpoint.
func (p *Pairwise) EdgeEntry(nb Neighbor, a, b int) int {
	ed := &p.Edges[nb.Edge]
	if nb.First {
		return a*p.Card[ed.J] + b
	}
	return b*p.Card[ed.J] + a
}

// Model returns p as a model over its free variables: one factor per unary
// table and per edge, and a constant factor.
func (p *Pairwise) Model() *Model {
	m := &Model{Card: p.Card}
	m.Factors = append(m.Factors, Factor{Table: Table{Log: []float64{p.Const}}})
	for i, u := range p.Unary {
		m.Factors = append(m.Factors, Factor{Scope: []int{i}, Table: u})
	}
	for _, e := range p.Edges {
		m.Factors = append(m.Factors, Factor{Scope: []int{e.I, e.J}, Table: e.Table})
	}
	return m
}
