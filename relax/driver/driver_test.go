package driver_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/driver"
	"github.com/sdrmap/sdrmap/rounding"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver/sdpad"
)

// TestIterativeRoundCutShort stops the re-solves of the iterative rounding
// after 0 and 1 relaxations: the variables left free take the argmax of the
// last marginals, read in the numbering of the problem they belong to.
func TestIterativeRoundCutShort(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 2))
	ctx := context.Background()
	lr := sdpad.Relaxer{LowRank: true}
	checked, free := 0, 0
	for trial := 0; trial < 30; trial++ {
		m := randmodel.Frustrated(r, 5+r.IntN(3))
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		prob, err := sdr.Build(p)
		if err != nil {
			continue
		}
		res, err := lr.Relax(ctx, prob, relax.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		for allowed := range 2 {
			last, lastProb, calls := res, prob, 0
			resolve := func(q *sdr.Problem, w *relax.Start) (*relax.Solution, error) {
				if calls == allowed {
					return nil, nil
				}
				calls++
				last, lastProb = nil, q
				var err error
				last, err = lr.Relax(ctx, q, relax.Settings{Start: w})
				return last, err
			}
			x, _, err := driver.IterativeRound(ctx, prob, res, resolve)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Check(x); err != nil {
				t.Fatalf("trial %d, %d relaxations: %v", trial, allowed, err)
			}
			if calls < allowed {
				continue // every variable was fixed before
			}
			fixed := map[int]bool{}
			for _, o := range rounding.Fix(last.Marginals, rounding.TMax) {
				fixed[o.Var] = true
			}
			for i, v := range lastProb.Pairwise.Orig {
				if fixed[i] {
					continue
				}
				free++
				if x[v] != rounding.Argmax(last.Marginals[i]) {
					t.Fatalf("trial %d, %d relaxations: variable %d = %d, argmax of its marginals %v", trial, allowed, v, x[v], last.Marginals[i])
				}
			}
			checked++
		}
	}
	if checked < 20 || free < 20 {
		t.Fatalf("only %d cases checked, %d variables left free", checked, free)
	}
}
