package cyclic

import (
	"fmt"
	"math"

	"github.com/sdrmap/sdrmap/model"
)

// Problem is a shift-invariant pairwise model as the reduced relaxation
// reads it: N variables with M states each and the energy
//
//	E(x) = Const + sum_e T_e((x_J - x_I) mod M).
type Problem struct {
	N, M  int
	Const float64
	Edges []Edge
}

// Edge carries the energy T[s] of edge (I, J) when x_J - x_I = s (mod M).
type Edge struct {
	I, J int
	T    []float64
}

// FromPairwise reads p as a Problem. It fails, naming the variable or the
// edge, unless every variable has the same number M >= 2 of states, every
// unary table is constant and every edge table depends on x_J - x_I mod M
// only, with no forbidden entry: the models whose energy is unchanged when
// all states advance by one (model.Model.ShiftInvariant).
func FromPairwise(p *model.Pairwise) (*Problem, error) {
	if p.NumVars() == 0 {
		return nil, fmt.Errorf("cyclic: the model has no free variable")
	}
	m := p.Card[0]
	if m < 2 {
		return nil, fmt.Errorf("cyclic: variable 0 has %d state; at least 2 are needed", m)
	}
	pr := &Problem{N: p.NumVars(), M: m, Const: -p.Const, Edges: make([]Edge, len(p.Edges))}
	for i, c := range p.Card {
		if c != m {
			return nil, fmt.Errorf("cyclic: variable %d has %d states, variable 0 has %d: not shift invariant", i, c, m)
		}
		u := &p.Unary[i]
		if u.ForbiddenCount() > 0 {
			return nil, fmt.Errorf("cyclic: variable %d has a forbidden state: not shift invariant", i)
		}
		for _, v := range u.Log {
			if v != u.Log[0] {
				return nil, fmt.Errorf("cyclic: the unary table of variable %d is not constant: not shift invariant", i)
			}
		}
		pr.Const -= u.Log[0]
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		if ed.ForbiddenCount() > 0 {
			return nil, fmt.Errorf("cyclic: edge (%d, %d) has a forbidden pair of states: not supported", ed.I, ed.J)
		}
		t := make([]float64, m)
		for s := range t {
			t[s] = -ed.Log[s]
		}
		for a := range m {
			for b := range m {
				if -ed.Log[a*m+b] != t[mod(b-a, m)] {
					return nil, fmt.Errorf("cyclic: the table of edge (%d, %d) is not a function of x_%d - x_%d mod %d: not shift invariant", ed.I, ed.J, ed.J, ed.I, m)
				}
			}
		}
		pr.Edges[e] = Edge{I: ed.I, J: ed.J, T: t}
	}
	return pr, nil
}

// Energy returns E(x).
func (p *Problem) Energy(x []int) float64 {
	e := p.Const
	for _, ed := range p.Edges {
		e += ed.T[mod(x[ed.J]-x[ed.I], p.M)]
	}
	return e
}

// scale returns the largest |T_e(s)|, 1 if all are 0.
func (p *Problem) scale() float64 {
	s := 0.0
	for _, ed := range p.Edges {
		for _, t := range ed.T {
			s = max(s, math.Abs(t))
		}
	}
	if s == 0 {
		return 1
	}
	return s
}

func mod(a, m int) int {
	a %= m
	if a < 0 {
		a += m
	}
	return a
}
