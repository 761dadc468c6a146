package driver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/internal/sdrtest"
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/driver"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/rounding"
	"github.com/sdrmap/sdrmap/sdr"
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

// TestCloseBound: on a 6 x 6 Potts grid solved loosely by the dense SDPAD,
// the closing certificate (refined, then certified by dense eigenvalues)
// is above the iterates' bound and below the SDR's value (a tight solve's
// objective), and the same in a second run (counts, not time, end it); the
// dense certificate of a point is sdr.Problem.Certify's, and none once the
// context has ended.
func TestCloseBound(t *testing.T) {
	prob := sdrtest.Problem(t, gen.PottsGrid(6, 6, 3, 1, 45))
	ctx := context.Background()
	loose, err := sdpad.Relaxer{}.Relax(ctx, prob, relax.Settings{Tol: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	tight, err := sdpad.Relaxer{}.Relax(ctx, prob, relax.Settings{Tol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	value := tight.PrimalObjective - prob.Const
	b := driver.CloseBound(ctx, prob, loose, time.Second, 1, nil)
	t.Logf("iterates %.9g, closing %.9g, SDR value %.9g", loose.EnergyBound, b, value)
	if !(b > loose.EnergyBound) || b > value+1e-6*(1+math.Abs(value)) {
		t.Fatalf("closing bound %v: iterates %v, SDR value %v", b, loose.EnergyBound, value)
	}
	if again := driver.CloseBound(ctx, prob, loose, time.Second, 1, nil); again != b {
		t.Fatalf("closing bound %v, then %v", b, again)
	}
	c, err := prob.Certify(loose.Y, loose.Z)
	if err != nil {
		t.Fatal(err)
	}
	if got := driver.DenseBound(ctx, prob, loose.Y, loose.Z); got != c.EnergyBound {
		t.Fatalf("dense bound %v, Certify %v", got, c.EnergyBound)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if got := driver.DenseBound(done, prob, loose.Y, loose.Z); !math.IsInf(got, -1) {
		t.Fatalf("dense bound %v after the context ended", got)
	}
}
