package sdrmap

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/model"
)

// TestAutoRelaxation: auto relaxes a grid by the factor ALM and a complete
// graph by SDPAD, or SDPAD-LR when N > 1000; on a repulsive Potts grid, where TRW-S leaves a gap,
// its log shows the factor ALM.
func TestAutoRelaxation(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *model.Model
		want string
	}{
		{"grid", gen.PottsGrid(6, 6, 3, 1, 7), "factor"},
		{"complete", gen.DenseMatching(8, 9, 7), "sdpad"},
		{"complete, N > 1000", gen.DenseMatching(40, 40, 7), "sdpad-lr"},
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
