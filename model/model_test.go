package model_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
)

// TestPairwiseEnergy checks that the pairwise view (duplicate scopes summed,
// transposed scopes, constants, evidence folded in) gives every assignment
// the energy of the full model.
func TestPairwiseEnergy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 500; trial++ {
		m := randmodel.New(r, randmodel.Options{Vars: 1 + r.IntN(6), MaxCard: 4, Factors: r.IntN(12), MaxArity: 3, Forbidden: 0.15, Constant: true})
		ev := randmodel.Evidence(r, m, 0.3)
		clamp, _ := ev.Clamps(m)
		p, err := m.Pairwise(ev)
		if err != nil {
			if !strings.Contains(err.Error(), "arity") && !strings.Contains(err.Error(), "forbids the observed") {
				t.Fatalf("trial %d: %v", trial, err)
			}
			continue
		}
		for s := 0; s < 20; s++ {
			x := make([]int, p.NumVars())
			for i := range x {
				x[i] = r.IntN(p.Card[i])
			}
			full := p.Expand(x)
			for v, c := range clamp {
				if c >= 0 && full[v] != c {
					t.Fatal("Expand lost the evidence")
				}
			}
			want, got := m.Energy(full), p.Energy(x)
			if math.IsInf(want, 1) != math.IsInf(got, 1) || !math.IsInf(want, 1) && math.Abs(want-got) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Fatalf("trial %d: model energy %v, pairwise %v", trial, want, got)
			}
			if y := p.Restrict(full); !equal(y, x) {
				t.Fatal("Restrict(Expand(x)) != x")
			}
		}
	}
}

func TestPairwiseRejectsHigherOrder(t *testing.T) {
	m := &model.Model{Card: []int{2, 2, 2}, Factors: []model.Factor{
		{Scope: []int{0}, Table: model.Table{Log: []float64{0, 0}}},
		{Scope: []int{0, 1, 2}, Table: model.Table{Log: make([]float64, 8)}},
	}}
	_, err := m.Pairwise(nil)
	if err == nil || !strings.Contains(err.Error(), "factor 1 has arity 3") {
		t.Fatalf("got %v", err)
	}
	// Evidence on one member leaves a pairwise factor.
	if _, err := m.Pairwise(model.Evidence{{Var: 2, Value: 1}}); err != nil {
		t.Fatal(err)
	}
}

func TestEvidenceErrors(t *testing.T) {
	m := &model.Model{Card: []int{2, 3}}
	for _, ev := range []model.Evidence{{{Var: 2, Value: 0}}, {{Var: 1, Value: 3}}, {{Var: 0, Value: 0}, {Var: 0, Value: 1}}} {
		if _, err := ev.Clamps(m); err == nil {
			t.Errorf("evidence %v accepted", ev)
		}
	}
}

func TestForbiddenEnergy(t *testing.T) {
	tb := model.Table{Log: []float64{1, 2}}
	tb.Forbid(1)
	m := &model.Model{Card: []int{2}, Factors: []model.Factor{{Scope: []int{0}, Table: tb}}}
	if e := m.Energy([]int{1}); !math.IsInf(e, 1) {
		t.Fatalf("forbidden entry gives energy %v", e)
	}
	if e := m.Energy([]int{0}); e != -1 {
		t.Fatalf("energy %v, want -1", e)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
