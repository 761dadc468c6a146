package trws

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/internal/refdata"
	"github.com/sdrmap/sdrmap/mapsolver/exact"
	"github.com/sdrmap/sdrmap/mapsolver/icm"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

func tol(e float64) float64 { return 1e-9 * math.Max(1, math.Abs(e)) }

// check compares a TRW-S result with the exact optimum: Bound <= optimum <=
// Energy, the reported energy is that of the assignment, and Infeasible only
// for infeasible models.
func check(t *testing.T, trial int, p *model.Pairwise, res *Result, opt float64) {
	t.Helper()
	if math.IsInf(opt, 1) {
		if !math.IsInf(res.Energy, 1) {
			t.Fatalf("trial %d: infeasible model, energy %v", trial, res.Energy)
		}
		return
	}
	if res.Status == solver.Infeasible || res.Assignment == nil {
		t.Fatalf("trial %d: status %v on a feasible model (optimum %v): %+v", trial, res.Status, opt, res)
	}
	if e := p.Energy(res.Assignment); e != res.Energy {
		t.Fatalf("trial %d: reported energy %v, assignment energy %v", trial, res.Energy, e)
	}
	if res.Bound > opt+tol(opt) || res.Energy < opt-tol(opt) || res.Bound > res.Energy {
		t.Fatalf("trial %d: bound %v, optimum %v, energy %v", trial, res.Bound, opt, res.Energy)
	}
}

// TestAgainstExact runs TRW-S on hundreds of random tiny models with mixed
// cardinalities, constants, forbidden entries and evidence.
func TestAgainstExact(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	var feasible, exactRuns, tight int
	for trial := 0; trial < 600; trial++ {
		m := randmodel.New(r, randmodel.Options{
			Vars: 1 + r.IntN(7), MaxCard: 4, Factors: r.IntN(24), MaxArity: 2,
			Forbidden: []float64{0, 0.1, 0.3}[trial%3], Constant: true,
		})
		p, err := m.Pairwise(randmodel.Evidence(r, m, 0.15))
		if err != nil {
			continue
		}
		ex, err := exact.Solve(context.Background(), p, exact.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), p, Settings{MaxIter: 200})
		if err != nil {
			t.Fatal(err)
		}
		check(t, trial, p, res, ex.Energy)
		if !math.IsInf(ex.Energy, 1) {
			feasible++
			if res.Energy <= ex.Energy+tol(ex.Energy) {
				exactRuns++
			}
			if res.Bound >= ex.Energy-1e-6 {
				tight++
			}
		}
	}
	t.Logf("%d feasible models: optimal assignment in %d, tight bound in %d", feasible, exactRuns, tight)
	if feasible < 300 {
		t.Errorf("only %d feasible models", feasible)
	}
}

// TestDense checks the bound and the energy on dense frustrated models, where
// the LP relaxation is often not tight: complete binary graphs, random dense
// multi-label models with forbidden entries, and small matchings. Besides
// check, the bound of a feasible model is at least the trivial one (every
// unary and edge table minimized on its own, which the tree bound dominates
// and TRW-S never lowers), and the set holds both loose and tight bounds.
func TestDense(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	loose, feasible := 0, 0
	for trial := 0; trial < 150; trial++ {
		var m *model.Model
		switch trial % 3 {
		case 0:
			m = gen.Binary(5+trial%5, 10, uint64(trial))
		case 1:
			m = randmodel.New(r, randmodel.Options{Vars: 6, MaxCard: 3, MinCard2: true, Factors: 16, MaxArity: 2, Forbidden: 0.1})
		default:
			m = gen.DenseMatching(4+trial%3, 4+trial%4, uint64(trial))
		}
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := exact.Solve(context.Background(), p, exact.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), p, Settings{MaxIter: 300})
		if err != nil {
			t.Fatal(err)
		}
		check(t, trial, p, res, ex.Energy)
		if math.IsInf(ex.Energy, 1) {
			continue
		}
		feasible++
		if triv := trivialBound(p); !(res.Bound >= triv-tol(triv)) {
			t.Fatalf("trial %d: bound %v below the trivial bound %v", trial, res.Bound, triv)
		}
		if res.Bound < ex.Energy-1e-6 {
			loose++
		}
	}
	t.Logf("bound below the optimum in %d of %d feasible dense models", loose, feasible)
	if loose == 0 || loose == feasible {
		t.Fatalf("bound below the optimum in %d of %d feasible models: want some loose and some tight", loose, feasible)
	}
}

// trivialBound is -Const plus the minimal energy of every unary and edge
// table on its own (allowed entries only).
func trivialBound(p *model.Pairwise) float64 {
	low := func(t *model.Table) float64 {
		m := math.Inf(1)
		for k, v := range t.Log {
			if !t.IsForbidden(k) {
				m = min(m, -v)
			}
		}
		return m
	}
	b := -p.Const
	for i := range p.Unary {
		b += low(&p.Unary[i])
	}
	for e := range p.Edges {
		b += low(&p.Edges[e].Table)
	}
	return b
}

// permute relabels the variables of m by perm (variable v becomes perm[v]).
func permute(m *model.Model, perm []int) *model.Model {
	out := &model.Model{Card: make([]int, len(m.Card))}
	for v, c := range m.Card {
		out.Card[perm[v]] = c
	}
	for _, f := range m.Factors {
		g := f
		g.Scope = make([]int, len(f.Scope))
		for k, v := range f.Scope {
			g.Scope[k] = perm[v]
		}
		out.Factors = append(out.Factors, g)
	}
	return out
}

// TestTrees checks that TRW-S is exact on tree-structured models: energy and
// bound equal to the optimum, with the tree's parents before their children
// and with the variables in random order.
func TestTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 17))
	for trial := 0; trial < 300; trial++ {
		m := randmodel.New(r, randmodel.Options{
			Vars: 2 + r.IntN(8), MaxCard: 4, Tree: true, Forbidden: []float64{0, 0, 0.15}[trial%3],
		})
		if trial%2 == 1 {
			m = permute(m, r.Perm(m.NumVars()))
		}
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := exact.Solve(context.Background(), p, exact.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), p, Settings{MaxIter: 2000, Tol: -1})
		if err != nil {
			t.Fatal(err)
		}
		check(t, trial, p, res, ex.Energy)
		if math.IsInf(ex.Energy, 1) {
			if res.Status != solver.Infeasible || !math.IsInf(res.Bound, 1) {
				t.Fatalf("trial %d: infeasible tree, status %v, bound %v", trial, res.Status, res.Bound)
			}
			continue
		}
		if math.Abs(res.Energy-ex.Energy) > 1e-6 || math.Abs(res.Bound-ex.Energy) > 1e-6 || res.Status != solver.Solved {
			t.Fatalf("trial %d: tree with optimum %v: energy %v, bound %v, status %v after %d iterations",
				trial, ex.Energy, res.Energy, res.Bound, res.Status, res.Iterations)
		}
	}
}

func TestSpecialCases(t *testing.T) {
	ctx := context.Background()
	empty := &model.Pairwise{Const: 2}
	if res, _ := Solve(ctx, empty, Settings{}); res.Status != solver.Solved || res.Energy != -2 || res.Bound != -2 {
		t.Errorf("empty model: %+v", res)
	}
	// A unary table with every entry forbidden.
	m := &model.Model{Card: []int{2, 2}, Factors: []model.Factor{
		{Scope: []int{0, 1}, Table: model.Table{Log: []float64{1, 2, 3, 4}}},
		{Scope: []int{1}, Table: model.Table{Log: []float64{0, 0}}},
	}}
	m.Factors[1].Forbid(0)
	m.Factors[1].Forbid(1)
	p, _ := m.Pairwise(nil)
	if res, _ := Solve(ctx, p, Settings{}); res.Status != solver.Infeasible || res.Assignment != nil || !math.IsInf(res.Bound, 1) {
		t.Errorf("all-forbidden unary: %+v", res)
	}
	// Infeasible only jointly: x0 = 1 and x1 = 0 forced, and (1, 0) forbidden.
	m = &model.Model{Card: []int{2, 2}, Factors: []model.Factor{
		{Scope: []int{0}, Table: model.Table{Log: []float64{0, 0.5}}},
		{Scope: []int{1}, Table: model.Table{Log: []float64{0.2, 0}}},
		{Scope: []int{0, 1}, Table: model.Table{Log: []float64{1, 2, 3, 4}}},
	}}
	m.Factors[0].Forbid(0)
	m.Factors[1].Forbid(1)
	m.Factors[2].Forbid(2)
	p, _ = m.Pairwise(nil)
	if res, _ := Solve(ctx, p, Settings{}); res.Status != solver.Infeasible || !math.IsInf(res.Bound, 1) {
		t.Errorf("jointly infeasible: %+v", res)
	}
	// Matching with fewer labels than variables: infeasible, but the LP is
	// not, so TRW-S cannot prove it; it must still report a valid bound.
	p, _ = gen.DenseMatching(5, 4, 1).Pairwise(nil)
	res, _ := Solve(ctx, p, Settings{MaxIter: 50})
	if !math.IsInf(res.Energy, 1) || math.IsNaN(res.Bound) {
		t.Errorf("pigeonhole matching: %+v", res)
	}
	// A feasible matching: finite energy.
	p, _ = gen.DenseMatching(8, 8, 1).Pairwise(nil)
	ex, _ := exact.Solve(ctx, p, exact.Settings{})
	res, _ = Solve(ctx, p, Settings{MaxIter: 200})
	check(t, 0, p, res, ex.Energy)
	t.Logf("matching 8x8: optimum %.6f, TRW-S energy %.6f, bound %.6f", ex.Energy, res.Energy, res.Bound)
}

func TestStops(t *testing.T) {
	p, err := gen.PottsGrid(60, 60, 4, 1, 7).Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ := Solve(ctx, p, Settings{})
	if res.Status != solver.Interrupted || res.Assignment == nil || math.IsInf(res.Energy, 0) || res.Bound > res.Energy {
		t.Errorf("cancelled: status %v, energy %v, bound %v", res.Status, res.Energy, res.Bound)
	}
	res, _ = Solve(context.Background(), p, Settings{MaxIter: 3, Tol: -1})
	if res.Status != solver.MaxIterations || res.Iterations != 3 {
		t.Errorf("3 iterations: status %v after %d", res.Status, res.Iterations)
	}
	res, _ = Solve(within(t, time.Nanosecond), p, Settings{Tol: -1})
	if res.Status != solver.OutOfTime {
		t.Errorf("time limit: status %v", res.Status)
	}
	prev := math.Inf(-1)
	for _, it := range []int{1, 5, 20} {
		res, _ = Solve(context.Background(), p, Settings{MaxIter: it, Tol: -1})
		if res.Bound < prev-1e-9*math.Abs(prev) {
			t.Errorf("bound %v after %d iterations, below %v with fewer", res.Bound, it, prev)
		}
		prev = res.Bound
	}
}

// TestGrids26 runs TRW-S and ICM on the UAI 2014 Grids_26 instance (20x20
// frustrated binary grid; reference map_energy -3051.012758).
func TestGrids26(t *testing.T) {
	dir := refdata.Require(t)
	m, err := uai.ReadModelFile(filepath.Join(dir, "uai", "grids", "uai2014_Grids_26.uai.xz"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	const ref = -3051.012758
	res, err := Solve(context.Background(), p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bound > ref+1e-6 || res.Energy < res.Bound {
		t.Fatalf("bound %v, energy %v, reference %v", res.Bound, res.Energy, ref)
	}
	t.Logf("TRW-S: energy %.6f, bound %.6f, reference %.6f, %d iterations, %v, status %v",
		res.Energy, res.Bound, ref, res.Iterations, res.Time, res.Status)
	ir, err := icm.Solve(context.Background(), p, icm.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if ir.Energy < res.Bound {
		t.Fatalf("ICM energy %v below the TRW-S bound %v", ir.Energy, res.Bound)
	}
	pol := append([]int(nil), res.Assignment...)
	pe := icm.Improve(p, pol)
	t.Logf("ICM: energy %.6f, %d sweeps, %v; TRW-S + ICM polish: %.6f", ir.Energy, ir.Sweeps, ir.Time, pe)
}

// BenchmarkPottsGrid runs TRW-S to convergence (default settings) on a
// 100x100 Potts grid with 5 labels.
func BenchmarkPottsGrid(b *testing.B) {
	p, err := gen.PottsGrid(100, 100, 5, 1, 1).Pairwise(nil)
	if err != nil {
		b.Fatal(err)
	}
	var res *Result
	for b.Loop() {
		res, err = Solve(context.Background(), p, Settings{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Iterations), "iterations")
	b.ReportMetric(res.Bound, "bound")
	b.ReportMetric(res.Energy, "energy")
	b.ReportMetric(float64(res.Time.Nanoseconds())/float64(max(res.Iterations, 1))/1e6, "ms/iter")
}

// TestPottsFastPath checks that the O(k) messages of Potts edges equal the
// generic O(k^2) ones, pass by pass, on attractive and repulsive grids with
// some non-Potts edges, and checks small Potts grids against the exact
// solver.
func TestPottsFastPath(t *testing.T) {
	for _, coupling := range []float64{0.9, -0.9} {
		m := gen.PottsGrid(6, 7, 4, coupling, 2)
		m.Factors[len(m.Factors)-1].Log[1] = 0.3 // one edge no longer Potts
		m.Factors[len(m.Factors)-2].Forbid(5)
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		fast, _ := newTRW(p)
		slow, _ := newTRW(p)
		np := 0
		for e := range slow.potts {
			if fast.potts[e] {
				np++
			}
			slow.potts[e] = false
		}
		if np != len(p.Edges)-2 {
			t.Fatalf("%d Potts edges of %d", np, len(p.Edges))
		}
		for it := 0; it < 5; it++ {
			fast.forward()
			slow.forward()
			lf, _ := fast.backward()
			ls, _ := slow.backward()
			if math.Abs(lf-ls) > 1e-12*math.Abs(ls) {
				t.Fatalf("coupling %v, iteration %d: bound %v with the Potts path, %v without", coupling, it, lf, ls)
			}
			for k := range fast.msg {
				if math.Abs(fast.msg[k]-slow.msg[k]) > 1e-12*math.Max(1, math.Abs(slow.msg[k])) {
					t.Fatalf("coupling %v, iteration %d: message entry %d: %v with the Potts path, %v without",
						coupling, it, k, fast.msg[k], slow.msg[k])
				}
			}
		}
	}
	for seed := uint64(0); seed < 20; seed++ {
		c := []float64{1.5, -1.5, 0.4, -0.4}[seed%4]
		p, err := gen.PottsGrid(3, 4, 3, c, seed).Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		ex, _ := exact.Solve(context.Background(), p, exact.Settings{})
		res, _ := Solve(context.Background(), p, Settings{})
		check(t, int(seed), p, res, ex.Energy)
	}
}

// within returns a context with a deadline d from now, cancelled at the
// end of the test.
func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
