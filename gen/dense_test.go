package gen

import (
	"math"
	"reflect"
	"testing"
)

// TestDense: the complete graph has every pair as an edge, G(n, p) about p
// of them; forbidden entries come at about the asked rate and never fill
// a table; unary tables are never forbidden; the same seed gives the same
// model.
func TestDense(t *testing.T) {
	const n, m = 40, 4
	full := Dense(n, m, 1, 0, 3)
	if got := len(full.Factors) - n; got != n*(n-1)/2 {
		t.Fatalf("complete graph: %d pairwise factors, want %d", got, n*(n-1)/2)
	}
	for _, f := range full.Factors {
		if f.Forbidden != nil {
			t.Fatal("forbid 0: a forbidden entry")
		}
	}
	half := Dense(n, m, 0.5, 0.3, 3)
	pairs, forbidden, entries := 0, 0, 0
	for _, f := range half.Factors {
		if len(f.Scope) == 1 {
			if f.Forbidden != nil {
				t.Fatal("a forbidden unary entry")
			}
			continue
		}
		pairs++
		c := f.ForbiddenCount()
		if c == len(f.Log) {
			t.Fatalf("factor %v forbids every entry", f.Scope)
		}
		forbidden += c
		entries += len(f.Log)
	}
	if want := 0.5 * n * (n - 1) / 2; math.Abs(float64(pairs)-want) > 4*math.Sqrt(want) {
		t.Errorf("G(n, 0.5): %d edges, expected about %.0f", pairs, want)
	}
	if rate := float64(forbidden) / float64(entries); math.Abs(rate-0.3) > 0.03 {
		t.Errorf("forbidden rate %.3f, want about 0.3", rate)
	}
	if !reflect.DeepEqual(half, Dense(n, m, 0.5, 0.3, 3)) {
		t.Error("the same seed gave two models")
	}
	if reflect.DeepEqual(half, Dense(n, m, 0.5, 0.3, 4)) {
		t.Error("two seeds gave the same model")
	}
}
