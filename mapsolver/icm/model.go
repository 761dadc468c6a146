package icm

import (
	"math"

	"github.com/sdrmap/sdrmap/model"
)

// ImproveModel runs single-variable moves on a model of any arity until
// none helps, in the lexicographic order (number of factors at a forbidden
// entry, energy): a min-conflicts search towards a feasible assignment
// followed by ICM. x (full, in m's numbering) is changed in place; clamp[v]
// >= 0 keeps variable v at that value (nil: none). It returns m.Energy(x),
// which never exceeds the energy of the input.
func ImproveModel(m *model.Model, x []int, clamp []int) float64 {
	byVar := make([][]int, m.NumVars())
	for fi := range m.Factors {
		for _, v := range m.Factors[fi].Scope {
			byVar[v] = append(byVar[v], fi)
		}
	}
	// local returns the conflicts and the energy of the factors of v.
	local := func(v int) (int, float64) {
		bad, e := 0, 0.0
		for _, fi := range byVar[v] {
			f := &m.Factors[fi]
			k := m.Index(f, x)
			if f.IsForbidden(k) {
				bad++
			} else {
				e -= f.Log[k]
			}
		}
		return bad, e
	}
	for changed := true; changed; {
		changed = false
		for v := range x {
			if clamp != nil && clamp[v] >= 0 {
				continue
			}
			cur := x[v]
			best := cur
			bestBad, bestE := local(v)
			for a := range m.Card[v] {
				if a == cur {
					continue
				}
				x[v] = a
				bad, e := local(v)
				if bad < bestBad || bad == bestBad && e < bestE-1e-12*(1+math.Abs(bestE)) {
					best, bestBad, bestE = a, bad, e
				}
			}
			x[v] = best
			changed = changed || best != cur
		}
	}
	return m.Energy(x)
}
