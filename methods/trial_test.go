package methods

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/sdrtest"
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// scripted is a relaxation solver that reports the iterates of residual
// (gap and pinf of iteration k) until the context ends or iters run out.
type scripted struct {
	iters    int
	residual func(k int) (gap, pinf float64)
	bound    float64
	calls    int
	ran      int          // iterations of the last call
	start    *relax.Start // the warm start of the last call
}

func (s *scripted) Relax(ctx context.Context, _ *sdr.Problem, rs relax.Settings) (*relax.Solution, error) {
	s.calls, s.start = s.calls+1, rs.Start
	sol := &relax.Solution{Status: solver.Solved, EnergyBound: s.bound, BestY: []float64{s.bound},
		Y: []float64{s.bound}, Z: []float64{}, Factor: mat.NewDense(1, 1, []float64{1})}
	for k := 1; k <= s.iters; k++ {
		if ctx.Err() != nil {
			sol.Status = solver.StopStatus(ctx)
			break
		}
		gap, pinf := s.residual(k)
		if rs.Progress != nil {
			rs.Progress(relax.Iterate{Iteration: k, Gap: gap, PrimalInfeasibility: pinf})
		}
		s.ran, sol.Iterations = k, k
	}
	return sol, nil
}

// TestSDPADFirst: auto's dense relaxation keeps SDPAD when an iterate met
// 1e-3 in gap and pinf within the trial (at N = 601, 100 iterations), and
// replaces it by the factor ALM otherwise, started from SDPAD's last point,
// with the better bound of the two; a crossing of the objectives (small
// gap, large pinf) or a NaN gap does not count; later calls go to the
// solver kept.
func TestSDPADFirst(t *testing.T) {
	prob := sdrtest.Problem(t, gen.Dense(60, 10, 1, 0, 1))
	if prob.N() != 601 {
		t.Fatalf("N = %d, want 601", prob.N())
	}
	slow := func(k int) (float64, float64) {
		switch k {
		case 1:
			return 1e-5, 0.5 // the objectives cross
		case 2:
			return math.NaN(), 1e-4
		}
		return 1 / float64(k), 1 / float64(k)
	}
	for _, c := range []struct {
		name     string
		residual func(k int) (float64, float64)
		bound    float64 // SDPAD's; the factor ALM's is -10
		switched bool
		want     float64
	}{
		{"converges", func(k int) (float64, float64) { return 1 / float64(k*k), 1e-4 }, -20, false, -20},
		{"met once, then above", func(k int) (float64, float64) {
			if k == trialIters-20 {
				return 9e-4, 9e-4
			}
			return 1e-2, 1e-2
		}, -20, false, -20},
		{"slow", slow, -20, true, -10},
		{"slow, its bound the better", slow, -5, true, -5},
	} {
		sd := &scripted{iters: 1000, residual: c.residual, bound: c.bound}
		fd := &scripted{iters: 10, residual: func(int) (float64, float64) { return 1e-4, 1e-4 }, bound: -10}
		tr := &sdpadFirst{sdpad: sd, factor: fd}
		sol, err := tr.Relax(context.Background(), prob, relax.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if got := fd.calls == 1; got != c.switched {
			t.Fatalf("%s: switched %v after %d SDPAD iterations, want %v", c.name, got, sd.ran, c.switched)
		}
		if c.switched && (fd.start == nil || len(fd.start.Y) != 1 || fd.start.Y[0] != c.bound) {
			t.Fatalf("%s: the factor ALM did not start from SDPAD's point (%+v)", c.name, fd.start)
		}
		if c.switched && (sd.ran != trialIters || sol.Iterations != trialIters+10) {
			t.Fatalf("%s: SDPAD stopped after %d iterations, %d in all; want %d and %d", c.name, sd.ran, sol.Iterations, trialIters, trialIters+10)
		}
		if sol.EnergyBound != c.want || sol.BestY[0] != c.want {
			t.Fatalf("%s: bound %g (dual point of %g), want %g", c.name, sol.EnergyBound, sol.BestY[0], c.want)
		}
		if _, err := tr.Relax(context.Background(), prob, relax.Settings{}); err != nil {
			t.Fatal(err)
		}
		if c.switched && (sd.calls != 1 || fd.calls != 2) || !c.switched && (sd.calls != 2 || fd.calls != 0) {
			t.Fatalf("%s: the second call went to SDPAD %d times, the factor ALM %d times", c.name, sd.calls-1, fd.calls)
		}
	}
}
