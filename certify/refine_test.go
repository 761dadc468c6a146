package certify_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sdrmap/sdrmap/certify"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/sdrtest"
	"github.com/sdrmap/sdrmap/relax/sdpad"
)

// TestRefineStall: on G(n, 1/2) models with 4 labels, loosely solved by
// the dense SDPAD (their refinements take 20 to 40 rounds), Refine stops at the first round where the best bound
// gained at most StallShare of its gain since the start in the last
// StallRounds rounds, and not before (the rule must end at least one of
// them); the bounds per round are the same in a second run, and fewer
// rounds give a prefix of them.
func TestRefineStall(t *testing.T) {
	const rounds = 100
	stalled := 0
	for _, c := range []struct {
		n    int
		seed uint64
	}{{15, 1}, {15, 3}, {15, 7}, {20, 2}} {
		seed := c.seed
		p := sdrtest.Problem(t, gen.Dense(c.n, 4, 0.5, 0, seed))
		s := sdpad.DefaultSettings()
		s.MaxIter = 60
		res, err := sdpad.Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		refine := func(rounds int) certify.Refined {
			ref, err := certify.Refine(context.Background(), p, res.Y, res.Z, rounds, certify.DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			return ref
		}
		ref := refine(rounds)
		b := ref.Bounds
		k := ref.Rounds()
		t.Logf("seed %d: %d rounds, stalled %v: bound %.9g to %.9g", seed, k, ref.Stalled, b[0], b[k])
		if k > rounds || b[k] != ref.Certificate.LowerBound || !slices.IsSorted(b) {
			t.Fatalf("seed %d: %d rounds, bounds %v, certificate %v: want at most %d, nondecreasing, ending at the certificate", seed, k, b, ref.Certificate.LowerBound, rounds)
		}
		stalls := func(r int) bool {
			return r >= certify.StallRounds && b[r]-b[r-certify.StallRounds] <= certify.StallShare*(b[r]-b[0])
		}
		for r := 1; r < k; r++ {
			if stalls(r) {
				t.Fatalf("seed %d: the rule held at round %d (bounds %v) but Refine went on to %d", seed, r, b, k)
			}
		}
		if ref.Stalled != stalls(k) {
			t.Fatalf("seed %d: stalled %v at round %d, where the rule gives %v (bounds %v)", seed, ref.Stalled, k, stalls(k), b)
		}
		if ref.Stalled {
			stalled++
		}
		if again := refine(rounds); !slices.Equal(again.Bounds, b) || again.Certificate.EnergyBound != ref.Certificate.EnergyBound || !slices.Equal(again.Z, ref.Z) {
			t.Fatalf("seed %d: a second run: bounds %v, energy bound %v; first %v, %v", seed, again.Bounds, again.Certificate.EnergyBound, b, ref.Certificate.EnergyBound)
		}
		short := refine(k / 2)
		if short.Rounds() != k/2 || short.Stalled || !slices.Equal(short.Bounds, b[:k/2+1]) {
			t.Fatalf("seed %d: %d rounds: %d made (stalled %v), bounds %v; want the first %d of %v", seed, k/2, short.Rounds(), short.Stalled, short.Bounds, k/2+1, b)
		}
	}
	if stalled == 0 {
		t.Fatal("the stall rule ended no refinement: the test checks nothing")
	}
}
