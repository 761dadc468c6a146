package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInfoEdgeLabels: info says which pairs each of its two edge counts
// counts (6f63ac0 printed "edges 1" and "edges 3 -> 3" unlabelled).
func TestInfoEdgeLabels(t *testing.T) {
	// A pair factor on (0, 1) and a triple on (0, 1, 2).
	path := filepath.Join(t.TempDir(), "tri.uai")
	text := "MARKOV\n3\n2 2 2\n2\n2 0 1\n3 0 1 2\n\n4\n1 2 3 4\n8\n1 1 1 1 1 1 1 2\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "info", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"edges              1  (variable pairs of arity-2 factors)", "  edges            3 -> ", "(variable pairs sharing a factor of any arity)"} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
}
