package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSolveExactLogs: issue 45, item 1 through the command: the table
// 5e-324 1e-308 has its optimum at the second state (energy 709.196...),
// where main answered optimal for the first (energy 699.09 printed).
func TestSolveExactLogs(t *testing.T) {
	path := writeTemp(t, "tiny.uai", "MARKOV\n1\n2\n1\n1 0\n2\n5e-324 1e-308\n")
	for _, solver := range []string{"exact", "auto"} {
		out, errs, code := runCLI(t, "solve", "--solver", solver, "--json", path)
		if code != 0 || !strings.Contains(out, `"energy": 709.19620864216`) || !strings.Contains(out, `"assignment": [1]`) {
			t.Errorf("%s: exit %d, output %s %s", solver, code, out, errs)
		}
	}
}

// TestOutputBeforeSolve: issue 45, item 3. An -o that cannot be written
// fails before the solve (main ran the solve to its end first: its -v
// lines show it); devices are written, not replaced; a failed write still
// prints the summary and exits 1.
func TestOutputBeforeSolve(t *testing.T) {
	out, errs, code := runCLI(t, "solve", "-v", "--solver", "trws", example, "-o", "/nonexistent/x.map")
	if code != exitError || !strings.Contains(errs, "/nonexistent/x.map") || strings.Contains(errs, "trws:") || out != "" {
		t.Errorf("-o /nonexistent/x.map: exit %d, stdout %q, stderr %q; want exit 1 before the solve", code, out, errs)
	}
	out, errs, code = runCLI(t, "solve", "--solver", "exact", example, "-o", "/dev/full")
	if code != exitError || !strings.Contains(out, "answer    optimal") || !strings.Contains(errs, "/dev/full: ") {
		t.Errorf("-o /dev/full: exit %d, stdout %q, stderr %q; want the summary and exit 1", code, out, errs)
	}
	if fi, err := os.Lstat("/dev/full"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/full is now %v", fi.Mode())
	}
	out, errs, code = runCLI(t, "solve", "--solver", "exact", example, "-o", "/dev/null")
	if fi, err := os.Lstat("/dev/null"); code != 0 || err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("-o /dev/null: exit %d (%s), /dev/null is now %v", code, errs, fi.Mode())
	}
	out, errs, code = runCLI(t, "solve", "--solver", "exact", example, "-o", "/dev/stdout")
	if fi, err := os.Lstat("/dev/stdout"); code != 0 || !strings.HasPrefix(out, "MAP\n") || !strings.Contains(errs, "answer    optimal") || err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("-o /dev/stdout: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestInfeasibleExit: issue 45, item 4 through the command: an all-zero
// table and evidence that empties a factor answer infeasible, exit 3
// (main: exit 1, "the model has no feasible assignment").
func TestInfeasibleExit(t *testing.T) {
	zero := writeTemp(t, "zero.uai", "MARKOV 2 2 2 2 1 0 2 0 1 2 0.5 0.5 4 0 0 0 0")
	pair := writeTemp(t, "pair.uai", "MARKOV 2 2 2 1 2 0 1 4 0 0 1 1")
	evid := writeTemp(t, "pair.uai.evid", "1 0 0")
	for _, args := range [][]string{{"solve", zero}, {"solve", pair, "--evid", evid}, {"solve", "--solver", "factor", pair, "--evid", evid}} {
		out, errs, code := runCLI(t, args...)
		if code != exitInfeasible || !strings.Contains(out, "answer    infeasible") {
			t.Errorf("%v: exit %d, output %q %q", args, code, out, errs)
		}
	}
}

// TestModelLimits: issue 45, item 2 through the commands: a 22-byte file
// asking for 10^8 states and one asking for 2^31 are input errors (exit 1,
// naming file and line), in every command that reads a model, and
// --max-n / --max-entries set the limits.
func TestModelLimits(t *testing.T) {
	big := writeTemp(t, "big.uai", "MARKOV 1 100000000 0")
	huge := writeTemp(t, "huge.uai", "MARKOV\n1\n2147483648\n0\n")
	res := writeTemp(t, "x.map", "MAP\n1 0\n")
	for _, args := range [][]string{
		{"solve", big}, {"info", big}, {"eval", big, res}, {"convert", big, filepath.Join(t.TempDir(), "o.uai")},
		{"solve", huge}, {"info", huge, "--max-n", "100"},
	} {
		out, errs, code := runCLI(t, args...)
		if code != exitError || !strings.Contains(errs, args[1]+":1: ") && !strings.Contains(errs, args[1]+":3: ") || !strings.Contains(errs, "--max-n") {
			t.Errorf("%v: exit %d, output %q %q", args, code, out, errs)
		}
	}
	small := writeTemp(t, "small.uai", "MARKOV 2 3 3 1 2 0 1 9 1 1 1 1 1 1 1 1 1")
	if _, errs, code := runCLI(t, "info", small, "--max-entries", "8"); code != exitError || !strings.Contains(errs, "more than the limit 8 (--max-entries") {
		t.Errorf("--max-entries 8: exit %d, %q", code, errs)
	}
	if _, errs, code := runCLI(t, "info", small, "--max-n", "6"); code != exitError || !strings.Contains(errs, "reaches 7, more than the limit 6") {
		t.Errorf("--max-n 6: exit %d, %q", code, errs)
	}
	if _, errs, code := runCLI(t, "info", small, "--max-n", "-1"); code != exitUsage {
		t.Errorf("--max-n -1: exit %d, %q", code, errs)
	}
	if _, errs, code := runCLI(t, "solve", small, "--max-entries", "-1"); code != exitUsage {
		t.Errorf("solve --max-entries -1: exit %d, %q", code, errs)
	}
	if _, errs, code := runCLI(t, "info", small, "--max-n", "7", "--max-entries", "9"); code != 0 {
		t.Errorf("at the limits: exit %d, %q", code, errs)
	}
	// A factor of arity 3 whose conversion may exceed the limit.
	ternary := writeTemp(t, "ternary.uai", "MARKOV 3 5 5 5 1 3 0 1 2 125 "+strings.Repeat("0.5 2 ", 62)+"1")
	for _, cmd := range []string{"info", "solve"} {
		if _, errs, code := runCLI(t, cmd, ternary, "--max-entries", "1000"); code != exitError || !strings.Contains(errs, "converting the factors of arity > 2 may need") {
			t.Errorf("%s, conversion beyond --max-entries: exit %d, %q", cmd, code, errs)
		}
	}
}
