package sdrmap

import (
	"context"
	"math"
	"testing"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// TestSolveShiftInvariant solves small ORIENT models (shift invariant, no
// unaries) with and without the symmetry break: with the exact solver both
// reach the brute-force optimum and the broken one has its chosen variable
// in state 0; SDPAD, TRW-S, cyclic (which always keeps the symmetry) and
// auto keep a bound below the optimum.
func TestSolveShiftInvariant(t *testing.T) {
	for seed := range uint64(12) {
		m, _ := gen.Orient(7, 3, 3, 0.4, seed)
		v := m.SymmetryBreak()
		if v < 0 {
			t.Fatalf("seed %d: ORIENT model not shift invariant", seed)
		}
		clamp, _ := model.Evidence(nil).Clamps(m)
		want, _ := randmodel.BruteForce(m, clamp)
		for _, keep := range []bool{false, true} {
			for _, name := range []string{"exact", "sdpad", "trws", "cyclic", "auto"} {
				res, err := Solve(context.Background(), m, Settings{Solver: name, KeepSymmetry: keep})
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-6 * (1 + math.Abs(want))
				if res.Bound > want+tol || res.Energy < want-tol || m.Energy(res.Assignment) != res.Energy {
					t.Fatalf("seed %d, %s, keep %v: energy %v, bound %v, optimum %v", seed, name, keep, res.Energy, res.Bound, want)
				}
				if name == "exact" && (math.Abs(res.Energy-want) > tol || (!keep && res.Assignment[v] != 0)) {
					t.Fatalf("seed %d, keep %v: energy %v (optimum %v), x[%d] = %d", seed, keep, res.Energy, want, v, res.Assignment[v])
				}
			}
		}
	}
}

// TestSolveRestarts solves a small ORIENT model with sdpad and sdpad-lr to
// 1e-6, with restarts from the average (the default) and with NoRestart:
// both reach the planted optimum and certify it, NoRestart never restarts,
// sdpad-lr by default does and the SDR figures report the count (sdpad,
// Anderson-accelerated, solves it in about 100 iterations: its one restart
// test finds the average worse).
func TestSolveRestarts(t *testing.T) {
	m, planted := gen.Orient(20, 6, 4, 0.1, 1)
	want := m.Energy(planted)
	for _, name := range []string{"sdpad", "sdpad-lr"} {
		for _, off := range []bool{false, true} {
			res, err := Solve(context.Background(), m, Settings{Solver: name, Options: methods.SDPADOptions{RelaxOptions: methods.RelaxOptions{Tol: 1e-6, NoProbe: true}, NoRestart: off}})
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-5 * (1 + math.Abs(want))
			if math.Abs(res.Energy-want) > tol || res.Bound < want-tol || res.Bound > res.Energy {
				t.Fatalf("%s, no restart %v: energy %v, bound %v, planted %v", name, off, res.Energy, res.Bound, want)
			}
			if res.SDR == nil || (res.SDR.Restarts > 0 && off) || (res.SDR.Restarts == 0 && !off && name == "sdpad-lr") {
				t.Fatalf("%s, no restart %v: SDR figures %+v", name, off, res.SDR)
			}
			t.Logf("%s, no restart %v: %d iterations, %d restarts", name, off, res.Iterations, res.SDR.Restarts)
		}
	}
}

// TestSolveComplement solves a small ORIENT model with a unique optimum to
// a loose tolerance (1e-3) without probes: the iterates' bounds are still
// far from the planted energy, the dual point complementary to the rounded
// assignment (sdr.Problem.Complement) proves it optimal. To 1e-8, the probes
// prove it optimal and stop the relaxation at their first try, iteration
// 100 or 200 (sdpad.Settings.Probe).
func TestSolveComplement(t *testing.T) {
	m, planted := gen.Orient(20, 6, 4, 0.1, 1)
	want := m.Energy(planted)
	for _, name := range []string{"sdpad", "sdpad-lr"} {
		for _, probe := range []bool{false, true} {
			o := methods.RelaxOptions{Tol: 1e-3, NoProbe: true}
			if probe {
				o = methods.RelaxOptions{Tol: 1e-8}
			}
			set := Settings{Solver: name, Options: methods.SDPADOptions{RelaxOptions: o}}
			res, err := Solve(context.Background(), m, set)
			if err != nil {
				t.Fatal(err)
			}
			if res.Energy != want || !solver.Proven(res.Energy, res.Bound) || res.SDR == nil || !res.SDR.Complement ||
				res.Termination != Converged || probe && res.Iterations > 200 {
				t.Fatalf("%s, probe %v: %v after %d iterations, energy %v (planted %v), bound %v, SDR figures %+v",
					name, probe, res.Termination, res.Iterations, res.Energy, want, res.Bound, res.SDR)
			}
			t.Logf("%s, probe %v: %d iterations, gap %.2g", name, probe, res.Iterations, res.Gap)
		}
	}
}
