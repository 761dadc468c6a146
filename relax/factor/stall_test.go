package factor

import (
	"context"
	"testing"

	"github.com/sdrmap/sdrmap/solver"
)

// TestStall: with a tolerance it cannot reach, the run ends once its bound
// and primal infeasibility stop moving (Settings.Stall), long before
// MaxIter, with a bound.
func TestStall(t *testing.T) {
	p := grid(t, 6, 6, 3, 1)
	s := DefaultSettings()
	s.Tol, s.TolLoose, s.MaxIter, s.Stall = 1e-15, 1e-15, 1_000_000, 20
	r, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Iterations >= s.MaxIter || r.Status != solver.MaxIterations || !(r.EnergyBound > -1e300) {
		t.Fatalf("status %v after %d iterations, bound %v", r.Status, r.Iterations, r.EnergyBound)
	}
	t.Logf("%v after %d iterations", r.Status, r.Iterations)
}
