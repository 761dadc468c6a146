package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/format/uai"
)

// genCases are small instances of every kind with their expected sizes.
var genCases = []struct {
	kind          string
	args          []string
	vars, factors int
	planted       bool
}{
	// orient: 30 * 4 / 2 = 60 edges, no unaries.
	{"orient", []string{"--vars", "30", "--labels", "5", "--degree", "4", "--noise", "0.2"}, 30, 60, true},
	// potts 4x5: 20 unaries, 4*4 + 3*5 = 31 edges.
	{"potts", []string{"--rows", "4", "--cols", "5", "--labels", "3", "--coupling", "0.7"}, 20, 51, false},
	// binary: 25 unaries, 25 * 6 / 2 = 75 edges.
	{"binary", []string{"--vars", "25", "--degree", "6"}, 25, 100, false},
	// matching: 7 unaries, 21 pairs.
	{"matching", []string{"--vars", "7", "--labels", "8"}, 7, 28, false},
	// dense: 6 unaries, 15 pairs (complete graph).
	{"dense", []string{"--vars", "6", "--labels", "3", "--forbid", "0.2"}, 6, 21, false},
}

// TestGenDeterministic writes every kind twice with one seed (same bytes,
// also on stdout with -o -) and once with another (different bytes), and
// reads the files back with the expected numbers of variables and factors.
func TestGenDeterministic(t *testing.T) {
	dir := t.TempDir()
	for _, c := range genCases {
		gen := func(name string, seed string, extra ...string) []byte {
			t.Helper()
			path := filepath.Join(dir, name)
			args := append(append([]string{"gen", c.kind}, c.args...), "--seed", seed, "-o", path)
			if _, errs, code := runCLI(t, append(args, extra...)...); code != 0 {
				t.Fatalf("%s: exit %d: %s", c.kind, code, errs)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
		a := gen(c.kind+"-a.uai", "7")
		b := gen(c.kind+"-b.uai", "7")
		other := gen(c.kind+"-c.uai", "8")
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs with seed 7 differ", c.kind)
		}
		if bytes.Equal(a, other) {
			t.Errorf("%s: seeds 7 and 8 give the same file", c.kind)
		}
		out, errs, code := runCLI(t, append(append([]string{"gen", c.kind}, c.args...), "--seed", "7", "-o", "-")...)
		if code != 0 || out != string(a) {
			t.Errorf("%s: -o - gives exit %d and %d bytes (file: %d): %s", c.kind, code, len(out), len(a), errs)
		}
		m, err := uai.ReadModelFile(filepath.Join(dir, c.kind+"-a.uai"))
		if err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		if m.NumVars() != c.vars || len(m.Factors) != c.factors {
			t.Errorf("%s: %d variables and %d factors, want %d and %d", c.kind, m.NumVars(), len(m.Factors), c.vars, c.factors)
		}
		if _, err := os.Stat(filepath.Join(dir, c.kind+"-a.uai.tmp")); !os.IsNotExist(err) {
			t.Errorf("%s: temporary file left behind", c.kind)
		}
	}
}

// TestGenOrientPlanted writes a noiseless ORIENT instance with its planted
// assignment: the assignment reads back, fits the model and satisfies
// every edge (energy -|E|).
func TestGenOrientPlanted(t *testing.T) {
	dir := t.TempDir()
	mp, pp := filepath.Join(dir, "o.uai"), filepath.Join(dir, "o.MAP")
	if _, errs, code := runCLI(t, "gen", "orient", "--vars", "40", "--labels", "6", "--degree", "5", "--noise", "0", "--seed", "3", "-o", mp, "--planted", pp); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m, err := uai.ReadModelFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	x, err := uai.ReadResultFile(pp)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(x); err != nil {
		t.Fatal(err)
	}
	if e, want := m.Energy(x), -float64(len(m.Factors)); math.Abs(e-want) > 1e-9*math.Abs(want) {
		t.Fatalf("planted energy %v, want %v", e, want)
	}
	// The planted file follows the seed too.
	pp2 := filepath.Join(dir, "o2.MAP")
	runCLI(t, "gen", "orient", "--vars", "40", "--labels", "6", "--degree", "5", "--noise", "0", "--seed", "3", "-o", filepath.Join(dir, "o2.uai"), "--planted", pp2)
	a, _ := os.ReadFile(pp)
	b, _ := os.ReadFile(pp2)
	if !bytes.Equal(a, b) {
		t.Fatal("planted assignments differ for one seed")
	}
}

// TestGenErrors checks that bad command lines exit with status 2 and a
// message naming the problem, and write nothing.
func TestGenErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.uai")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gen"}, "gen needs a kind"},
		{[]string{"gen", "spin-glass", "-o", out}, `unknown kind "spin-glass"`},
		{[]string{"gen", "orient"}, "-o FILE is required"},
		{[]string{"gen", "orient", "-o", out, "--vars", "0"}, "--vars must be >= 1"},
		{[]string{"gen", "orient", "-o", out, "--labels", "-3"}, "--labels must be >= 1"},
		{[]string{"gen", "orient", "-o", out, "--noise", "1.5"}, "--noise must be a probability"},
		{[]string{"gen", "orient", "-o", out, "--noise", "NaN"}, "--noise must be a probability"},
		{[]string{"gen", "orient", "-o", out, "--degree", "-1"}, "--degree must be a finite number"},
		{[]string{"gen", "orient", "-o", out, "--vars", "abc"}, "invalid argument"},
		{[]string{"gen", "orient", "-o", out, "--planted", out}, "give them different files"},
		{[]string{"gen", "orient", "-o", out, "--vars", "100000", "--labels", "1000"}, "table entries"},
		{[]string{"gen", "orient", "-o", out, "extra"}, "unknown command"},
		{[]string{"gen", "potts", "-o", out, "--rows", "0"}, "--rows must be >= 1"},
		{[]string{"gen", "potts", "-o", out, "--coupling", "Inf"}, "--coupling must be a finite number"},
		{[]string{"gen", "potts", "-o", out, "--noise", "0.1"}, "unknown flag: --noise"},
		{[]string{"gen", "binary", "-o", out, "--degree", "NaN"}, "--degree must be a finite number"},
		{[]string{"gen", "matching", "-o", out, "--labels", "0"}, "--labels must be >= 1"},
		{[]string{"gen", "matching", "-o", out, "--vars", "1000000"}, "table entries"},
		{[]string{"gen", "dense", "-o", out, "--density", "1.5"}, "--density must be a probability"},
		{[]string{"gen", "dense", "-o", out, "--forbid", "1"}, "--forbid must be in [0, 1)"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%v: wrote %s", c.args, out)
		}
	}
	// An unwritable destination is an error (exit 1), not a usage error.
	if _, errs, code := runCLI(t, "gen", "binary", "-o", filepath.Join(dir, "missing", "x.uai")); code != 1 || !strings.Contains(errs, "no such file") {
		t.Errorf("unwritable output: exit %d, %q", code, errs)
	}
	// An infeasible matching is written, with a note.
	if _, errs, code := runCLI(t, "gen", "matching", "--vars", "5", "--labels", "4", "-o", out); code != 0 || !strings.Contains(errs, "infeasible") {
		t.Errorf("labels < vars: exit %d, %q", code, errs)
	}
}

// TestGenHelp checks that the help names every kind and its parameters.
func TestGenHelp(t *testing.T) {
	out, _, code := runCLI(t, "gen", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"orient", "potts", "binary", "matching", "dense", "--vars", "--labels", "--degree", "--noise", "--coupling", "--rows", "--cols", "--density", "--forbid", "--planted", "--seed"} {
		if !strings.Contains(out, w) {
			t.Errorf("gen --help does not mention %s", w)
		}
	}
	out, _, _ = runCLI(t, "gen", "orient", "--help")
	for _, w := range []string{"--vars int", "(default 1000)", "(default 16)", "(default 50)", "(default 0.1)", "--planted"} {
		if !strings.Contains(out, w) {
			t.Errorf("gen orient --help does not mention %q:\n%s", w, out)
		}
	}
}
