package model

import (
	"errors"
	"fmt"
	"math"
)

// ErrInfeasible is wrapped by the errors that prove a model (under its
// evidence) infeasible: no assignment of finite energy exists.
var ErrInfeasible = errors.New("the model is infeasible: no assignment of finite energy exists")

// Validate checks that m is a well-formed model, as the readers build them
// and as models built in code must be: every cardinality at least 1; every
// factor's scope of distinct variables in range; its table of exactly the
// product of the scope's cardinalities entries; Forbidden nil or one flag
// per entry; every log value finite (phi = 0 is a Forbidden flag, not
// -Inf). The error names the first factor or variable at fault. A nil
// model is an error.
func (m *Model) Validate() error {
	if m == nil {
		return errors.New("nil model")
	}
	for i, c := range m.Card {
		if c < 1 {
			return fmt.Errorf("variable %d has cardinality %d, need at least 1", i, c)
		}
	}
	n := len(m.Card)
	for fi := range m.Factors {
		f := &m.Factors[fi]
		size := 1
		for p, v := range f.Scope {
			if v < 0 || v >= n {
				return fmt.Errorf("factor %d (scope %v): variable %d out of range 0..%d", fi, f.Scope, v, n-1)
			}
			for _, u := range f.Scope[:p] {
				if u == v {
					return fmt.Errorf("factor %d (scope %v): variable %d appears twice in the scope", fi, f.Scope, v)
				}
			}
			if size > math.MaxInt/m.Card[v] {
				return fmt.Errorf("factor %d (scope %v): the table size overflows an int", fi, f.Scope)
			}
			size *= m.Card[v]
		}
		switch {
		case len(f.Log) < size:
			return fmt.Errorf("factor %d (scope %v): short table, %d entries where its scope needs %d", fi, f.Scope, len(f.Log), size)
		case len(f.Log) > size:
			return fmt.Errorf("factor %d (scope %v): long table, %d entries where its scope needs %d", fi, f.Scope, len(f.Log), size)
		case f.Forbidden != nil && len(f.Forbidden) != size:
			return fmt.Errorf("factor %d (scope %v): %d Forbidden flags for %d table entries", fi, f.Scope, len(f.Forbidden), size)
		}
		for k, w := range f.Log {
			if f.IsForbidden(k) {
				continue
			}
			switch {
			case math.IsNaN(w):
				return fmt.Errorf("factor %d (scope %v): entry %d is NaN", fi, f.Scope, k)
			case math.IsInf(w, -1):
				return fmt.Errorf("factor %d (scope %v): entry %d is -Inf; a zero potential is a Forbidden flag (Table.Forbid)", fi, f.Scope, k)
			case math.IsInf(w, 1):
				return fmt.Errorf("factor %d (scope %v): entry %d is +Inf, an infinite potential", fi, f.Scope, k)
			}
		}
	}
	return nil
}
