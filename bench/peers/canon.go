package peers

import (
	"slices"

	"github.com/sdrmap/sdrmap/model"
)

// scopesSorted reports whether every factor lists its scope in increasing
// variable order.
func scopesSorted(m *model.Model) bool {
	for i := range m.Factors {
		if !slices.IsSorted(m.Factors[i].Scope) {
			return false
		}
	}
	return true
}

// sortScopes returns m with every factor's scope in increasing order and
// its table permuted to match (same potentials, same energies).
//
// toulbar2 1.1.1 mis-reads a UAI file in which two factors share a variable
// pair (or triple) listed in different orders: it merges them into the
// constraint created for the first one and then lays the later table out in
// that first order, transposed. Sorted scopes avoid it.
func sortScopes(m *model.Model) *model.Model {
	out := &model.Model{Card: m.Card, Bayes: m.Bayes, Factors: make([]model.Factor, len(m.Factors))}
	for fi := range m.Factors {
		f := &m.Factors[fi]
		if slices.IsSorted(f.Scope) {
			out.Factors[fi] = *f
			continue
		}
		k := len(f.Scope)
		perm := make([]int, k) // perm[j]: position in f.Scope of the j-th smallest variable
		for j := range perm {
			perm[j] = j
		}
		slices.SortFunc(perm, func(a, b int) int { return f.Scope[a] - f.Scope[b] })
		scope := make([]int, k)
		for j, p := range perm {
			scope[j] = f.Scope[p]
		}
		// strides of the old layout (last scope variable fastest)
		stride := make([]int, k)
		s := 1
		for j := k - 1; j >= 0; j-- {
			stride[j] = s
			s *= m.Card[f.Scope[j]]
		}
		g := model.Factor{Scope: scope, Table: model.Table{Log: make([]float64, len(f.Log))}}
		idx := make([]int, k) // multi-index in the new order
		for n := range g.Log {
			old := 0
			for j, p := range perm {
				old += idx[j] * stride[p]
			}
			if f.IsForbidden(old) {
				g.Forbid(n)
			} else {
				g.Log[n] = f.Log[old]
			}
			for j := k - 1; j >= 0; j-- {
				idx[j]++
				if idx[j] < m.Card[scope[j]] {
					break
				}
				idx[j] = 0
			}
		}
		out.Factors[fi] = g
	}
	return out
}
