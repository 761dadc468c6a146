package toulbar2

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/model"
)

// optimum returns the least energy over the assignments that toulbar2
// accepts (finite energy, total cost within the bound), by enumeration,
// with one such assignment; ok is false when there is none.
func optimum(p *Problem) (best float64, arg []int, ok bool) {
	m := p.Model
	x := make([]int, m.NumVars())
	best = math.Inf(1)
	for {
		if e := m.Energy(x); e < best && p.Feasible(e) {
			best, arg = e, append([]int(nil), x...)
		}
		i := len(x) - 1
		for ; i >= 0; i-- {
			if x[i]++; x[i] < m.Card[i] {
				break
			}
			x[i] = 0
		}
		if i < 0 {
			return best, arg, arg != nil
		}
	}
}

func lookToulbar2() (string, bool) {
	p, err := exec.LookPath("toulbar2")
	return p, err == nil
}

// toulbar2Result runs toulbar2 on file and returns its printed optimum
// (ok false for "No solution") and its solution.
func toulbar2Result(t *testing.T, file string) (cost float64, x []int, ok bool) {
	t.Helper()
	sol := file + ".sol"
	out, err := exec.Command("toulbar2", file, "-w="+sol).CombinedOutput()
	if err != nil {
		t.Fatalf("toulbar2 %s: %v\n%s", file, err, out)
	}
	s := string(out)
	if strings.Contains(s, "No solution") {
		return 0, nil, false
	}
	i := strings.Index(s, "Optimum: ")
	if i < 0 {
		t.Fatalf("toulbar2 %s: no optimum in\n%s", file, s)
	}
	f := strings.Fields(s[i+len("Optimum: "):])
	if cost, err = strconv.ParseFloat(f[0], 64); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sol)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range strings.Fields(string(data)) {
		v, err := strconv.Atoi(w)
		if err != nil {
			t.Fatalf("toulbar2's solution %q: %v", data, err)
		}
		x = append(x, v)
	}
	return cost, x, true
}

// TestAgainstToulbar2 generates wcsp and cfn files, solves them with
// toulbar2 and checks the reader's model against it: the energy of
// toulbar2's solution is toulbar2's printed optimum (its negation when
// maximizing), which is also the least energy by enumeration among the
// assignments within the file's bound; toulbar2 finds no solution exactly
// when there is none.
func TestAgainstToulbar2(t *testing.T) {
	if _, ok := lookToulbar2(); !ok {
		t.Skip("toulbar2 not installed (Debian: apt-get install toulbar2)")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	n := 150
	if testing.Short() {
		n = 30
	}
	none := 0
	for i := range n {
		cfn := i%2 == 1
		g := genRandom(rng, cfn)
		text, ext := g.wcsp(rng), ".wcsp"
		if cfn {
			text, ext = g.cfn(rng), ".cfn"
		}
		file := filepath.Join(dir, strconv.Itoa(i)+ext)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := ReadFile(file)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if !p.Exact || p.Precision != g.prec || p.Maximize != g.max {
			t.Fatalf("%s: exact %v, precision %d, maximize %v; generated %d, %v", file, p.Exact, p.Precision, p.Maximize, g.prec, g.max)
		}
		best, _, feasible := optimum(p)
		cost, x, ok := toulbar2Result(t, file)
		if ok != feasible {
			t.Fatalf("%s: toulbar2 found a solution: %v, enumeration: %v (best %v)\n%s", file, ok, feasible, best, text)
		}
		if !ok {
			none++
			continue
		}
		if err := p.Model.Check(x); err != nil {
			t.Fatalf("%s: toulbar2's solution %v: %v", file, x, err)
		}
		tol := 1e-9 * math.Max(1, math.Abs(cost))
		if e := p.Cost(p.Model.Energy(x)); math.Abs(e-cost) > tol {
			t.Errorf("%s: toulbar2's solution %v has energy %v, toulbar2 prints %v\n%s", file, x, e, cost, text)
		}
		if e := p.Cost(best); math.Abs(e-cost) > tol {
			t.Errorf("%s: least energy by enumeration %v, toulbar2's optimum %v\n%s", file, e, cost, text)
		}
	}
	t.Logf("%d files, %d without solution", n, none)
}

func TestZeroArityEnergy(t *testing.T) {
	p, err := ParseWCSP("c.wcsp", []byte("c 1 2 2 100\n2\n0 7 0\n1 0 3 1\n1 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	for x, want := range []float64{10, 12} {
		if e := p.Model.Energy([]int{x}); e != want {
			t.Errorf("energy of %d: %v, want %v", x, e, want)
		}
	}
	_ = model.Log10
}

// TestArithmeticAgainstToulbar2: wcsp files with the binary arithmetic and
// disjunctive cost functions in intension beside unary tables; toulbar2's
// optimum (or its "No solution") is the least energy by enumeration among
// the assignments within the bound. (The same functions in cfn files are
// refused: toulbar2 1.1.1 gives other optima for them on 11 of these 60.)
func TestArithmeticAgainstToulbar2(t *testing.T) {
	if _, ok := lookToulbar2(); !ok {
		t.Skip("toulbar2 not installed (Debian: apt-get install toulbar2)")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(13, 14))
	keywords := []string{">=", ">", "<=", "<", "=", "disj", "sdisj"}
	for i := range 60 {
		n := 2 + rng.IntN(3)
		card := make([]int, n)
		for v := range card {
			card[v] = 2 + rng.IntN(4)
		}
		var wcsp strings.Builder
		var fw []string
		for v := range n {
			c := make([]string, card[v])
			for k := range c {
				c[k] = strconv.Itoa(rng.IntN(6))
			}
			fw = append(fw, fmt.Sprintf("1 %d 0 %d\n", v, card[v]))
			for k := range c {
				fw[len(fw)-1] += fmt.Sprintf("%d %s\n", k, c[k])
			}
		}
		for range 1 + rng.IntN(3) {
			xy := rng.Perm(n)[:2]
			kw := keywords[rng.IntN(len(keywords))]
			q := make([]string, arithParams[kw])
			for j := range q {
				q[j] = strconv.Itoa(rng.IntN(4))
			}
			if kw == "sdisj" {
				q[2], q[3] = strconv.Itoa(rng.IntN(card[xy[0]])), strconv.Itoa(rng.IntN(card[xy[1]]))
			}
			fw = append(fw, fmt.Sprintf("2 %d %d -1 %s %s\n", xy[0], xy[1], kw, strings.Join(q, " ")))
		}
		cs := make([]string, n)
		for v, c := range card {
			cs[v] = strconv.Itoa(c)
		}
		fmt.Fprintf(&wcsp, "a %d 5 %d 100\n%s\n%s", n, len(fw), strings.Join(cs, " "), strings.Join(fw, ""))
		for _, f := range []struct{ ext, text string }{{".wcsp", wcsp.String()}} {
			file := filepath.Join(dir, strconv.Itoa(i)+f.ext)
			if err := os.WriteFile(file, []byte(f.text), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := ReadFile(file)
			if err != nil {
				t.Fatalf("%v\n%s", err, f.text)
			}
			best, _, feasible := optimum(p)
			cost, _, ok := toulbar2Result(t, file)
			if ok != feasible || (ok && cost != best) {
				t.Errorf("%s: toulbar2 %v (%v), enumeration %v (%v)\n%s", file, cost, ok, best, feasible, f.text)
			}
		}
	}
}
