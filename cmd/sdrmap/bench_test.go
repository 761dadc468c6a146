package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/bench/suite"
	"github.com/sdrmap/sdrmap/format/uai"
)

// tinySuite writes a suite of two tiny generated instances.
func tinySuite(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "tiny.suite")
	text := "# two tiny instances\ngen potts --rows 3 --cols 4 --labels 3 --seed 2\ngen binary --vars 10 --degree 3 category char  # GM-Char-like\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBenchRun runs icm, trws and sdpad-lr with a 2 s limit on two tiny
// generated instances: six records in results.jsonl, the expected table
// rows, plots that decode, and `bench render` rewriting the same files.
func TestBenchRun(t *testing.T) {
	dir := t.TempDir()
	st := tinySuite(t, dir)
	out := filepath.Join(dir, "out")
	stdout, stderr, code := runCLI(t, "bench", st, "--solvers", "icm,trws,sdpad-lr", "--time-limit", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "[6/6] binary-vars10-degree3 sdpad-lr: converged, optimal") {
		t.Errorf("stderr:\n%s", stderr)
	}
	recs, err := suite.ReadRecords(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Instance+"/"+r.Solver+"/"+r.Category)
		if r.Termination != "converged" || r.Status != "" || len(r.Times) != 1 || r.TimeLimitS != 2 || r.Source == "" {
			t.Errorf("%s %s: termination %q status %q times %v limit %v source %q", r.Instance, r.Solver, r.Termination, r.Status, r.Times, r.TimeLimitS, r.Source)
		}
	}
	want := "potts-rows3-cols4-labels3-seed2/icm/potts potts-rows3-cols4-labels3-seed2/trws/potts potts-rows3-cols4-labels3-seed2/sdpad-lr/potts " +
		"binary-vars10-degree3/icm/char binary-vars10-degree3/trws/char binary-vars10-degree3/sdpad-lr/char"
	if strings.Join(got, " ") != want {
		t.Errorf("records %v", got)
	}
	md, err := os.ReadFile(filepath.Join(out, "tables.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"| category | instances | icm energy | icm best | icm time (s) | trws energy |",
		"| potts | 1 | ", "| char | 1 | ", "| all | 2 | ",
		"| potts | 1 | 12 | 3 | 17 | 29 | 2 | 37 | 37 |", // 3x4 grid: 17 edges, 12 + 17 factors, N = 1 + 36
		"| char | 1 | 10 | 2 | 15 | 25 | 2 | 21 | 21 |",
		"| potts-rows3-cols4-labels3-seed2 | 37 | sdpad-lr | ",
		"| binary-vars10-degree3 | 21 | sdpad-lr | ",
	} {
		if !strings.Contains(string(md), w) {
			t.Errorf("tables.md lacks %q:\n%s", w, md)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(out, "*.png"))
	if len(pngs) != 4 {
		t.Errorf("plots %v", pngs)
	}
	first := map[string][]byte{"tables.md": md}
	for _, p := range pngs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		first[filepath.Base(p)] = b
		if !strings.Contains(stdout, p) {
			t.Errorf("stdout does not list %s:\n%s", p, stdout)
		}
	}
	// Re-render from the JSONL: the same bytes.
	for name := range first {
		os.Remove(filepath.Join(out, name))
	}
	if _, errs, code := runCLI(t, "bench", "render", out); code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	for name, b := range first {
		again, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s: re-rendered file differs (%v)", name, err)
		}
	}
	// An existing results.jsonl is kept without --force.
	if _, errs, code := runCLI(t, "bench", st, "--solvers", "icm", "--out", out); code != 1 || !strings.Contains(errs, "--force") {
		t.Errorf("existing results: exit %d, %q", code, errs)
	}
}

// TestBenchSkipsMissing runs toulbar2 and csdp with an empty PATH: both are
// skipped with a line on stderr and records of status "skipped".
func TestBenchSkipsMissing(t *testing.T) {
	dir := t.TempDir()
	st := tinySuite(t, dir)
	out := filepath.Join(dir, "out")
	t.Setenv("PATH", t.TempDir())
	_, stderr, code := runCLI(t, "bench", st, "--solvers", "icm,toulbar2,csdp", "--time-limit", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"toulbar2 is not installed", "csdp is not installed", "potts-rows3-cols4-labels3-seed2 toulbar2: skipped"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	recs, err := suite.ReadRecords(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, r := range recs {
		if r.Status == suite.StatusSkipped {
			skipped++
		}
	}
	if len(recs) != 6 || skipped != 4 {
		t.Errorf("%d records, %d skipped", len(recs), skipped)
	}
	md, _ := os.ReadFile(filepath.Join(out, "tables.md"))
	if !strings.Contains(string(md), "| skipped |") || !strings.Contains(string(md), "| csdp | — | — | — | — | skipped |") {
		t.Errorf("tables.md:\n%s", md)
	}
}

// TestBenchErrors checks the exit statuses of bad command lines (2) and bad
// suites (1, with FILE:LINE).
func TestBenchErrors(t *testing.T) {
	dir := t.TempDir()
	st := tinySuite(t, dir)
	bad := filepath.Join(dir, "bad.suite")
	os.WriteFile(bad, []byte("gen potts\ngen potts --rows 0\n"), 0o644)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench"}, 2, "accepts 1 arg"},
		{[]string{"bench", st, "--out", out, "--solvers", "icm,gurobi"}, 2, `unknown solver "gurobi" (valid: auto, cyclic, exact, factor, icm, ipm-nc, sdpad, sdpad-lr, trws, toulbar2, csdp, sdpa, dsdp)`},
		{[]string{"bench", st, "--out", out, "--solvers", ","}, 2, "no solvers given"},
		{[]string{"bench", st, "--out", out, "--time-limit", "0"}, 2, "--time-limit must be"},
		{[]string{"bench", st, "--out", out, "--repeat", "0"}, 2, "--repeat must be >= 1"},
		{[]string{"bench", st}, 2, "--out DIR is required"},
		{[]string{"bench", bad, "--out", out}, 1, "bad.suite:2: gen potts: --rows must be >= 1"},
		{[]string{"bench", filepath.Join(dir, "none.suite"), "--out", out}, 1, "no such file"},
		{[]string{"bench", "render", dir}, 1, "results.jsonl: no such file"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed command created %s", out)
	}
}

// TestBenchGenMatchesGen checks that a suite's gen line builds the same
// model as `sdrmap gen` with the same flags (the defaults included).
func TestBenchGenMatchesGen(t *testing.T) {
	dir := t.TempDir()
	for _, c := range genCases {
		for _, args := range [][]string{c.args, nil} {
			if args == nil && c.kind == "orient" {
				args = []string{"--vars", "40"} // the default size is large
			}
			path := filepath.Join(dir, c.kind+".uai")
			if _, errs, code := runCLI(t, append(append([]string{"gen", c.kind}, args...), "-o", path)...); code != 0 {
				t.Fatalf("gen %s: exit %d: %s", c.kind, code, errs)
			}
			want, _ := os.ReadFile(path)
			g, err := suite.ParseGen(c.kind, args)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := uai.WriteModel(&got, g.Build()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s %v: the suite's model differs from sdrmap gen's", c.kind, args)
			}
		}
	}
}
