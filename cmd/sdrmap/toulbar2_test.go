package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/format/toulbar2"
)

const toulbar2Data = "../../format/toulbar2/testdata"

var toulbar2Files = []string{"features.wcsp", "features.cfn", "maximize.cfn", "arith.wcsp"}

// evalEnergy runs sdrmap eval --json on model and the assignment x.
func evalEnergy(t *testing.T, model string, x []int) float64 {
	t.Helper()
	sol := filepath.Join(t.TempDir(), "x.MAP")
	s := fmt.Sprint(len(x))
	for _, v := range x {
		s += " " + strconv.Itoa(v)
	}
	if err := os.WriteFile(sol, []byte("MAP\n"+s+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "eval", model, sol, "--json")
	if code != 0 {
		t.Fatalf("eval %s: exit %d: %s", model, code, errs)
	}
	var ev struct{ Energy json.RawMessage }
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err)
	}
	if string(ev.Energy) == `"+Inf"` {
		return math.Inf(1)
	}
	e, err := strconv.ParseFloat(string(ev.Energy), 64)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestToulbar2Eval: toulbar2's solution of the test files, evaluated by
// sdrmap eval, has toulbar2's printed cost as its energy (negated for the
// maximization), and sdrmap solve finds that optimum.
func TestToulbar2Eval(t *testing.T) {
	if _, err := exec.LookPath("toulbar2"); err != nil {
		t.Skip("toulbar2 not installed (Debian: apt-get install toulbar2)")
	}
	for _, name := range toulbar2Files {
		file := filepath.Join(toulbar2Data, name)
		sol := filepath.Join(t.TempDir(), "sol")
		out, err := exec.Command("toulbar2", file, "-w="+sol).CombinedOutput()
		if err != nil {
			t.Fatalf("toulbar2 %s: %v\n%s", name, err, out)
		}
		i := strings.Index(string(out), "Optimum: ")
		if i < 0 {
			t.Fatalf("toulbar2 %s: no optimum\n%s", name, out)
		}
		cost, err := strconv.ParseFloat(strings.Fields(string(out[i+9:]))[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(sol)
		if err != nil {
			t.Fatal(err)
		}
		var x []int
		for _, w := range strings.Fields(string(data)) {
			v, err := strconv.Atoi(w)
			if err != nil {
				t.Fatal(err)
			}
			x = append(x, v)
		}
		want := cost
		if strings.HasPrefix(name, "maximize") {
			want = -cost
		}
		if e := evalEnergy(t, file, x); math.Abs(e-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: sdrmap eval of toulbar2's solution %v: %v; toulbar2's cost %v", name, x, e, cost)
		}
		// The solution file as toulbar2 wrote it.
		out2, errs, code := runCLI(t, "eval", file, sol, "--json")
		var ev struct{ Energy float64 }
		if code != 0 || json.Unmarshal([]byte(out2), &ev) != nil || math.Abs(ev.Energy-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: sdrmap eval of toulbar2's file %q: exit %d, %s%s; toulbar2's cost %v", name, data, code, out2, errs, cost)
		}
		sout, errs, code := runCLI(t, "solve", file, "--json")
		var res struct {
			Energy float64
			Answer string
		}
		if code != 0 || json.Unmarshal([]byte(sout), &res) != nil {
			t.Fatalf("solve %s: exit %d: %s", name, code, errs)
		}
		if math.Abs(res.Energy-want) > 1e-9*math.Max(1, math.Abs(want)) || res.Answer != "optimal" {
			t.Errorf("%s: solve: energy %v, answer %s; toulbar2's optimum %v", name, res.Energy, res.Answer, want)
		}
	}
}

// TestToulbar2Convert: sdrmap convert from the test files to UAI and back,
// and between wcsp and cfn, keeps every assignment's energy (to 1e-12
// relative through UAI's probabilities, exactly otherwise).
func TestToulbar2Convert(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 10))
	for _, name := range toulbar2Files {
		src := filepath.Join(toulbar2Data, name)
		var chains [][]string
		for _, via := range []string{".uai", ".cfn", ".wcsp"} {
			chains = append(chains, []string{via, filepath.Ext(name)})
		}
		for _, chain := range chains {
			from, steps := src, []string{src}
			failed := false
			for k, ext := range chain {
				to := filepath.Join(dir, fmt.Sprintf("%s.%d%s", name, k, ext))
				_, errs, code := runCLI(t, "convert", from, to)
				if code != 0 {
					// Only wcsp refuses, and only decimal costs or a negative least energy.
					if ext != ".wcsp" || !strings.Contains(errs, "not an integer") && !strings.Contains(errs, "below 0") {
						t.Fatalf("convert %s %s: exit %d: %s", from, to, code, errs)
					}
					failed = true
					break
				}
				from = to
				steps = append(steps, to)
			}
			if failed {
				continue
			}
			card := cards(t, src)
			for range 20 {
				x := make([]int, len(card))
				for i, c := range card {
					x[i] = rng.IntN(c)
				}
				want := evalEnergy(t, src, x)
				for _, f := range steps[1:] {
					got := evalEnergy(t, f, x)
					if want != got && math.Abs(want-got) > 1e-12*math.Max(1, math.Abs(want)) {
						t.Errorf("%v: energy of %v: %v in %s, %v in %s", chain, x, want, name, got, f)
					}
				}
			}
		}
	}
}

// cards returns the cardinalities of a toulbar2 file's variables.
func cards(t *testing.T, file string) []int {
	t.Helper()
	p, err := toulbar2.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return p.Model.Card
}

// TestToulbar2Errors: a malformed file is an error naming the file, line
// and problem, exit status 1.
func TestToulbar2Errors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"a.wcsp", "a 2 2 1 10\n2 2\n2 0 5 0 1\n", "a.wcsp:3: variable 1 of the scope of cost function 0 5 is outside 0..1"},
		{"b.wcsp", "b 1 2 1 10\n2\n1 0 1.5 0\n", "b.wcsp:3: default cost of cost function 0 \"1.5\": wcsp costs are integers"},
		{"c.cfn", "{problem {name c mustbe <5} variables {x 2} functions {f {scope [x] costs [1 2 3]}}}", "c.cfn:1: function f: 3 costs, its table has 2 entries"},
		{"d.cfn", "{problem {name d mustbe <5}\nvariables {x [a b]}\nfunctions {f {scope [x] defaultcost 0 costs [c 1]}}}", "d.cfn:3: function f: \"c\" is not a value of variable \"x\""},
		{"e.cfn", "{problem {name e mustbe <5}\nvariables {x 2}\nfunctions {f {scope [x y] type salldiff params {metric var cost 1}}}}", "e.cfn:3: function f is the cost function in intension \"salldiff\""},
	} {
		file := filepath.Join(dir, c.name)
		if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs, code := runCLI(t, "info", file)
		if code != exitError || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.name, code, errs, c.want)
		}
	}
}

// TestToulbar2RoundedBound: on a cycle of five binary variables whose
// edges cost 1 when equal (optimum 1), the relaxation's bound is below 1;
// solve rounds it up to 1 because the costs are integers, says so, and
// answers optimal (by the rounded bound, or already by the refined one
// within the proof's tolerance: the note then does not claim the proof;
// TestFinishRoundsBound in internal/solvecmd covers both).
func TestToulbar2RoundedBound(t *testing.T) {
	file := filepath.Join(t.TempDir(), "odd5.wcsp")
	text := "odd5 5 2 5 100\n2 2 2 2 2\n"
	for i := range 5 {
		text += fmt.Sprintf("2 %d %d 0 2\n0 0 1\n1 1 1\n", i, (i+1)%5)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "solve", file, "--solver", "sdpad-lr")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"answer    optimal", "energy    1.000000000  (sum of toulbar2 costs)", "bound     1.000000000",
		"note      bound rounded up to 1: the costs are integers"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
