package methods_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// counting is a relaxation solver that counts its calls and lets SDPAD-LR
// do the work: what a new relaxation solver has to provide.
type counting struct{ calls *int }

func (c counting) Relax(ctx context.Context, prob *sdr.Problem, s relax.Settings) (*relax.Solution, error) {
	*c.calls++
	return sdpad.Relaxer{LowRank: true}.Relax(ctx, prob, s)
}

var relaxCalls int

// Two methods added from outside the root package, each by one
// registration: one from a function (the best unary state of every
// variable) and one relaxation solver behind the SDR driver.
func init() {
	methods.Register(methods.New("unary-test", "best unary state of every variable", false,
		func(_ context.Context, in *methods.Input, _ *methods.Run) (*methods.Outcome, error) {
			x := make([]int, in.Pairwise.NumVars())
			for i, u := range in.Pairwise.Unary {
				x[i] = slices.Index(u.Log, slices.Min(u.Log))
			}
			return &methods.Outcome{Assignment: x, Status: solver.Solved, Bound: math.Inf(-1)}, nil
		}))
	methods.Register(methods.RelaxMethod("relax-test", "SDPAD-LR, counted",
		func(methods.RelaxOptions) relax.Solver { return counting{&relaxCalls} }))
}

// TestRegister: the two methods registered above are listed and solve
// through sdrmap.Solve; the relaxation one gives SDPAD-LR's answer with SDR
// figures.
func TestRegister(t *testing.T) {
	if !slices.Contains(sdrmap.Solvers(), "unary-test") || !slices.Contains(sdrmap.Solvers(), "relax-test") {
		t.Fatalf("solvers %v", sdrmap.Solvers())
	}
	m := gen.PottsGrid(4, 4, 3, 1, 3)
	ctx := context.Background()
	u, err := sdrmap.Solve(ctx, m, sdrmap.Settings{Solver: "unary-test"})
	if err != nil || math.IsInf(u.Energy, 0) || u.Answer == "" {
		t.Fatalf("unary-test: %+v, %v", u, err)
	}
	want, err := sdrmap.Solve(ctx, m, sdrmap.Settings{Solver: "sdpad-lr", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	relaxCalls = 0
	got, err := sdrmap.Solve(ctx, m, sdrmap.Settings{Solver: "relax-test", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if relaxCalls != 1 || got.Energy != want.Energy || got.Bound != want.Bound || got.SDR == nil || got.SDR.Dimension != want.SDR.Dimension {
		t.Fatalf("relax-test: %d calls, energy %v, bound %v; sdpad-lr %v, %v", relaxCalls, got.Energy, got.Bound, want.Energy, want.Bound)
	}
	if _, err := sdrmap.Solve(ctx, m, sdrmap.Settings{Solver: "relax-test", Options: methods.ExactOptions{}}); err == nil {
		t.Error("relax-test accepted exact's options")
	}
}
