package sdpad

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/internal/refdata"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// TestMeasureSchedules reproduces the schedule table of the package doc
// (about a minute): SDPAD_MEASURE=1 go test -run MeasureSchedules -v
// ./solver/sdpad. SDPAD_MEASURE_TOL sets the tolerance (default 1e-4),
// SDPAD_MEASURE_ROWS keeps only the rows whose name contains it,
// SDPAD_DENSE_SET overrides settings in every row (TestMeasureDense).
func TestMeasureSchedules(t *testing.T) {
	if os.Getenv("SDPAD_MEASURE") == "" {
		t.Skip("set SDPAD_MEASURE=1 to measure the mu schedules")
	}
	type named struct {
		name string
		p    *sdr.Problem
	}
	var probs []named
	add := func(name string, pw *model.Pairwise) {
		if p, err := sdr.Build(pw); err == nil {
			probs = append(probs, named{name, p})
		}
	}
	add("remark", remark())
	add("grid3x4x4", gridPW(rand.New(rand.NewPCG(1, 1)), 3, 4))
	add("grid5x5x3", gridPW(rand.New(rand.NewPCG(1, 3)), 5, 3))
	orient, _ := gen.Orient(30, 8, 6, 0.1, 1)
	if pw, err := orient.Pairwise(model.Evidence{{Var: orient.SymmetryBreak(), Value: 0}}); err == nil {
		add("orient30", pw)
	}
	if dir := refdata.Dir(); dir != "" {
		add("pdb1akg", filePairwise(t, filepath.Join(dir, "uai", "protein_sidechain", "uai2008_pdb1akg.uai.xz")))
	}
	r := rand.New(rand.NewPCG(5, 5))
	for named := len(probs); len(probs) < named+40; {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(4), MaxCard: 4, Factors: r.IntN(8), MaxArity: 2, Forbidden: 0.1})
		if pw, err := m.Pairwise(nil); err == nil {
			add(fmt.Sprintf("rand%d", len(probs)), pw)
		}
	}
	tol := 1e-4
	if v := os.Getenv("SDPAD_MEASURE_TOL"); v != "" {
		if _, err := fmt.Sscan(v, &tol); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		f    func(*Settings)
	}{
		{"PSD cone, paper", func(s *Settings) { s.Face, s.Schedule, s.RestartEvery = false, Geometric, 0 }},
		{"PSD cone, paper capped at 100", func(s *Settings) { s.Face, s.Schedule, s.MuMax, s.RestartEvery = false, Geometric, 100, 0 }},
		{"PSD cone, balanced", func(s *Settings) { s.Face, s.RestartEvery = false, 0 }},
		{"PSD cone, balanced, restarts", func(s *Settings) { s.Face = false }},
		{"face, paper", func(s *Settings) { s.Schedule, s.RestartEvery = Geometric, 0 }},
		{"face, fixed mu = 1", func(s *Settings) { s.Schedule, s.Rho, s.MuMin, s.RestartEvery = Geometric, 1, 1, 0 }},
		{"face, balanced every 20, x4", func(s *Settings) { s.BalanceEvery, s.BalanceFactor, s.RestartEvery = 20, 4, 0 }},
		{"face, balanced, no restarts", func(s *Settings) { s.RestartEvery = 0 }},
		{"face, balanced, restarts every 50", func(s *Settings) { s.RestartEvery = 50 }},
		{"face, balanced, restarts every 200", func(s *Settings) { s.RestartEvery = 200 }},
		{"face, balanced, restarts, mu0 ratio", func(s *Settings) {}},
		{"face, balanced, restarts", func(s *Settings) {}},
		{"face, balanced, restarts, Anderson 5", func(s *Settings) { s.Anderson = 5 }},
		{"face, balanced, no restarts, Anderson 10", func(s *Settings) { s.Anderson, s.RestartEvery = 10, 0 }},
		{"face, balanced, restarts, Anderson 10, mu0 ratio", func(s *Settings) { s.Anderson = 10 }},
		{"face, balanced, restarts, Anderson 10", func(s *Settings) { s.Anderson = 10 }},
		{"face, balanced ratio 10, restarts, Anderson 10", func(s *Settings) { s.Anderson, s.BalanceRatio = 10, 10 }},
		{"face, balanced ratio 20, restarts, Anderson 10", func(s *Settings) { s.Anderson, s.BalanceRatio = 10, 20 }},
		{"face, balanced, restarts, exact z", func(s *Settings) { s.ExactZ = true }},
		{"face, balanced, restarts, Anderson 10, exact z", func(s *Settings) { s.Anderson, s.ExactZ = 10, true }},
		{"face, balanced, restarts, exact z, step 1.6", func(s *Settings) { s.ExactZ, s.StepLength = true, 1.6 }},
		{"face, balanced, restarts, Anderson 10, exact z, step 1.6", func(s *Settings) { s.Anderson, s.ExactZ, s.StepLength = 10, true, 1.6 }},
		{"face, balanced every 50, restarts, Anderson 10, exact z, step 1.6", func(s *Settings) { s.Anderson, s.ExactZ, s.StepLength, s.BalanceEvery = 10, true, 1.6, 50 }},
		{"the same every 100, and at 20, 40, 80", func(s *Settings) { s.Anderson, s.ExactZ, s.StepLength, s.BalanceFirst = 10, true, 1.6, 20 }},
		{"the same on the split gap, ratio 3 (default)", func(s *Settings) {
			s.Anderson, s.ExactZ, s.StepLength, s.BalanceFirst, s.BalanceGapRatio = 10, true, 1.6, 20, 3
		}},
	} {
		if rows := os.Getenv("SDPAD_MEASURE_ROWS"); rows != "" && !strings.Contains(c.name, rows) {
			continue
		}
		var line strings.Builder
		total, unsolved, random := 0, 0, 0
		for _, pr := range probs {
			s := DefaultSettings()
			s.Tol, s.TolLoose, s.Anderson, s.ExactZ, s.StepLength = tol, tol, 0, false, 1 // the schedules of the plain iteration, the paper's steps
			s.BalanceFirst, s.BalanceGapRatio = 0, 0                                      // balancing every BalanceEvery on pinf/dinf
			c.f(&s)
			if err := setFields(&s, os.Getenv("SDPAD_DENSE_SET")); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(c.name, "mu0 ratio") { // the whole ||C||_F / sqrt(N), SolveLR's default
				s.Mu0 = ratioMu(pr.p, s.MuMin)
			}
			res, err := Solve(context.Background(), pr.p, s)
			if err != nil {
				t.Fatal(err)
			}
			total += res.Iterations
			if res.Status != solver.Solved {
				unsolved++
			}
			if strings.HasPrefix(pr.name, "rand") {
				random += res.Iterations
			} else {
				fmt.Fprintf(&line, " %s %d (%v)", pr.name, res.Iterations, res.Status)
			}
		}
		t.Logf("%-48s total %6d, unsolved %d; 40 random %d;%s", c.name, total, unsolved, random, line.String())
	}
}

// TestMeasureSchedulesShared runs SDPAD-LR for 60 s on shared instances
// with the default schedule, the earlier one (balancing every 20
// iterations by up to 4x) and the default without restarts, for the
// package doc:
// SDPAD_MEASURE=1 go test -run MeasureSchedulesShared -v -timeout 1h ./solver/sdpad.
func TestMeasureSchedulesShared(t *testing.T) {
	if os.Getenv("SDPAD_MEASURE") == "" {
		t.Skip("set SDPAD_MEASURE=1 to measure the mu schedules")
	}
	dir := refdata.Require(t)
	for _, file := range []string{
		"grids/uai2014_Grids_26.uai.xz", "segmentation/uai2014_Segmentation_12.uai.xz",
		"protein_sidechain/uai2008_pdb1akg.uai.xz", "higher_order/uai2014mar_CSP_11.uai.xz",
		"image_alignment/uai2014_ImageAlignment_12.uai.xz",
	} {
		p := fileProblem(t, filepath.Join(dir, "uai", file))
		for _, c := range []struct {
			name string
			f    func(*Settings)
		}{
			{"balanced every 20, x4, no restarts", func(s *Settings) { s.BalanceEvery, s.BalanceFactor, s.RestartEvery = 20, 4, 0 }},
			{"no restarts", func(s *Settings) { s.RestartEvery = 0 }},
			{"default", func(s *Settings) {}},
		} {
			s := DefaultSettings()
			c.f(&s)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			r, err := SolveLR(ctx, p, s)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, %s: %v after %d iterations, %.1f s, gap %.2e, pinf %.2e, dinf %.2e, energy bound %.6f",
				filepath.Base(file), c.name, r.Status, r.Iterations, r.Time.Seconds(), r.Gap, r.PrimalInfeasibility, r.FaceDualInfeasibility, r.EnergyBound)
		}
	}
}
