// Package model holds discrete Markov random fields: variables with their own
// cardinalities, factors of any arity stored as log potentials with exact
// forbidden entries, the energy of an assignment, and the pairwise view that
// the solvers consume (see pairwise.go).
//
// Conventions (docs/relaxation.md, Model): a factor table holds phi > 0 as w = ln phi; phi = 0
// is a forbidden entry, kept as a flag and never as -Inf. The energy of a full
// assignment is E(x) = -sum_f ln phi_f(x_f), lower is better, +Inf when any
// forbidden entry is used; log10 P~(x) = sum_f log10 phi_f(x_f).
package model

import (
	"fmt"
	"math"

	"github.com/sdrmap/sdrmap/internal/fsum"
)

// Table is a dense potential table in log space. Log[k] = ln phi for entry k;
// Forbidden[k] marks phi = 0 (then Log[k] is 0 and must be ignored).
// Forbidden is nil when no entry is forbidden.
type Table struct {
	Log       []float64
	Forbidden []bool
}

// IsForbidden reports whether entry k is forbidden.
func (t *Table) IsForbidden(k int) bool { return t.Forbidden != nil && t.Forbidden[k] }

// ForbiddenCount returns the number of forbidden entries.
func (t *Table) ForbiddenCount() int {
	c := 0
	for _, f := range t.Forbidden {
		if f {
			c++
		}
	}
	return c
}

// Forbid marks entry k as forbidden.
func (t *Table) Forbid(k int) {
	if t.Forbidden == nil {
		t.Forbidden = make([]bool, len(t.Log))
	}
	t.Forbidden[k] = true
	t.Log[k] = 0
}

// Factor is a potential over an ordered scope of distinct variables. The table
// is indexed with the last scope variable varying fastest (UAI order).
type Factor struct {
	Scope []int
	Table
}

// Model is a discrete MRF (or a Bayesian network read as one: its CPTs are
// factors).
type Model struct {
	Card    []int    // Card[i] >= 1: number of states of variable i
	Factors []Factor // in file order
	Bayes   bool     // read from a BAYES file
}

// NumVars returns the number of variables.
func (m *Model) NumVars() int { return len(m.Card) }

// Index returns the table index of assignment x (full, indexed by variable)
// in factor f.
func (m *Model) Index(f *Factor, x []int) int {
	k := 0
	for _, v := range f.Scope {
		k = k*m.Card[v] + x[v]
	}
	return k
}

// Check verifies that x is a full assignment within the cardinalities.
func (m *Model) Check(x []int) error {
	if len(x) != len(m.Card) {
		return fmt.Errorf("assignment has %d values, model has %d variables", len(x), len(m.Card))
	}
	for i, v := range x {
		if v < 0 || v >= m.Card[i] {
			return fmt.Errorf("variable %d has value %d, outside 0..%d", i, v, m.Card[i]-1)
		}
	}
	return nil
}

// LogScore returns sum_f ln phi_f(x_f) with compensated summation, and false
// if x uses a forbidden entry (then the score is -Inf in exact arithmetic).
// x must pass Check.
func (m *Model) LogScore(x []int) (float64, bool) {
	var s fsum.Sum
	for fi := range m.Factors {
		f := &m.Factors[fi]
		k := m.Index(f, x)
		if f.IsForbidden(k) {
			return 0, false
		}
		s.Add(f.Log[k])
	}
	return s.Value(), true
}

// Energy returns E(x) = -sum_f ln phi_f(x_f), or +Inf if x uses a forbidden
// entry. x must pass Check.
func (m *Model) Energy(x []int) float64 {
	s, ok := m.LogScore(x)
	if !ok {
		return math.Inf(1)
	}
	return 0 - s // +0, not -0, for an empty sum
}

// Log10 converts an energy to the UAI score log10 P~(x) = -E / ln 10.
func Log10(energy float64) float64 { return -energy / math.Ln10 }

// MaxArity returns the largest factor arity (0 for a model without factors).
func (m *Model) MaxArity() int {
	a := 0
	for i := range m.Factors {
		a = max(a, len(m.Factors[i].Scope))
	}
	return a
}

// SDRDimension returns N = 1 + sum_i m_i, the order of the lifted matrix of
// the relaxation (docs/relaxation.md, Lifting).
func SDRDimension(card []int) int {
	n := 1
	for _, c := range card {
		n += c
	}
	return n
}
