package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestTimeLimitHolds runs `solve --time-limit 3` on a 100 x 100 Potts grid
// with 5 labels (N = 50,001) with auto and sdpad-lr and requires the wall
// time to be at most the limit + 1 s + the time to read the model (the
// contract of --time-limit), valid JSON and a bound not above the energy. Before every phase budgeted against the limit,
// the closing certificate and the rounding ran after it: 13.8 s for auto
// with a 4 s limit (issue 22).
func TestTimeLimitHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("large instance")
	}
	const limit = 3 * time.Second
	model := filepath.Join(t.TempDir(), "grid.uai")
	if _, errs, code := runCLI(t, "gen", "potts", "--rows", "100", "--cols", "100", "--labels", "5", "-o", model); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	t0 := time.Now()
	if _, err := load(model, ""); err != nil {
		t.Fatal(err)
	}
	parse := time.Since(t0)
	for _, solver := range []string{"auto", "sdpad-lr"} {
		// One retry: a burst of load from other processes can stretch the
		// short phases that cannot stop (6f63ac0 ran 10-40 s past the limit).
		for try := 1; ; try++ {
			wall := solveTimed(t, model, solver)
			t.Logf("%s: wall %v (limit %v, parsing %v)", solver, wall.Round(time.Millisecond), limit, parse.Round(time.Millisecond))
			if wall <= limit+time.Second+parse {
				break
			}
			if try == 2 {
				t.Errorf("%s: wall %v > limit %v + 1 s + parsing %v", solver, wall.Round(time.Millisecond), limit, parse.Round(time.Millisecond))
				break
			}
		}
	}
}

// solveTimed runs solve --time-limit 3 --json and returns its wall time; it
// fails the test unless the run ends with termination time-limit and a bound not
// above the energy.
func solveTimed(t *testing.T, model, solver string) time.Duration {
	t.Helper()
	t0 := time.Now()
	out, errs, code := runCLI(t, "solve", model, "--solver", solver, "--time-limit", "3", "--json")
	wall := time.Since(t0)
	var o struct {
		Termination string
		Energy      float64
		Bound       any // a number, or "-Inf"
	}
	if err := json.Unmarshal([]byte(out), &o); code != 0 || err != nil || o.Termination != "time-limit" {
		t.Fatalf("%s: exit %d, %v\n%s%s", solver, code, err, out, errs)
	}
	if b, ok := o.Bound.(float64); ok && b > o.Energy {
		t.Errorf("%s: bound %v above the energy %v", solver, b, o.Energy)
	}
	return wall
}
