package higherorder

import "github.com/sdrmap/sdrmap/model"

// Size is the size of a model as the second-order relaxation sees it.
type Size struct {
	Vars    int   `json:"variables"`     // variables
	N       int   `json:"sdr_dimension"` // order of the relaxation's matrix, 1 + sum_i m_i
	Edges   int   `json:"edges"`         // distinct variable pairs sharing a factor
	Pattern int64 `json:"pattern"`       // sum_i m_i^2 + sum_{ij in Edges} m_i m_j
}

// Measure returns the size of m. For a model with higher-order factors, the
// edges are those of its primal graph (every pair within a scope).
func Measure(m *model.Model) Size {
	s := Size{Vars: m.NumVars(), N: model.SDRDimension(m.Card)}
	for _, c := range m.Card {
		s.Pattern += int64(c) * int64(c)
	}
	pairs := map[[2]int]bool{}
	for fi := range m.Factors {
		sc := m.Factors[fi].Scope
		for p, u := range sc {
			for _, v := range sc[p+1:] {
				e := [2]int{min(u, v), max(u, v)}
				if !pairs[e] {
					pairs[e] = true
					s.Pattern += int64(m.Card[u]) * int64(m.Card[v])
				}
			}
		}
	}
	s.Edges = len(pairs)
	return s
}

// Stats reports a conversion.
type Stats struct {
	Before     Size `json:"before"`
	After      Size `json:"after"`
	Aux        int  `json:"aux_variables"` // auxiliary variables
	Decomposed int  `json:"decomposed"`    // higher-order factors (after merging) replaced by unary and pairwise terms
	Encoded    int  `json:"encoded"`       // higher-order factors (after merging) encoded with auxiliary variables
	Merged     int  `json:"merged"`        // factors summed into an earlier one over the same variables
	Absorbed   int  `json:"absorbed"`      // factors summed into an encoded factor over a superset of their variables
}
