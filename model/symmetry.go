package model

// ShiftInvariant reports whether every variable has the same cardinality
// m >= 2 and every factor is unchanged when the states of all its
// variables advance by one modulo m, so that E(x + 1) = E(x) for every
// assignment x (Z_m synchronization such as ORIENT; Potts models without
// unary terms). The optima of such a model then come in orbits of m, one
// with any chosen variable in state 0: fixing it loses no optimum and
// breaks the symmetry that leaves a relaxation's solution a mixture of m
// assignments. Tables must match exactly, forbidden entries included.
func (m *Model) ShiftInvariant() bool {
	if len(m.Card) == 0 || m.Card[0] < 2 {
		return false
	}
	card := m.Card[0]
	for _, c := range m.Card {
		if c != card {
			return false
		}
	}
	for f := range m.Factors {
		if !shiftInvariant(&m.Factors[f], card) {
			return false
		}
	}
	return true
}

// shiftInvariant compares every entry of f's table, all its variables of
// cardinality m, with the entry of the states advanced by one.
func shiftInvariant(f *Factor, m int) bool {
	k := len(f.Scope)
	digits := make([]int, k)
	// step is the index offset of advancing every digit: sum_i m^(k-1-i).
	step, pow := 0, 1
	for range k {
		step += pow
		pow *= m
	}
	for idx := range f.Log {
		to := idx + step
		// Digits at m-1 wrap to 0: subtract m times their place value.
		place := 1
		for i := k - 1; i >= 0; i-- {
			if digits[i] == m-1 {
				to -= m * place
			}
			place *= m
		}
		if f.Log[idx] != f.Log[to] || f.IsForbidden(idx) != f.IsForbidden(to) {
			return false
		}
		for i := k - 1; i >= 0; i-- {
			if digits[i]++; digits[i] < m {
				break
			}
			digits[i] = 0
		}
	}
	return true
}

// SymmetryBreak returns the variable that ShiftInvariant allows to fix to
// state 0 without losing an optimum: the one in most factors (fixing it
// folds the most terms into its neighbours), -1 if m is not shift
// invariant.
func (m *Model) SymmetryBreak() int {
	if !m.ShiftInvariant() {
		return -1
	}
	deg := make([]int, len(m.Card))
	for f := range m.Factors {
		for _, v := range m.Factors[f].Scope {
			deg[v]++
		}
	}
	best := 0
	for v, d := range deg {
		if d > deg[best] {
			best = v
		}
	}
	return best
}
