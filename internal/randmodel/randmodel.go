// Package randmodel generates small random models for tests: mixed
// cardinalities, factors of chosen arities, forbidden entries, evidence.
package randmodel

import (
	"math"
	"math/rand/v2"

	"github.com/sdrmap/sdrmap/model"
)

// Options shapes a random model.
type Options struct {
	Vars      int     // number of variables
	MaxCard   int     // cardinalities drawn from 1..MaxCard (2..MaxCard if MinCard2)
	MinCard2  bool    // no variable of cardinality 1
	Factors   int     // number of random factors besides one unary per variable
	MaxArity  int     // arity of the random factors: 0..MaxArity (0 only if Constant)
	Forbidden float64 // probability that an entry is forbidden
	Constant  bool    // allow arity-0 factors
	Tree      bool    // pairwise factors on a random spanning tree only (ignores Factors, MaxArity)
}

// New draws a model. Tables never have every entry forbidden.
func New(r *rand.Rand, o Options) *model.Model {
	m := &model.Model{Card: make([]int, o.Vars)}
	lo := 1
	if o.MinCard2 {
		lo = 2
	}
	for i := range m.Card {
		m.Card[i] = lo + r.IntN(max(1, o.MaxCard-lo+1))
	}
	for i := range m.Card {
		m.Factors = append(m.Factors, factor(r, m, []int{i}, o.Forbidden))
	}
	if o.Tree {
		for i := 1; i < o.Vars; i++ {
			m.Factors = append(m.Factors, factor(r, m, []int{r.IntN(i), i}, o.Forbidden))
		}
		return m
	}
	for f := 0; f < o.Factors; f++ {
		lo := 1
		if o.Constant {
			lo = 0
		}
		k := lo + r.IntN(min(o.MaxArity, o.Vars)-lo+1)
		scope := r.Perm(o.Vars)[:k]
		m.Factors = append(m.Factors, factor(r, m, scope, o.Forbidden))
	}
	return m
}

func factor(r *rand.Rand, m *model.Model, scope []int, pForbid float64) model.Factor {
	size := 1
	for _, v := range scope {
		size *= m.Card[v]
	}
	f := model.Factor{Scope: scope, Table: model.Table{Log: make([]float64, size)}}
	allowed := 0
	for k := range f.Log {
		if r.Float64() < pForbid {
			f.Forbid(k)
		} else {
			f.Log[k] = r.NormFloat64()
			allowed++
		}
	}
	if allowed == 0 {
		k := r.IntN(size)
		f.Forbidden[k] = false
		f.Log[k] = r.NormFloat64()
	}
	return f
}

// Evidence observes each variable with probability p, at a random state.
func Evidence(r *rand.Rand, m *model.Model, p float64) model.Evidence {
	var ev model.Evidence
	for v, c := range m.Card {
		if r.Float64() < p {
			ev = append(ev, model.Observation{Var: v, Value: r.IntN(c)})
		}
	}
	return ev
}

// BruteForce returns the minimum energy of m over all full assignments
// consistent with the clamps (-1 = free), by enumeration with Model.Energy,
// and one minimizer (nil if every assignment has infinite energy).
func BruteForce(m *model.Model, clamp []int) (float64, []int) {
	n := m.NumVars()
	x := make([]int, n)
	for v := range x {
		x[v] = max(clamp[v], 0)
	}
	best := 0.0
	var arg []int
	for {
		if e := m.Energy(x); !math.IsInf(e, 1) && (arg == nil || e < best) {
			best, arg = e, append([]int(nil), x...)
		}
		v := n - 1
		for ; v >= 0; v-- {
			if clamp[v] >= 0 {
				continue
			}
			x[v]++
			if x[v] < m.Card[v] {
				break
			}
			x[v] = 0
		}
		if v < 0 {
			break
		}
	}
	if arg == nil {
		return math.Inf(1), nil
	}
	return best, arg
}

// Frustrated returns a complete graph of variables with 2 or 3 states,
// repulsive Potts couplings (equal states cost) and weak random unaries:
// its relaxation is far from tight, so rounding leaves variables free.
func Frustrated(r *rand.Rand, n int) *model.Model {
	m := &model.Model{Card: make([]int, n)}
	for i := range n {
		m.Card[i] = 2 + r.IntN(2)
		u := make([]float64, m.Card[i])
		for a := range u {
			u[a] = 0.1 * r.Float64()
		}
		m.Factors = append(m.Factors, model.Factor{Scope: []int{i}, Table: model.Table{Log: u}})
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			w := 1 + r.Float64()
			t := make([]float64, m.Card[i]*m.Card[j])
			for a := range min(m.Card[i], m.Card[j]) {
				t[a*m.Card[j]+a] = -w
			}
			m.Factors = append(m.Factors, model.Factor{Scope: []int{i, j}, Table: model.Table{Log: t}})
		}
	}
	return m
}
