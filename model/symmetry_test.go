package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// shiftModel returns a random model on n variables of cardinality m whose
// tables depend only on the differences of the states (so every factor is
// shift invariant), with unary and constant factors, arities up to 3 and
// forbidden differences.
func shiftModel(r *rand.Rand, n, m int) *Model {
	md := &Model{Card: make([]int, n)}
	for i := range md.Card {
		md.Card[i] = m
	}
	for range 1 + r.IntN(2*n) {
		k := r.IntN(4)
		scope := r.Perm(n)[:min(k, n)]
		k = len(scope)
		size := 1
		for range k {
			size *= m
		}
		// The value of a configuration is g(s_2 - s_1, ..., s_k - s_1).
		g := map[int]float64{}
		bad := map[int]bool{}
		t := Table{Log: make([]float64, size)}
		for idx := range size {
			st := make([]int, k)
			for i, rest := k-1, idx; i >= 0; i-- {
				st[i], rest = rest%m, rest/m
			}
			key := 0
			for i := 1; i < k; i++ {
				key = key*m + (st[i]-st[0]+m)%m
			}
			if _, ok := g[key]; !ok {
				g[key] = math.Round(r.NormFloat64()*4) / 4
				bad[key] = k >= 2 && r.Float64() < 0.15
			}
			if bad[key] {
				t.Forbid(idx)
			} else {
				t.Log[idx] = g[key]
			}
		}
		md.Factors = append(md.Factors, Factor{Scope: scope, Table: t})
	}
	return md
}

// TestShiftInvariant checks detection on random shift-invariant models
// and, by enumeration, the two facts Solve relies on: E(x + 1) = E(x),
// and the minimum with SymmetryBreak's variable fixed to 0 is the minimum.
// One perturbed entry, or one variable of another cardinality, must be
// detected.
func TestShiftInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n, m := 1+r.IntN(4), 2+r.IntN(3)
		md := shiftModel(r, n, m)
		if !md.ShiftInvariant() {
			t.Fatalf("trial %d: shift-invariant model not detected", trial)
		}
		v := md.SymmetryBreak()
		if v < 0 || v >= n {
			t.Fatalf("trial %d: SymmetryBreak = %d", trial, v)
		}
		all, fixed := math.Inf(1), math.Inf(1)
		x := make([]int, n)
		for {
			e := md.Energy(x)
			sh := make([]int, n)
			for i := range x {
				sh[i] = (x[i] + 1) % m
			}
			if es := md.Energy(sh); es != e && !(math.IsInf(e, 1) && math.IsInf(es, 1)) {
				t.Fatalf("trial %d: E(%v) = %v but E(x+1) = %v", trial, x, e, es)
			}
			all = min(all, e)
			if x[v] == 0 {
				fixed = min(fixed, e)
			}
			i := n - 1
			for ; i >= 0; i-- {
				if x[i]++; x[i] < m {
					break
				}
				x[i] = 0
			}
			if i < 0 {
				break
			}
		}
		if all != fixed && !(math.IsInf(all, 1) && math.IsInf(fixed, 1)) {
			t.Fatalf("trial %d: minimum %v, with variable %d fixed %v", trial, all, v, fixed)
		}

		// Break it: change one entry of a factor of arity >= 1.
		for f := range md.Factors {
			if tb := &md.Factors[f].Table; len(md.Factors[f].Scope) > 0 {
				k := r.IntN(len(tb.Log))
				if tb.IsForbidden(k) {
					tb.Forbidden[k] = false
				} else {
					tb.Log[k] += 0.5
				}
				if md.ShiftInvariant() || md.SymmetryBreak() != -1 {
					t.Fatalf("trial %d: perturbed factor %d still detected as shift invariant", trial, f)
				}
				break
			}
		}
	}
	md := shiftModel(r, 3, 3)
	md.Card = append(md.Card, 2)
	if md.ShiftInvariant() {
		t.Error("mixed cardinalities detected as shift invariant")
	}
	if (&Model{Card: []int{1, 1}}).ShiftInvariant() {
		t.Error("cardinality 1 detected as shift invariant")
	}
}
