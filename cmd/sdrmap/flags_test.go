package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

// TestRejectedFlags: numeric flags out of range are a bad command line
// (exit 2) with a message naming the flag; on 6f63ac0 --tol, --max-iter
// and --max-states were accepted silently and --time-limit 20s refused.
func TestRejectedFlags(t *testing.T) {
	for _, c := range []struct{ flag, value string }{
		{"--tol", "-1"}, {"--tol", "NaN"}, {"--tol", "Inf"},
		{"--max-iter", "-3"},
		{"--max-states", "-1"}, {"--max-states", "NaN"}, {"--max-states", "0.5"},
		{"--time-limit", "-1"}, {"--time-limit", "NaN"}, {"--time-limit", "-2s"}, {"--time-limit", "soon"}, {"--time-limit", "1e300"},
		{"--rank", "-1"},
	} {
		out, errs, code := runCLI(t, "solve", example, c.flag, c.value)
		if code != exitUsage || !strings.Contains(errs, c.flag) || out != "" {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q", c.flag, c.value, code, out, errs)
		}
	}
}

func TestDurationFlag(t *testing.T) {
	for v, want := range map[string]time.Duration{"20s": 20 * time.Second, "1.5": 1500 * time.Millisecond, "1m30s": 90 * time.Second, "0": 0} {
		var fl solvecmd.Flags
		f := pflag.NewFlagSet("solve", pflag.ContinueOnError)
		fl.Register(f)
		if err := f.Set("time-limit", v); err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		if s, err := fl.Settings(); err != nil || s.TimeLimit != want {
			t.Errorf("%q: %v, %v; want %v", v, s.TimeLimit, err, want)
		}
	}
	if _, errs, code := runCLI(t, "solve", example, "--time-limit", "20s"); code != exitOK {
		t.Fatalf("--time-limit 20s: exit %d: %s", code, errs)
	}
}

// TestOutputStdout: solve -o - writes the assignment to stdout in the UAI
// result format, the summary to stderr (6f63ac0 wrote a file named "-").
func TestOutputStdout(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	abs := filepath.Join(wd, example)
	t.Chdir(dir)
	out, errs, code := runCLI(t, "solve", abs, "-o", "-")
	if code != exitOK || !strings.Contains(errs, "energy    6.048465") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Fatal(`a file named "-" was written`)
	}
	res := filepath.Join(dir, "stdout.MAP")
	if err := os.WriteFile(res, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := uai.ReadResultFile(res)
	if err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	m, err := uai.ReadModelFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	if e := m.Energy(x); math.Abs(e-6.048465202) > 1e-6 {
		t.Fatalf("assignment on stdout has energy %v", e)
	}
}

// TestWriteErrorNamesFile: a failed -o write names the file asked for, not
// its temporary .tmp (6f63ac0: "open .../x.MAP.tmp: no such file or directory").
func TestWriteErrorNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "x.MAP")
	_, errs, code := runCLI(t, "solve", example, "-o", path)
	if code != exitError || !strings.Contains(errs, path+":") || strings.Contains(errs, ".tmp") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

// TestExitStatus: one exit status per outcome (exitcode.go); 6f63ac0 exited
// 0 on an infeasible model and had no --version.
func TestExitStatus(t *testing.T) {
	// x0 and x1 must both be 0 (unaries), and the pair (0, 0) is forbidden.
	infeasible := filepath.Join(t.TempDir(), "inf.uai")
	if err := os.WriteFile(infeasible, []byte("MARKOV\n2\n2 2\n3\n1 0\n1 1\n2 0 1\n\n2\n1 0\n2\n1 0\n4\n0 1 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"solve", example}, exitOK, "answer    optimal"},
		{[]string{"solve", infeasible}, exitInfeasible, "infeasible"},
		{[]string{"solve", "nonexistent.uai"}, exitError, "nonexistent.uai"},
		{[]string{"solve"}, exitUsage, "arg"},
		{[]string{"--version"}, exitOK, "sdrmap version "},
	} {
		out, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d (want %d), output %q", c.args, code, c.code, out+errs)
		}
	}
}
