package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/format/opengm"
	"github.com/sdrmap/sdrmap/internal/refdata"
)

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

const example = "../../testdata/uai2008_pdb1akg.uai.xz"

// TestSolveExample runs README's main command (exact on the shipped
// example) and checks the proven optimum 6.048465 of reference.tsv, the
// JSON keys and the -o file.
func TestSolveExample(t *testing.T) {
	out, errs, code := runCLI(t, "solve", example)
	if code != 0 || !strings.Contains(out, "answer    optimal") || !strings.Contains(out, "energy    6.048465") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	res := filepath.Join(t.TempDir(), "x.MAP")
	out, errs, code = runCLI(t, "solve", example, "--json", "-o", res)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"termination", "answer", "energy", "log10", "bound", "gap", "assignment", "time_s", "energy_convention"} {
		if _, ok := o[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if _, ok := o["status"]; ok {
		t.Error("JSON has the legacy status")
	}
	if e := o["energy"].(float64); math.Abs(e-6.048465) > 1e-6 {
		t.Errorf("energy %v", e)
	}
	if !strings.Contains(out, "\n  \"assignment\": [2,0,0,3,1,1,2,7,0,13,1,7,2,2]") {
		t.Errorf("the assignment is not on one line of its own:\n%s", out)
	}
	out, errs, code = runCLI(t, "eval", example, res, "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	var ev struct{ Energy float64 }
	if err := json.Unmarshal([]byte(out), &ev); err != nil || math.Abs(ev.Energy-o["energy"].(float64)) > 1e-12 {
		t.Fatalf("eval of the written result: %v %v", ev, err)
	}
}

func TestInfoJSON(t *testing.T) {
	out, errs, code := runCLI(t, "info", example, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"variables": 14, "min_cardinality": 2, "max_cardinality": 18, "factors": 25,
		"max_arity": 2, "edges": 11, "forbidden_entries": 3, "sdr_dimension": 76}
	for k, v := range want {
		if o[k] != v {
			t.Errorf("%s = %v, want %v", k, o[k], v)
		}
	}
}

// TestEvalShared evaluates a shipped .MAP with evidence-free and evidence
// models through the command line.
func TestEvalShared(t *testing.T) {
	dir := refdata.Require(t)
	model := filepath.Join(dir, "uai", "grids", "uai2014_Grids_26.uai.xz")
	out, errs, code := runCLI(t, "eval", model, strings.TrimSuffix(model, ".xz")+".MAP")
	if code != 0 || !strings.Contains(out, "energy  -3051.01275") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	dbn := filepath.Join(dir, "uai", "dbn", "pic2011_rus_20_40_9_3.uai")
	out, errs, code = runCLI(t, "info", dbn+".xz", "--evid", dbn+".evid", "--json")
	if code != 0 || !strings.Contains(out, `"free_variables": 70`) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

func TestErrors(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.uai")
	os.WriteFile(bad, []byte("MARKOV\n2\n2 2\n1\n1 0\n2 1 -1\n"), 0o644)
	wrongLen := filepath.Join(tmp, "x.MAP")
	os.WriteFile(wrongLen, []byte("MAP\n3 0 0 0\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"solve", bad}, 1, "bad.uai:6: token 10: factor 0: negative entry"},
		{[]string{"solve", filepath.Join(tmp, "missing.uai")}, 1, "no such file"},
		{[]string{"solve", example, "--solver", "nope"}, 2, "unknown solver"},
		{[]string{"solve", example, "--bogus"}, 2, "unknown flag"},
		{[]string{"solve"}, 2, "arg(s)"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"eval", example, wrongLen}, 1, "assignment has 3 values"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestConvertRoundTrip converts the example to UAI text and back: same
// optimum. Without -tags hdf5 an .h5 output names the tag.
func TestConvertRoundTrip(t *testing.T) {
	tmp := t.TempDir()
	plain := filepath.Join(tmp, "p.uai")
	if _, errs, code := runCLI(t, "convert", example, plain); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := runCLI(t, "solve", plain)
	if code != 0 || !strings.Contains(out, "energy    6.048465") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	h5 := filepath.Join(tmp, "p.h5")
	_, errs, code = runCLI(t, "convert", example, h5)
	if !opengm.Enabled {
		if code != 1 || !strings.Contains(errs, "-tags hdf5") {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return
	}
	if code != 0 {
		t.Fatal(errs)
	}
	out, errs, code = runCLI(t, "solve", h5+":gm", "--json")
	if code != 0 || !strings.Contains(out, `"energy": 6.048465`) || !strings.Contains(out, "OpenGM") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

func TestExportSDPA(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.dat-s")
	if _, errs, code := runCLI(t, "export-sdpa", example, "-o", out); code != 0 {
		t.Fatal(errs)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), "76") {
		t.Fatalf("export: %v", err)
	}
	if _, _, code := runCLI(t, "export-sdpa", example); code != 2 {
		t.Fatalf("missing -o: exit %d", code)
	}
}
