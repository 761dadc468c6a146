package sdpad

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// TestDegenerateSizes: no variables, and variables with a single allowed
// state (the face has order 1).
func TestDegenerateSizes(t *testing.T) {
	empty := &model.Pairwise{Const: 1.5}
	single := &model.Pairwise{
		Card:  []int{1, 2},
		Unary: []model.Table{{Log: []float64{0.5}}, {Log: []float64{0.25, -1}}},
		Edges: []model.Edge{{I: 0, J: 1, Table: model.Table{Log: []float64{2, 3}}}},
		Const: -0.5,
	}
	single.Unary[1].Forbid(1)
	for name, c := range map[string]struct {
		pw     *model.Pairwise
		energy float64
	}{"empty": {empty, -1.5}, "single": {single, -(0.5 + 0.25 + 2 - 0.5)}} {
		p := build(t, c.pw)
		r := solve(t, p, tight(1e-9))
		if r.Status != solver.Solved || math.Abs(r.PrimalObjective-p.Const-c.energy) > 1e-7 || r.EnergyBound > c.energy {
			t.Fatalf("%s: %v, energy %v (bound %v), want %v", name, r.Status, r.PrimalObjective-p.Const, r.EnergyBound, c.energy)
		}
	}
}

// TestMaxOrder: Solve refuses a problem above Settings.MaxOrder with
// ErrTooLarge, before allocating its dense matrices (the default refuses
// the 50 x 50 binary grid, N = 5001, at once), and takes one at the limit.
func TestMaxOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	big := build(t, gridPW(r, 50, 2))
	if _, err := Solve(context.Background(), big, DefaultSettings()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("N = %d: error %v, want ErrTooLarge", big.N(), err)
	}
	p := build(t, gridPW(r, 3, 2))
	s := tight(1e-6)
	s.MaxOrder = p.N() - 1
	if _, err := Solve(context.Background(), p, s); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("N = %d, MaxOrder %d: error %v", p.N(), s.MaxOrder, err)
	}
	s.MaxOrder = p.N()
	if res, err := Solve(context.Background(), p, s); err != nil || res.Status != solver.Solved {
		t.Fatalf("N = MaxOrder = %d: %v", p.N(), err)
	}
}
