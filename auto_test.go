package sdrmap

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/model"
)

// TestAutoRelaxation: auto relaxes a grid by the factor ALM, a complete
// graph by SDPAD, the dense factor ALM when N > 1000, or SDPAD-LR when
// N > 6000, and a shift-invariant model
// (ORIENT) by cyclic; on a repulsive Potts grid, where TRW-S leaves a gap,
// its log shows the factor ALM.
func TestAutoRelaxation(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *model.Model
		want string
	}{
		{"grid", gen.PottsGrid(6, 6, 3, 1, 7), "factor"},
		{"complete", gen.DenseMatching(8, 9, 7), "sdpad"},
		{"complete, N > 1000", gen.DenseMatching(40, 40, 7), "factor-dense"},
		{"dense, N > 6000", gen.Binary(3100, 8, 7), "sdpad-lr"},
		{"orient", orient(60, 8, 8, 0.1), "cyclic"},
	} {
		p, err := c.m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := autoRelaxation(p); got != c.want {
			t.Errorf("%s: auto relaxes by %s, want %s", c.name, got, c.want)
		}
	}
	var log bytes.Buffer
	if _, err := Solve(context.Background(), gen.PottsGrid(6, 6, 3, -2, 1), Settings{Solver: "auto", Seed: 1, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "factor ALM:") {
		t.Errorf("auto on a frustrated grid: no factor ALM in its log:\n%s", log.String())
	}
}

func orient(n, m int, degree, noise float64) *model.Model {
	md, _ := gen.Orient(n, m, degree, noise, 1)
	return md
}

// TestAutoCyclic: auto solves ORIENT (n = 60, m = 8) by cyclic with its
// symmetry kept and proves the planted assignment optimal; with forbidden
// entries auto breaks the symmetry as before (keepsSymmetry); --solver
// cyclic refuses a model that is not shift invariant, naming the variable.
func TestAutoCyclic(t *testing.T) {
	md, planted := gen.Orient(60, 8, 8, 0.1, 1)
	var log bytes.Buffer
	res, err := Solve(context.Background(), md, Settings{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	want := md.Energy(planted)
	if !strings.Contains(log.String(), "cyclic:") || strings.Contains(log.String(), "fixed to state 0") {
		t.Errorf("auto on ORIENT: log without cyclic or with the symmetry broken:\n%s", log.String())
	}
	if res.Energy != want || res.Bound > want || want-res.Bound > 1e-9*(1+math.Abs(want)) || md.Energy(res.Assignment) != want {
		t.Errorf("auto on ORIENT: energy %v, bound %v, planted %v", res.Energy, res.Bound, want)
	}
	forbid := orient(20, 4, 3, 0.1)
	for f := range forbid.Factors {
		for a := range 4 {
			forbid.Factors[f].Forbid(a*4 + (a+2)%4) // x_j - x_i = 2 forbidden everywhere: still shift invariant
		}
	}
	if !forbid.ShiftInvariant() || keepsSymmetry("auto", forbid) || !keepsSymmetry("auto", md) || !keepsSymmetry("cyclic", forbid) || keepsSymmetry("sdpad", md) {
		t.Errorf("keepsSymmetry: auto with forbidden entries %v, auto %v, cyclic %v, sdpad %v",
			keepsSymmetry("auto", forbid), keepsSymmetry("auto", md), keepsSymmetry("cyclic", forbid), keepsSymmetry("sdpad", md))
	}
	grid := gen.PottsGrid(3, 3, 3, 1, 1)
	if _, err := Solve(context.Background(), grid, Settings{Solver: "cyclic"}); err == nil || !strings.Contains(err.Error(), "unary table of variable 0") {
		t.Errorf("cyclic on a grid with unary terms: error %v", err)
	}
}
