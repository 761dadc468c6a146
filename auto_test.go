package sdrmap

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/gen"
)

// TestAutoRelaxation: on a repulsive Potts grid, where TRW-S leaves a gap,
// auto's log shows the factor ALM (methods' TestAutoRelaxation checks the
// choice on other models).
func TestAutoRelaxation(t *testing.T) {
	var log bytes.Buffer
	if _, err := Solve(context.Background(), gen.PottsGrid(6, 6, 3, -2, 1), Settings{Solver: "auto", Seed: 1, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "factor ALM:") {
		t.Errorf("auto on a frustrated grid: no factor ALM in its log:\n%s", log.String())
	}
}

// TestAutoCyclic: auto solves ORIENT (n = 60, m = 8) by cyclic with its
// symmetry kept and proves the planted assignment optimal; --solver
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
	grid := gen.PottsGrid(3, 3, 3, 1, 1)
	if _, err := Solve(context.Background(), grid, Settings{Solver: "cyclic"}); err == nil || !strings.Contains(err.Error(), "unary table of variable 0") {
		t.Errorf("cyclic on a grid with unary terms: error %v", err)
	}
}
