package factor

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/bench/peers"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// TestMatchesCSDP: the factor ALM's objective equals CSDP's optimum of the
// SDPA export (the midpoint of its primal and dual objectives) within 1e-5
// relative, and its certified bound is at most CSDP's primal objective, on
// a binary grid (binary variables on the sphere), a 3-label grid, pdb1akg
// (2 to 18 states) and models with forbidden entries. (Not on the remark
// example: its optimum -1 is degenerate and CSDP ends at -1.00008 and
// -1.00004.) Without csdp on PATH it is skipped, except under CI.
func TestMatchesCSDP(t *testing.T) {
	if !peers.Available("csdp") {
		if os.Getenv("CI") != "" {
			t.Fatal("csdp not found on PATH")
		}
		t.Skip("csdp not found on PATH")
	}
	type named struct {
		name string
		p    *sdr.Problem
	}
	cases := []named{{"grid4x4x2", grid(t, 4, 4, 2, 5)}, {"grid3x4x3", grid(t, 3, 4, 3, 1)}, {"pdb1akg", pdb1akg(t)}}
	for seed := range uint64(5) {
		cases = append(cases, named{"forbidden" + strconv.Itoa(int(seed)), forbidden(t, seed)})
	}
	for _, c := range cases {
		file := filepath.Join(t.TempDir(), c.name+".dat-s")
		if err := peers.WriteSDPAFile(file, c.p); err != nil {
			t.Fatal(err)
		}
		run, err := peers.CSDP(context.Background(), file, time.Minute)
		if err != nil {
			t.Fatalf("%s: csdp %v: %s (%s)", c.name, err, run.Status, run.Reason)
		}
		t0 := time.Now()
		f := solveFactor(t, c.p, 1e-6)
		t.Logf("%s: N = %d, factor %.10g (bound %.10g) in %v; CSDP %.10g (%s)", c.name, c.p.N(), f.PrimalObjective, f.SDRBound, time.Since(t0).Round(time.Millisecond), (run.Objective+run.DualObjective)/2, run.Status)
		if f.Status != solver.Solved {
			t.Fatalf("%s: factor %v (gap %.1e pinf %.1e dinf %.1e)", c.name, f.Status, f.Gap, f.PrimalInfeasibility, f.DualInfeasibility)
		}
		want := (run.Objective + run.DualObjective) / 2
		scale := 1 + math.Abs(want)
		// When CSDP stops short of its tolerance (pdb1akg pinned to one core:
		// "partial success", dual objective above the primal by 1.1e-4), its
		// answer is known only to within its own gap.
		tol := 1e-5 * scale
		if !run.Optimal {
			tol += math.Abs(run.Objective-run.DualObjective) / 2
		}
		if d := math.Abs(f.PrimalObjective - want); d > tol {
			t.Errorf("%s: factor %.10g, CSDP %.10g (%s, primal %.10g, dual %.10g)", c.name, f.PrimalObjective, want, run.Status, run.Objective, run.DualObjective)
		}
		if f.SDRBound > run.Objective+1e-7*scale {
			t.Errorf("%s: bound %.10g above CSDP's optimum %.10g", c.name, f.SDRBound, run.Objective)
		}
	}
}
