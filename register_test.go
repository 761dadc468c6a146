package sdrmap

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/sdrmap/sdrmap/gen"
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

// TestRegister adds two methods, each by one registration: one from a
// function (the best unary state of every variable) and one relaxation
// solver behind the SDR driver. Both are listed, solve, and the relaxation
// one gives SDPAD-LR's answer with SDR figures.
func TestRegister(t *testing.T) {
	calls := 0
	Register(NewMethod("unary-test", "best unary state of every variable", false,
		func(_ context.Context, in *Input, _ *Settings) (*Outcome, error) {
			x := make([]int, in.Pairwise.NumVars())
			for i, u := range in.Pairwise.Unary {
				x[i] = slices.Index(u.Log, slices.Min(u.Log))
			}
			return &Outcome{Assignment: x, Status: solver.Solved, Bound: math.Inf(-1)}, nil
		}))
	Register(RelaxMethod("relax-test", "SDPAD-LR, counted", func(*Settings) relax.Solver { return counting{&calls} }))
	t.Cleanup(func() { delete(methods, "unary-test"); delete(methods, "relax-test") })
	if !slices.Contains(Solvers(), "unary-test") || !slices.Contains(Solvers(), "relax-test") {
		t.Fatalf("solvers %v", Solvers())
	}
	m := gen.PottsGrid(4, 4, 3, 1, 3)
	ctx := context.Background()
	u, err := Solve(ctx, m, Settings{Solver: "unary-test"})
	if err != nil || math.IsInf(u.Energy, 0) || u.Answer == "" {
		t.Fatalf("unary-test: %+v, %v", u, err)
	}
	want, err := Solve(ctx, m, Settings{Solver: "sdpad-lr", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Solve(ctx, m, Settings{Solver: "relax-test", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || got.Energy != want.Energy || got.Bound != want.Bound || got.SDR == nil || got.SDR.Dimension != want.SDR.Dimension {
		t.Fatalf("relax-test: %d calls, energy %v, bound %v; sdpad-lr %v, %v", calls, got.Energy, got.Bound, want.Energy, want.Bound)
	}
}
