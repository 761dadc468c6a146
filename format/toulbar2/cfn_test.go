package toulbar2

import (
	"fmt"
	"strings"
	"testing"
)

// TestCFNForms reads the same network in the forms the cfn format allows
// and checks its energies.
func TestCFNForms(t *testing.T) {
	forms := []string{
		`{"problem": {"name": "t", "mustbe": "<9.0"}, "variables": {"x": ["a", "b", "c"], "y": 2},
		  "functions": {"f": {"scope": ["x"], "costs": [1.5, 2.5, -1.0]},
		                "g": {"scope": ["x", "y"], "defaultcost": 0, "costs": ["a", 1, 3.5, "c", 0, 2]},
		                "k": {"scope": [], "costs": [0.5]}}}`,
		// Compact: no quotes, commas or colons; [] for {}; positional problem;
		// variables and functions without names; a comment line; the last
		// bracket missing.
		"[ [t <9.0] [[a b c] 2]\n# functions\n[ [[0] [1.5 2.5 -1.0]] [[0 1] 0 [0 1 3.5 2 0 2]] [[] [0.5]] ]",
		// Shared table, defined after its use.
		`{problem {name t mustbe <9.0} variables {x [a b c] y 2}
		  functions {f {scope [x] costs [1.5 2.5 -1.0]} h {scope [x y] costs "g"}
		  g {scope [x y] costs [0 3.5 0 0 2 0]} k {scope [] costs [0.5]}}}`,
	}
	want := map[[2]int]float64{{0, 0}: 2, {0, 1}: 5.5, {1, 0}: 3, {1, 1}: 3, {2, 0}: 1.5, {2, 1}: -0.5}
	for i, text := range forms {
		p, err := ParseCFN("t.cfn", []byte(text))
		if err != nil {
			t.Fatalf("form %d: %v", i, err)
		}
		if !p.Exact || p.Precision != 1 || p.Bound != 9 {
			t.Errorf("form %d: exact %v, precision %d, bound %v", i, p.Exact, p.Precision, p.Bound)
		}
		for x, e := range want {
			if i == 2 {
				e += map[[2]int]float64{{0, 1}: 3.5, {2, 0}: 2}[x] // h repeats g
			}
			if got := p.Model.Energy(x[:]); got != e {
				t.Errorf("form %d: energy of %v: %v, want %v", i, x, got, e)
			}
		}
	}
	for _, c := range []struct{ text, want string }{
		{"{problem {name t mustbe <9}\nvariables {x 2}\nfunctions {f {scope [x] costs [1 2]}", "t.cfn:3: the file ends: the container opened with '{' on line 3 is not closed"},
		{"{problem {name t mustbe <9}\nvariables {x 2}\nfunctions {f {scope [x] costs [1 2e3]}}}", "t.cfn:3: function f: \"2e3\" is not a number"},
		{"{problem {name t mustbe 9}\nvariables {x 2}\nfunctions {}}", "t.cfn:1: mustbe: expected < or > followed by a number"},
		{"{problem {name t mustbe <9}\nvariables {x -5}\nfunctions {}}", "t.cfn:2: variable \"x\" has the interval domain 0..4"},
		{"{problem {name t mustbe <9}\nvariables {x 2}\nfunctions {f {scope [x] costs \"g\"}}}", "t.cfn:3: function f shares the costs of \"g\", which is not a function with a table"},
	} {
		_, err := ParseCFN("t.cfn", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func TestParseSolution(t *testing.T) {
	p, err := ParseCFN("s.cfn", []byte("{problem {name s mustbe <9} variables {x [a b c] y 2} functions {}}"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, want string }{
		{"2 1\n", "[2 1]"},
		{"c 0", "[2 0]"},
		{"b\n1\n", "[1 1]"},
		{"d 1", `s.sol:1: value "d" of variable 0: neither a value name nor an index in 0..2`},
		{"1 2", `s.sol:1: value "2" of variable 1: neither a value name nor an index in 0..1`},
		{"1\n", "s.sol:1: 1 values for 2 variables"},
		{"1 1 1", "s.sol:1: more values than the 2 variables"},
	} {
		x, err := p.ParseSolution("s.sol", []byte(c.text))
		got := fmt.Sprint(x)
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q: %s, want %s", c.text, got, c.want)
		}
	}
	if IsSolution([]byte("MAP\n2 0 1\n")) || !IsSolution([]byte("0 1\n")) {
		t.Error("IsSolution")
	}
}
