package exact

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// TestAgainstBruteForce compares the search with plain enumeration of the
// full model (model.Energy), on hundreds of random tiny models with mixed
// cardinalities, constants, forbidden entries and evidence.
func TestAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	infeasible := 0
	for trial := 0; trial < 600; trial++ {
		m := randmodel.New(r, randmodel.Options{
			Vars: 1 + r.IntN(6), MaxCard: 4, Factors: r.IntN(10), MaxArity: 2,
			Forbidden: []float64{0, 0.1, 0.4}[trial%3], Constant: true,
		})
		ev := randmodel.Evidence(r, m, 0.2)
		clamp, err := ev.Clamps(m)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := randmodel.BruteForce(m, clamp)
		p, err := m.Pairwise(ev)
		if err != nil {
			// Only evidence that hits a forbidden entry may fail here.
			if !math.IsInf(want, 1) {
				t.Fatalf("trial %d: %v, but brute force finds energy %v", trial, err, want)
			}
			infeasible++
			continue
		}
		res, err := Solve(context.Background(), p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(want, 1) {
			if res.Status != solver.Infeasible || res.Assignment != nil {
				t.Fatalf("trial %d: infeasible model, got status %v energy %v", trial, res.Status, res.Energy)
			}
			infeasible++
			continue
		}
		if res.Status != solver.Solved {
			t.Fatalf("trial %d: status %v", trial, res.Status)
		}
		if math.Abs(res.Energy-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d: exact %v, brute force %v", trial, res.Energy, want)
		}
		if e := m.Energy(p.Expand(res.Assignment)); math.Abs(e-res.Energy) > 1e-12*math.Max(1, math.Abs(e)) {
			t.Fatalf("trial %d: reported energy %v, model energy of the assignment %v", trial, res.Energy, e)
		}
	}
	if infeasible == 0 || infeasible > 300 {
		t.Errorf("%d infeasible models out of 600: the generator does not exercise both cases", infeasible)
	}
}

func TestTooLarge(t *testing.T) {
	m := &model.Model{Card: make([]int, 40)}
	for i := range m.Card {
		m.Card[i] = 3
	}
	p, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(context.Background(), p, Settings{}); err == nil {
		t.Fatal("3^40 states accepted")
	}
}

// TestInterrupted cancels a search on a model too large to finish and
// expects the best assignment found so far.
func TestInterrupted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := randmodel.New(r, randmodel.Options{Vars: 60, MaxCard: 6, MinCard2: true, Factors: 400, MaxArity: 2})
	p, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Solve(ctx, p, Settings{MaxStates: 1e300})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Interrupted || res.Assignment == nil || math.IsInf(res.Energy, 0) {
		t.Fatalf("status %v, energy %v", res.Status, res.Energy)
	}
}
