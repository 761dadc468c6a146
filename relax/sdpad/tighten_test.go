package sdpad

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// TestTighten: a run of Solve or SolveLR tightened from 1e-3 to 1e-5
// (Settings.TightenTo) iterates as a run at 1e-5 does and ends where it
// ends; one cut short (MaxIter, cancellation) after meeting 1e-3 returns
// the iterate of the run at 1e-3, a copy that the rest of the run left
// alone, with the whole run's iterations and best bound.
func TestTighten(t *testing.T) {
	p := build(t, gridPW(rand.New(rand.NewPCG(4, 4)), 4, 3))
	for name, run := range map[string]func(context.Context, *sdr.Problem, Settings) (*Result, error){"Solve": Solve, "SolveLR": SolveLR} {
		at := func(tol, to float64, maxIter int, monitor func(*Iterate)) Settings {
			s := DefaultSettings()
			s.Tol, s.TightenTo, s.Monitor = tol, to, monitor
			if maxIter > 0 {
				s.MaxIter = maxIter
			}
			return s
		}
		solve := func(ctx context.Context, s Settings) *Result {
			r, err := run(ctx, p, s)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		ctx := context.Background()
		loose, mid, fine := solve(ctx, at(1e-3, 0, 0, nil)), solve(ctx, at(1e-4, 0, 0, nil)), solve(ctx, at(1e-5, 0, 0, nil))
		tightened := solve(ctx, at(1e-3, 1e-5, 0, nil))
		t.Logf("%s iterations: 1e-3 %d, 1e-4 %d, 1e-5 %d, tightened %d", name, loose.Iterations, mid.Iterations, fine.Iterations, tightened.Iterations)
		if loose.Status != solver.Solved || mid.Status != solver.Solved || fine.Status != solver.Solved || !(loose.Iterations+1 < mid.Iterations && mid.Iterations < fine.Iterations) {
			t.Fatalf("%s: want solved runs, more iterations at smaller tolerances: %d, %d, %d", name, loose.Iterations, mid.Iterations, fine.Iterations)
		}
		if tightened.Status != solver.Solved || tightened.Iterations != fine.Iterations || tightened.PrimalObjective != fine.PrimalObjective ||
			tightened.Gap > 1e-5 || tightened.PrimalInfeasibility > 1e-5 || tightened.FaceDualInfeasibility > 1e-5 {
			t.Fatalf("%s tightened: %v after %d iterations, objective %v, gap %.2e, pinf %.2e, dinf %.2e; at 1e-5: %d iterations, objective %v", name,
				tightened.Status, tightened.Iterations, tightened.PrimalObjective, tightened.Gap, tightened.PrimalInfeasibility, tightened.FaceDualInfeasibility, fine.Iterations, fine.PrimalObjective)
		}
		if tightened.EnergyBound < fine.EnergyBound {
			t.Fatalf("%s: tightened bound %v below %v", name, tightened.EnergyBound, fine.EnergyBound)
		}
		cutAt := (loose.Iterations + mid.Iterations) / 2
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		interrupt := func(it *Iterate) {
			if it.K == cutAt {
				cancel()
			}
		}
		for _, c := range []struct {
			name   string
			ctx    context.Context
			s      Settings
			status solver.Status
			iters  int
		}{
			{"MaxIter", ctx, at(1e-3, 1e-5, cutAt, nil), solver.Solved, cutAt},
			{"cancel", cctx, at(1e-3, 1e-5, 0, interrupt), solver.Interrupted, cutAt + 1}, // ctx is looked at after the next iteration
		} {
			r := solve(c.ctx, c.s)
			if r.Status != c.status || r.Iterations != c.iters || r.Gap != loose.Gap || r.PrimalObjective != loose.PrimalObjective || r.EnergyBound < loose.EnergyBound {
				t.Fatalf("%s, %s: %v after %d iterations, gap %v, objective %v, bound %v; want %v after %d, the 1e-3 run's gap %v, objective %v, bound at least %v",
					name, c.name, r.Status, r.Iterations, r.Gap, r.PrimalObjective, r.EnergyBound, c.status, c.iters, loose.Gap, loose.PrimalObjective, loose.EnergyBound)
			}
			if (r.X == nil) != (loose.X == nil) || r.X != nil && !mat.Equal(r.X, loose.X) ||
				(r.Factor == nil) != (loose.Factor == nil) || r.Factor != nil && !mat.Equal(r.Factor, loose.Factor) ||
				!slices.Equal(r.Y, loose.Y) || !slices.Equal(r.Z, loose.Z) {
				t.Fatalf("%s, %s: Xbar, y or z is not that of the 1e-3 run", name, c.name)
			}
		}
	}
	s := DefaultSettings()
	for _, v := range []float64{-1e-6, math.NaN(), math.Inf(1)} {
		s.TightenTo = v
		if _, err := Solve(context.Background(), p, s); err == nil {
			t.Fatalf("TightenTo %v accepted", v)
		}
	}
}
