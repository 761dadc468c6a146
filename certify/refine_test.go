package certify_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sdrmap/sdrmap/certify"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/sdr"
)

// TestRefineStall: on a G(20, 1/2) model with 4 labels, loosely solved by
// the dense SDPAD, Refine stops at the first round where the best bound
// gained at most StallShare of its gain since the start in the last
// StallRounds rounds, and not before; the bounds per round are the same
// in a second run, and fewer rounds give a prefix of them.
func TestRefineStall(t *testing.T) {
	pw, err := gen.Dense(20, 4, 0.5, 0, 2).Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sdr.Build(pw)
	if err != nil {
		t.Fatal(err)
	}
	s := sdpad.DefaultSettings()
	s.MaxIter = 60
	res, err := sdpad.Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 100
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
	t.Logf("%d rounds, stalled %v: bound %.9g to %.9g", k, ref.Stalled, b[0], b[k])
	if !ref.Stalled || k >= rounds {
		t.Fatalf("%d rounds, stalled %v: want the stall rule to end it before %d", k, ref.Stalled, rounds)
	}
	if b[k] != ref.Certificate.LowerBound || !slices.IsSorted(b) {
		t.Fatalf("bounds %v, certificate %v: want them nondecreasing, ending at the certificate", b, ref.Certificate.LowerBound)
	}
	stalls := func(r int) bool {
		return r >= certify.StallRounds && b[r]-b[r-certify.StallRounds] <= certify.StallShare*(b[r]-b[0])
	}
	for r := 1; r < k; r++ {
		if stalls(r) {
			t.Fatalf("the rule held at round %d (bounds %v) but Refine went on to %d", r, b, k)
		}
	}
	if !stalls(k) {
		t.Fatalf("stalled at round %d, where the rule does not hold (bounds %v)", k, b)
	}
	if again := refine(rounds); !slices.Equal(again.Bounds, b) || again.Certificate.EnergyBound != ref.Certificate.EnergyBound || !slices.Equal(again.Z, ref.Z) {
		t.Fatalf("a second run: bounds %v, energy bound %v; first %v, %v", again.Bounds, again.Certificate.EnergyBound, b, ref.Certificate.EnergyBound)
	}
	short := refine(k / 2)
	if short.Rounds() != k/2 || short.Stalled || !slices.Equal(short.Bounds, b[:k/2+1]) {
		t.Fatalf("%d rounds: %d made (stalled %v), bounds %v; want the first %d of %v", k/2, short.Rounds(), short.Stalled, short.Bounds, k/2+1, b)
	}
}
