package gen

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/mapsolver/exact"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

func TestDeterministic(t *testing.T) {
	orient := func(seed uint64) *model.Model { m, _ := Orient(30, 4, 3, 0.2, seed); return m }
	gens := map[string]func(seed uint64) *model.Model{
		"orient":   orient,
		"potts":    func(seed uint64) *model.Model { return PottsGrid(7, 9, 3, 0.5, seed) },
		"binary":   func(seed uint64) *model.Model { return Binary(40, 3, seed) },
		"dense":    func(seed uint64) *model.Model { return Binary(12, 11, seed) },
		"matching": func(seed uint64) *model.Model { return DenseMatching(6, 7, seed) },
	}
	for name, g := range gens {
		a, b, c := g(1), g(1), g(2)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two models from seed 1 differ", name)
		}
		if reflect.DeepEqual(a, c) {
			t.Errorf("%s: seeds 1 and 2 give the same model", name)
		}
	}
	_, g1 := Orient(30, 4, 3, 0.2, 5)
	_, g2 := Orient(30, 4, 3, 0.2, 5)
	if !reflect.DeepEqual(g1, g2) {
		t.Error("orient: planted assignments from the same seed differ")
	}
}

func TestRandomGraph(t *testing.T) {
	for _, c := range []struct {
		n      int
		degree float64
		want   int
	}{
		{1, 3, 0}, {2, 0, 1}, {10, 1, 9}, {10, 4, 20}, {50, 3.3, 83}, {12, 11, 66}, {12, 100, 66}, {30, 25, 375},
	} {
		e := RandomGraph(c.n, c.degree, 9)
		if len(e) != c.want {
			t.Errorf("n=%d degree=%v: %d edges, want %d", c.n, c.degree, len(e), c.want)
		}
		seen := map[[2]int]bool{}
		parent := make([]int, c.n)
		for i := range parent {
			parent[i] = i
		}
		var find func(int) int
		find = func(i int) int {
			if parent[i] != i {
				parent[i] = find(parent[i])
			}
			return parent[i]
		}
		comps := c.n
		for k, ij := range e {
			if ij[0] >= ij[1] || ij[0] < 0 || ij[1] >= c.n || seen[ij] {
				t.Fatalf("n=%d: bad or repeated edge %v", c.n, ij)
			}
			if k > 0 && (e[k-1][0] > ij[0] || (e[k-1][0] == ij[0] && e[k-1][1] > ij[1])) {
				t.Fatalf("n=%d: edges not sorted", c.n)
			}
			seen[ij] = true
			if a, b := find(ij[0]), find(ij[1]); a != b {
				parent[a] = b
				comps--
			}
		}
		if comps != 1 {
			t.Errorf("n=%d degree=%v: %d components", c.n, c.degree, comps)
		}
	}
}

func TestSizes(t *testing.T) {
	m, g := Orient(100, 5, 4, 0.1, 3)
	if m.NumVars() != 100 || len(g) != 100 || len(m.Factors) != 200 || m.MaxArity() != 2 {
		t.Errorf("orient: %d variables, %d planted, %d factors", m.NumVars(), len(g), len(m.Factors))
	}
	for _, f := range m.Factors {
		ones := 0
		for _, w := range f.Log {
			if w == 1 {
				ones++
			} else if w != 0 {
				t.Fatalf("orient: entry %v", w)
			}
		}
		if ones != 5 {
			t.Fatalf("orient: %d entries at 1, want one per row", ones)
		}
	}
	m = PottsGrid(4, 6, 3, 1, 1)
	if m.NumVars() != 24 || len(m.Factors) != 24+4*5+3*6 || m.Card[23] != 3 {
		t.Errorf("potts: %d variables, %d factors", m.NumVars(), len(m.Factors))
	}
	m = Binary(20, 19, 1)
	if m.NumVars() != 20 || len(m.Factors) != 20+190 {
		t.Errorf("dense binary: %d variables, %d factors", m.NumVars(), len(m.Factors))
	}
	m = DenseMatching(20, 20, 1)
	if m.NumVars() != 20 || len(m.Factors) != 20+190 {
		t.Errorf("matching: %d variables, %d factors", m.NumVars(), len(m.Factors))
	}
	if got := m.Factors[20].ForbiddenCount(); got != 20 {
		t.Errorf("matching: %d forbidden entries per edge, want 20", got)
	}
}

// TestPottsGridLarge builds a GM-Montage-sized grid (10^5 variables) and its
// pairwise view.
func TestPottsGridLarge(t *testing.T) {
	start := time.Now()
	m := PottsGrid(250, 400, 5, 0.8, 1)
	gen := time.Since(start)
	p, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.NumVars() != 100000 || len(p.Edges) != 250*399+249*400 {
		t.Fatalf("%d variables, %d edges", p.NumVars(), len(p.Edges))
	}
	t.Logf("generated 10^5 variables in %v, pairwise view in %v", gen, time.Since(start)-gen)
}

// TestOrientPlantedOptimal checks, with the exact solver, that the planted
// assignment of a noiseless instance is optimal with energy -|E|, and that
// global shifts keep the energy.
func TestOrientPlantedOptimal(t *testing.T) {
	for seed := uint64(0); seed < 12; seed++ {
		n, mm := 5+int(seed%5), 2+int(seed%3)
		m, g := Orient(n, mm, 3, 0, seed)
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := exact.Solve(context.Background(), p, exact.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		eg := m.Energy(g)
		if res.Status != solver.Solved || eg != -float64(len(m.Factors)) || math.Abs(res.Energy-eg) > 1e-12 {
			t.Fatalf("seed %d: planted energy %v, exact %v (%v), %d edges", seed, eg, res.Energy, res.Status, len(m.Factors))
		}
		shifted := make([]int, n)
		for i := range g {
			shifted[i] = (g[i] + 1) % mm
		}
		if m.Energy(shifted) != eg {
			t.Fatalf("seed %d: shifted planted assignment has energy %v, planted %v", seed, m.Energy(shifted), eg)
		}
	}
	// With noise, the planted assignment breaks some edges.
	m, g := Orient(200, 4, 4, 0.3, 1)
	if e := m.Energy(g); e <= -float64(len(m.Factors)) || e > -0.5*float64(len(m.Factors)) {
		t.Errorf("noise 0.3: planted energy %v with %d edges", e, len(m.Factors))
	}
}

// TestDenseMatching checks that the optimum is a matching, and that the model
// is infeasible with fewer labels than variables.
func TestDenseMatching(t *testing.T) {
	m := DenseMatching(6, 7, 3)
	p, _ := m.Pairwise(nil)
	res, err := exact.Solve(context.Background(), p, exact.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	used := map[int]bool{}
	for _, a := range res.Assignment {
		if used[a] {
			t.Fatalf("optimum %v is not a matching", res.Assignment)
		}
		used[a] = true
	}
	m = DenseMatching(5, 4, 3)
	p, _ = m.Pairwise(nil)
	if res, _ := exact.Solve(context.Background(), p, exact.Settings{}); res.Status != solver.Infeasible {
		t.Errorf("5 variables, 4 labels: status %v", res.Status)
	}
}

// TestWriteRoundTrip writes each family in the UAI format, reads it back and
// compares energies of random assignments.
func TestWriteRoundTrip(t *testing.T) {
	orient, _ := Orient(15, 3, 3, 0.2, 1)
	r := rand.New(rand.NewPCG(1, 2))
	for name, m := range map[string]*model.Model{
		"orient": orient, "potts": PottsGrid(3, 4, 3, 0.7, 1), "binary": Binary(10, 3, 1), "matching": DenseMatching(4, 5, 1),
	} {
		var buf bytes.Buffer
		if err := uai.WriteModel(&buf, m); err != nil {
			t.Fatal(err)
		}
		back, err := uai.ParseModel(name, buf.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		x := make([]int, m.NumVars())
		for trial := 0; trial < 50; trial++ {
			for i := range x {
				x[i] = r.IntN(m.Card[i])
			}
			a, b := m.Energy(x), back.Energy(x)
			if a != b && math.Abs(a-b) > 1e-12*math.Max(1, math.Abs(a)) {
				t.Fatalf("%s: energy %v, after the round trip %v", name, a, b)
			}
		}
	}
}
