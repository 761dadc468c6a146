package sdpad

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/solver"
)

// TestStall: with a tolerance it cannot reach (SDPAD-LR; the dense SDPAD
// may meet it on so small a grid), the run ends once its bound and primal
// infeasibility stop moving (Settings.Stall), long before MaxIter, with
// the best bound kept.
func TestStall(t *testing.T) {
	p := build(t, gridPW(rand.New(rand.NewPCG(3, 3)), 4, 3))
	for _, lr := range []bool{false, true} {
		s := DefaultSettings()
		s.Tol, s.TolLoose, s.MaxIter, s.Stall = 1e-15, 1e-15, 1_000_000, 200
		run := Solve
		if lr {
			run = SolveLR
		}
		r, err := run(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Iterations >= s.MaxIter || r.Status == solver.Failed || !(r.EnergyBound > -1e300) {
			t.Errorf("low rank %v: status %v after %d iterations, bound %v", lr, r.Status, r.Iterations, r.EnergyBound)
		}
		t.Logf("low rank %v: %v after %d iterations", lr, r.Status, r.Iterations)
	}
}
