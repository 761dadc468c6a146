package batch

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

// TestToulbar2Files: .wcsp and .cfn files (plain or compressed) are models
// in a directory, and a wcsp file's record carries toulbar2's cost.
func TestToulbar2Files(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"m/a.wcsp", "m/b.cfn.xz", "m/c.wcsp.gz", "m/notes.txt"} {
		writeFile(t, filepath.Join(d, f), "")
	}
	items, err := Match([]string{filepath.Join(d, "m")})
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{
		{Input: filepath.Join(d, "m/a.wcsp"), Rel: "a.wcsp"},
		{Input: filepath.Join(d, "m/b.cfn.xz"), Rel: "b.cfn.xz"},
		{Input: filepath.Join(d, "m/c.wcsp.gz"), Rel: "c.wcsp.gz"},
	}
	if fmt.Sprint(items) != fmt.Sprint(want) {
		t.Errorf("Match:\n got %v\nwant %v", items, want)
	}
	if got := mpePath("b.cfn.xz"); got != "b.cfn.MPE" {
		t.Errorf("mpePath = %s", got)
	}
	// x0 in 0..2, x1 in 0..1; costs: unary [5 0 3] (0 by default), a
	// binary function with default 1, the constant 4. Optimum 4 + 0 + 1.
	file := filepath.Join(d, "s.wcsp")
	writeFile(t, file, "s 2 3 3 100\n3 2\n1 0 0 2\n0 5\n2 3\n2 0 1 1 1\n1 0 7\n0 4 0\n")
	var fl Flags
	fl.Register(pflag.NewFlagSet("test", pflag.ContinueOnError))
	fl.Solver = "exact"
	rec, x, _ := solve(context.Background(), Item{Input: file}, fl)
	if rec.Error != "" || float64(rec.Energy) != 5 || rec.Answer != "optimal" || x[0] != 1 {
		t.Fatalf("record %+v, assignment %v; want energy 5, optimal, x0 = 1", rec, x)
	}
}
