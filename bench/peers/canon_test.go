package peers

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
)

// TestSortScopes: sorted scopes, same energy for every assignment.
func TestSortScopes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	changed := 0
	for range 50 {
		m := randmodel.New(r, randmodel.Options{Vars: 4, MaxCard: 3, Factors: 6, MaxArity: 4, Forbidden: 0.2, Constant: true})
		s := sortScopes(m)
		if !scopesSorted(s) {
			t.Fatal("scopes not sorted")
		}
		if !scopesSorted(m) {
			changed++
		}
		x := make([]int, m.NumVars())
		for {
			a, b := m.Energy(x), s.Energy(x)
			if a != b && !(math.IsInf(a, 1) && math.IsInf(b, 1)) {
				t.Fatalf("x = %v: energy %v, sorted %v", x, a, b)
			}
			v := 0
			for ; v < len(x); v++ {
				if x[v]++; x[v] < m.Card[v] {
					break
				}
				x[v] = 0
			}
			if v == len(x) {
				break
			}
		}
		for i := range m.Factors {
			if len(m.Factors[i].Scope) != len(s.Factors[i].Scope) || !slices.Equal(slices.Sorted(slices.Values(m.Factors[i].Scope)), s.Factors[i].Scope) {
				t.Fatalf("factor %d: scope %v became %v", i, m.Factors[i].Scope, s.Factors[i].Scope)
			}
		}
	}
	if changed == 0 {
		t.Fatal("no unsorted scope drawn")
	}
}
