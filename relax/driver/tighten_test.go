package driver_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/driver"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/sdr"
)

// tightenSpy records relax.Settings.Tighten of every relaxation it solves
// with the dense SDPAD.
type tightenSpy struct{ asked []bool }

func (s *tightenSpy) Relax(ctx context.Context, prob *sdr.Problem, set relax.Settings) (*relax.Solution, error) {
	s.asked = append(s.asked, set.Tighten)
	return sdpad.Relaxer{}.Relax(ctx, prob, set)
}

// TestTightenAsked: the driver asks the first relaxation to tighten
// (relax.Settings.Tighten) under a time limit at the default tolerance
// only, never the iterative rounding's re-solves.
func TestTightenAsked(t *testing.T) {
	pw, err := randmodel.Frustrated(rand.New(rand.NewPCG(9, 2)), 6).Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		limit    bool
		tol      float64
		rounding string
		first    bool
	}{
		{"time limit", true, 0, "", true},
		{"time limit, iterative rounding", true, 0, driver.RoundIterative, true},
		{"time limit, tolerance given", true, 1e-4, "", false},
		{"no time limit", false, 0, driver.RoundIterative, false},
	} {
		ctx := context.Background()
		if c.limit {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Minute)
			defer cancel()
		}
		spy := &tightenSpy{}
		o := driver.Options{Settings: relax.Settings{Tol: c.tol}, Rounding: c.rounding, NoProbe: true}
		if _, err := driver.Solve(ctx, pw, spy, o); err != nil {
			t.Fatal(err)
		}
		if len(spy.asked) == 0 || spy.asked[0] != c.first {
			t.Fatalf("%s: asked %v, want %v first", c.name, spy.asked, c.first)
		}
		for i, a := range spy.asked[1:] {
			if a {
				t.Fatalf("%s: re-solve %d asked to tighten", c.name, i+1)
			}
		}
		if c.rounding == driver.RoundIterative && len(spy.asked) < 2 {
			t.Fatalf("%s: no re-solve", c.name)
		}
	}
}
