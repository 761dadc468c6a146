package solvecmd

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap"
)

func load(t *testing.T, name, text string) *Input {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestFinishRoundsBound: on integer (wcsp) and two-decimal (cfn) costs the
// bound goes up to the next multiple, which proves an assignment optimal
// that the bound left 0.3 from it; on costs with more decimals than the
// precision it stays.
func TestFinishRoundsBound(t *testing.T) {
	wcsp := load(t, "a.wcsp", "a 1 2 1 100\n2\n1 0 3 1\n1 5\n")
	cfn := load(t, "a.cfn", `{problem {name a mustbe "<100.00"} variables {x [u v]} functions {f {scope [x] costs [0.25 1.5]}}}`)
	coarse := load(t, "b.cfn", `{problem {name a mustbe "<100.0"} variables {x [u v]} functions {f {scope [x] costs [0.25 1.5]}}}`)
	for _, c := range []struct {
		in            *Input
		energy, bound float64
		want          float64
		answer        sdrmap.Answer
	}{
		{wcsp, 3, 2.7, 3, sdrmap.Optimal},
		{wcsp, 3, 1.2, 2, sdrmap.Feasible},
		{wcsp, 3, 2.0000001, 2.0000001, sdrmap.Feasible}, // within the tolerance: never lowered
		{wcsp, 3, 2.1, 3, sdrmap.Optimal},
		{wcsp, 3, math.Inf(-1), math.Inf(-1), sdrmap.Feasible},
		{cfn, 0.25, 0.241, 0.25, sdrmap.Optimal},
		{cfn, 1.5, 0.241, 0.25, sdrmap.Feasible},
		{coarse, 0.25, 0.241, 0.241, sdrmap.Feasible},
	} {
		r := &sdrmap.Result{Energy: c.energy, Bound: c.bound, Gap: c.energy - c.bound, Answer: sdrmap.Feasible}
		notes := c.in.Finish(r)
		if r.Bound != c.want || r.Answer != c.answer || r.Gap != max(0, c.energy-c.want) {
			t.Errorf("energy %v, bound %v: bound %v, gap %v, answer %v; want %v, %v (notes %q)", c.energy, c.bound, r.Bound, r.Gap, r.Answer, c.want, c.answer, notes)
		}
		if (r.Bound != c.bound) != (len(notes) == 1 && strings.HasPrefix(notes[0], "bound rounded up")) {
			t.Errorf("energy %v, bound %v: notes %q", c.energy, c.bound, notes)
		}
		if c.answer == sdrmap.Optimal && !strings.Contains(notes[0], "proves the assignment optimal") {
			t.Errorf("notes %q do not say the rounded bound proves the assignment", notes)
		}
	}
	if n := wcsp.Notes(100); len(n) != 1 || !strings.Contains(n[0], "reaches the file's bound <100") {
		t.Errorf("notes at the bound: %q", n)
	}
	if n := wcsp.Notes(99); n != nil {
		t.Errorf("notes below the bound: %q", n)
	}
}
