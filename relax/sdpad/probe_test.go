package sdpad

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/solver"
)

// TestProbe: a probe that accepts at its third call ends the run there with
// status Solved; it sees the iterate's factor (SolveLR) or Xbar (Solve).
func TestProbe(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	p := build(t, gridPW(r, 4, 3))
	for _, lowRank := range []bool{false, true} {
		s := DefaultSettings()
		s.Tol, s.ProbeEvery, s.ProbeTol = 1e-12, 7, math.Inf(1)
		calls := 0
		s.Probe = func(d *Result) bool {
			calls++
			if d.Iterations != 7*calls || (d.X == nil) == !lowRank || (d.Factor == nil) == lowRank {
				t.Fatalf("low rank %v: probe %d at iteration %d, X %v, factor %v", lowRank, calls, d.Iterations, d.X != nil, d.Factor != nil)
			}
			return calls == 3
		}
		var res *Result
		if lowRank {
			res = solveLR(t, p, s)
		} else {
			res = solve(t, p, s)
		}
		if res.Status != solver.Solved || res.Iterations != 21 || calls != 3 {
			t.Fatalf("low rank %v: %v after %d iterations, %d probes", lowRank, res.Status, res.Iterations, calls)
		}
	}
	s := DefaultSettings()
	s.Probe, s.ProbeEvery = func(*Result) bool { return false }, 0
	if _, err := Solve(t.Context(), p, s); err == nil {
		t.Fatal("ProbeEvery 0 accepted")
	}
}
