package higherorder

import (
	"fmt"

	"github.com/sdrmap/sdrmap/model"
)

// Map relates the converted model to the original one. Original variable v
// is variable v of both; auxiliary variable Aux[k].Var = Vars + k.
type Map struct {
	Vars  int   // variables of the original model
	Aux   []Aux // auxiliary variables, in index order
	Stats Stats // sizes before and after, and what the conversion did

	card []int // cardinalities of the original variables
}

// Aux is an auxiliary variable: state s stands for the joint configuration
// of Scope with table index Configs[s] (UAI order, last variable fastest).
type Aux struct {
	Var     int   // its index in the converted model
	Scope   []int // original variables, ascending, each of cardinality >= 2
	Configs []int // state -> table index over Scope
	Factors []int // the original factors it serves (the first of each merged group)

	index  []int32 // table index over Scope -> state, or -1 if dropped
	stride []int   // UAI strides of Scope
}

// State returns the state of a for the full original assignment x, or -1 if
// x's configuration of a.Scope is not in a's domain (x then has energy +Inf).
func (a *Aux) State(x []int) int {
	k := 0
	for p, v := range a.Scope {
		k += x[v] * a.stride[p]
	}
	return int(a.index[k])
}

// Original returns the original full assignment of the converted full
// assignment x: its first Vars values.
func (mp *Map) Original(x []int) []int {
	return append([]int(nil), x[:mp.Vars]...)
}

// Converted returns the converted full assignment of the original full
// assignment x (which must pass Check): x followed by each auxiliary
// variable's configuration in x. An auxiliary variable whose configuration
// in x is outside its domain gets state 0, which disagrees with x on some
// consistency edge: both energies are then +Inf.
func (mp *Map) Converted(x []int) []int {
	y := make([]int, mp.Vars, mp.Vars+len(mp.Aux))
	copy(y, x)
	for k := range mp.Aux {
		y = append(y, max(mp.Aux[k].State(x), 0))
	}
	return y
}

// Evidence returns ev, evidence on the original variables, as evidence on
// the converted model: the same observations, plus every auxiliary variable
// whose variables are all observed, clamped to their configuration when that
// configuration is allowed (otherwise the consistency edges leave it no
// state, and the solvers report the evidence infeasible).
func (mp *Map) Evidence(ev model.Evidence) (model.Evidence, error) {
	x := make([]int, mp.Vars)
	for i := range x {
		x[i] = -1
	}
	for _, o := range ev {
		if o.Var < 0 || o.Var >= mp.Vars {
			return nil, fmt.Errorf("evidence on variable %d, the original model has variables 0..%d", o.Var, mp.Vars-1)
		}
		if o.Value < 0 || o.Value >= mp.card[o.Var] {
			return nil, fmt.Errorf("evidence sets variable %d to %d, outside 0..%d", o.Var, o.Value, mp.card[o.Var]-1)
		}
		if x[o.Var] >= 0 && x[o.Var] != o.Value {
			return nil, fmt.Errorf("evidence sets variable %d twice (%d and %d)", o.Var, x[o.Var], o.Value)
		}
		x[o.Var] = o.Value
	}
	out := append(model.Evidence(nil), ev...)
	for k := range mp.Aux {
		a := &mp.Aux[k]
		observed := true
		for _, v := range a.Scope {
			observed = observed && x[v] >= 0
		}
		if observed {
			if s := a.State(x); s >= 0 {
				out = append(out, model.Observation{Var: a.Var, Value: s})
			}
		}
	}
	return out, nil
}
