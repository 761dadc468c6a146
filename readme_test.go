package sdrmap

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeSolvers: the --solver list of README.md is the registry's.
func TestReadmeSolvers(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	g := regexp.MustCompile(`\[--solver ([a-z|-]+)\]`).FindSubmatch(b)
	if g == nil {
		t.Fatal("README.md: no [--solver a|b|...] in the solve line")
	}
	got := strings.Split(string(g[1]), "|")
	slices.Sort(got)
	if !slices.Equal(got, Solvers()) {
		t.Fatalf("README.md lists solvers %v, the registry %v", got, Solvers())
	}
}
