package batch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/format/uai"
)

// TestResumeByInput: a record belongs to its input. A different model at
// the same path under another input folder, and the same file changed, are
// solved again (issue 45: the first was skipped and the old .MPE kept); the
// same bytes are skipped.
func TestResumeByInput(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	a, b := filepath.Join(in, "a", "x.uai"), filepath.Join(in, "b", "x.uai")
	writePotts(t, a, 4, 1)
	writePotts(t, b, 5, 2)
	fl := testFlags()
	run := func(input string) *Summary {
		t.Helper()
		sum, err := Run(context.Background(), Config{Inputs: []string{filepath.Dir(input)}, Out: out, Flags: fl, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	// checkMPE: x.uai.MPE holds an assignment of the model at path.
	checkMPE := func(path string) {
		t.Helper()
		m, err := uai.ReadModelFile(path)
		if err != nil {
			t.Fatal(err)
		}
		x, err := uai.ReadResultFile(filepath.Join(out, "x.uai.MPE"))
		if err != nil {
			t.Fatal(err)
		}
		if len(x) != m.NumVars() {
			t.Fatalf("x.uai.MPE has %d values, %s has %d variables", len(x), path, m.NumVars())
		}
		if r := readResults(t, out); len(r) != 1 || r[path].Input != path {
			t.Fatalf("results.jsonl %v, want the one record of %s", r, path)
		}
	}
	if s := run(a); s.Solved != 1 {
		t.Fatalf("a: %+v", s)
	}
	checkMPE(a)
	if s := run(b); s.Skipped != 0 || s.Replaced != 1 || s.Solved != 1 {
		t.Fatalf("b after a: %+v, want it solved, a's record replaced", s)
	}
	checkMPE(b)
	if s := run(b); s.Skipped != 1 || s.Solved != 0 {
		t.Fatalf("b again: %+v, want it skipped", s)
	}
	writePotts(t, b, 6, 3)
	if s := run(b); s.Skipped != 0 || s.Solved != 1 {
		t.Fatalf("b changed: %+v, want it solved again", s)
	}
	checkMPE(b)
}

// TestClashMessage: two inputs with one output path are told apart by
// where they are: in one folder, one must go; under two input folders at
// the same path, the message says so (it advised "different folders" for
// files already in different ones).
func TestClashMessage(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"a/x.uai", "b/x.uai", "c/y.uai", "c/y.uai.xz"} {
		writeFile(t, filepath.Join(d, f), "")
	}
	_, err := Match([]string{filepath.Join(d, "a"), filepath.Join(d, "b")})
	if err == nil || !strings.Contains(err.Error(), "same path x.uai under their input folders") || strings.Contains(err.Error(), "different folders") {
		t.Errorf("two folders: %v", err)
	}
	_, err = Match([]string{filepath.Join(d, "c")})
	if err == nil || !strings.Contains(err.Error(), "in one folder") {
		t.Errorf("one folder: %v", err)
	}
}

// TestExitFailed: sdrmap-batch exits ExitFailed when a model failed, on
// the run that solved it and on a re-run that skips its record (it exited
// 0 when 10 of 12 models failed).
func TestExitFailed(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writePotts(t, filepath.Join(in, "good.uai"), 4, 1)
	writeFile(t, filepath.Join(in, "bad.uai"), "MARKOV\n3\n2 2\n")
	for run := range 2 {
		var stdout, stderr bytes.Buffer
		code := Main([]string{in, "--out", out, "--workers", "1", "--progress=false"}, &stdout, &stderr)
		if code != ExitFailed || !strings.Contains(stderr.String(), "1 of 2 models failed") {
			t.Fatalf("run %d: exit %d, want %d; stderr %s", run+1, code, ExitFailed, stderr.String())
		}
	}
	if err := os.Remove(filepath.Join(in, "bad.uai")); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{in, "--out", out, "--workers", "1", "--progress=false"}, &stdout, &stderr); code != 0 {
		t.Fatalf("without the bad model: exit %d, stderr %s", code, stderr.String())
	}
}
