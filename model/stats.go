package model

// Stats summarizes a model for `sdrmap info`.
type Stats struct {
	Variables        int   `json:"variables"`
	MinCardinality   int   `json:"min_cardinality"`
	MaxCardinality   int   `json:"max_cardinality"`
	Factors          int   `json:"factors"`
	MaxArity         int   `json:"max_arity"`
	ArityHistogram   []int `json:"arity_histogram"` // ArityHistogram[k]: factors of arity k
	Edges            int   `json:"edges"`           // distinct variable pairs of arity-2 factors
	ForbiddenEntries int   `json:"forbidden_entries"`
	SDRDimension     int   `json:"sdr_dimension"` // N = 1 + sum of cardinalities
}

// Stats computes the summary of m.
func (m *Model) Stats() Stats {
	st := Stats{Variables: m.NumVars(), Factors: len(m.Factors), MaxArity: m.MaxArity(), SDRDimension: SDRDimension(m.Card)}
	for i, c := range m.Card {
		if i == 0 || c < st.MinCardinality {
			st.MinCardinality = c
		}
		st.MaxCardinality = max(st.MaxCardinality, c)
	}
	st.ArityHistogram = make([]int, st.MaxArity+1)
	pairs := map[[2]int]bool{}
	for i := range m.Factors {
		f := &m.Factors[i]
		st.ArityHistogram[len(f.Scope)]++
		st.ForbiddenEntries += f.ForbiddenCount()
		if len(f.Scope) == 2 {
			a, b := f.Scope[0], f.Scope[1]
			pairs[[2]int{min(a, b), max(a, b)}] = true
		}
	}
	st.Edges = len(pairs)
	return st
}
