package ipmnc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/mapsolver/exact"
	"github.com/sdrmap/sdrmap/mapsolver/icm"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

func tol(e float64) float64 { return 1e-9 * math.Max(1, math.Abs(e)) }

// randomPairwise draws a tiny random pairwise model (mixed cardinalities,
// constants, forbidden entries with probability pf, evidence) and the clamps
// of its evidence; ok is false when the evidence is inconsistent.
func randomPairwise(r *rand.Rand, vars, factors int, pf float64) (*model.Model, []int, *model.Pairwise, bool) {
	m := randmodel.New(r, randmodel.Options{Vars: vars, MaxCard: 4, Factors: factors, MaxArity: 2, Forbidden: pf, Constant: true})
	ev := randmodel.Evidence(r, m, 0.15)
	clamp, err := ev.Clamps(m)
	if err != nil {
		return nil, nil, nil, false
	}
	p, err := m.Pairwise(ev)
	if err != nil {
		return nil, nil, nil, false
	}
	return m, clamp, p, true
}

// TestAgainstBruteForce runs IPM-NC on 300 random tiny models: the energy is
// that of the assignment (and of the full model), never below the
// brute-force optimum, finite whenever the optimum is, and Infeasible only
// for infeasible models. It also checks, for every run, that the objective
// never increases along the iterations.
func TestAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var feasible, optimal, solved, vertex int
	for trial := 0; trial < 300; trial++ {
		m, clamp, p, ok := randomPairwise(r, 1+r.IntN(7), r.IntN(16), []float64{0, 0.1, 0.3}[trial%3])
		if !ok {
			continue
		}
		opt, _ := randmodel.BruteForce(m, clamp)
		prev, iters := math.Inf(1), 0
		res, err := Solve(context.Background(), p, Settings{Trace: func(it Iterate) {
			if it.Objective > prev+tol(prev) {
				t.Fatalf("trial %d: objective rose from %.17g to %.17g at iteration %d", trial, prev, it.Objective, it.Iter)
			}
			prev, iters = it.Objective, it.Iter
		}})
		if err != nil {
			t.Fatal(err)
		}
		if iters != res.Iterations {
			t.Fatalf("trial %d: trace ends at iteration %d, result says %d", trial, iters, res.Iterations)
		}
		if res.Status == solver.Infeasible {
			if !math.IsInf(opt, 1) || res.Assignment != nil {
				t.Fatalf("trial %d: Infeasible on a model of optimum %v", trial, opt)
			}
			continue
		}
		if res.Status == solver.Failed || res.Assignment == nil {
			t.Fatalf("trial %d: status %v, assignment %v", trial, res.Status, res.Assignment)
		}
		if e := p.Energy(res.Assignment); e != res.Energy {
			t.Fatalf("trial %d: reported energy %v, assignment energy %v", trial, res.Energy, e)
		}
		if e := m.Energy(p.Expand(res.Assignment)); !math.IsInf(e, 1) && math.Abs(e-res.Energy) > tol(e) {
			t.Fatalf("trial %d: model energy %v, pairwise %v", trial, e, res.Energy)
		}
		if math.IsInf(opt, 1) {
			if !math.IsInf(res.Energy, 1) {
				t.Fatalf("trial %d: infeasible model, energy %v", trial, res.Energy)
			}
			continue
		}
		feasible++
		if math.IsInf(res.Energy, 1) || res.Energy < opt-tol(opt) {
			t.Fatalf("trial %d: energy %v, optimum %v", trial, res.Energy, opt)
		}
		if res.Energy <= opt+tol(opt) {
			optimal++
		}
		if res.Status == solver.Solved {
			solved++
		}
		if res.Vertex {
			vertex++
		}
	}
	t.Logf("%d feasible models: optimal in %d, solved to Tol in %d, vertex in %d", feasible, optimal, solved, vertex)
	if feasible < 150 {
		t.Errorf("only %d feasible models", feasible)
	}
}

// argmax rounds x like Solve does, before ICM: the first largest entry of
// each block.
func argmax(x [][]float64) []int {
	z := make([]int, len(x))
	for i, b := range x {
		for a, v := range b {
			if v > b[z[i]] {
				z[i] = a
			}
		}
	}
	return z
}

// TestVertexObjective checks that when the run ends at a vertex, the
// continuous objective equals the energy of that vertex (when finite), and
// that ICM does not improve a KKT vertex (it is a local optimum).
func TestVertexObjective(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	checked := 0
	for trial := 0; trial < 300; trial++ {
		_, _, p, ok := randomPairwise(r, 2+r.IntN(8), r.IntN(24), []float64{0, 0.1}[trial%2])
		if !ok {
			continue
		}
		res, err := Solve(context.Background(), p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Vertex || res.Status != solver.Solved {
			continue
		}
		z := argmax(res.X)
		e := p.Energy(z)
		if math.IsInf(e, 1) {
			continue
		}
		checked++
		if math.Abs(e-res.Objective) > tol(e) {
			t.Fatalf("trial %d: objective %.17g at a vertex of energy %.17g", trial, res.Objective, e)
		}
		if math.Abs(res.Energy-e) > tol(e) {
			t.Fatalf("trial %d: ICM moved a KKT vertex from %v to %v", trial, e, res.Energy)
		}
	}
	t.Logf("%d runs ended at a finite vertex", checked)
	if checked < 100 {
		t.Errorf("only %d runs ended at a finite vertex", checked)
	}
}

// kktResidual recomputes, from the model alone, the unscaled KKT residual of
// x for a model without forbidden entries, and a bound on the scale.
func kktResidual(p *model.Pairwise, x [][]float64) (res, scale float64) {
	g := make([][]float64, len(x))
	for i := range g {
		g[i] = make([]float64, len(x[i]))
		for a := range g[i] {
			g[i][a] = -p.Unary[i].Log[a]
		}
	}
	rng := make([]float64, len(x))
	for i := range rng {
		for _, w := range p.Unary[i].Log {
			rng[i] = math.Max(rng[i], 2*math.Abs(w))
		}
	}
	for _, ed := range p.Edges {
		cj := p.Card[ed.J]
		big := 0.0
		for k, w := range ed.Log {
			a, b := k/cj, k%cj
			g[ed.I][a] -= w * x[ed.J][b]
			g[ed.J][b] -= w * x[ed.I][a]
			big = math.Max(big, 2*math.Abs(w))
		}
		rng[ed.I] += big
		rng[ed.J] += big
	}
	scale = 1
	for i := range x {
		scale = math.Max(scale, rng[i])
		lam := 0.0
		for a := range x[i] {
			lam += x[i][a] * g[i][a]
		}
		for a := range x[i] {
			res = math.Max(res, x[i][a]*math.Abs(g[i][a]-lam))
			res = math.Max(res, lam-g[i][a])
		}
	}
	return res, scale
}

// TestKKT checks the returned KKT residual against one recomputed from the
// model: small (<= Tol on the scale of the costs) whenever Status is Solved;
// and that x lies in the product of simplices.
func TestKKT(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	solved := 0
	for trial := 0; trial < 200; trial++ {
		_, _, p, ok := randomPairwise(r, 2+r.IntN(10), r.IntN(30), 0)
		if !ok {
			continue
		}
		const tl = 1e-8
		res, err := Solve(context.Background(), p, Settings{Tol: tl})
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range res.X {
			s := 0.0
			for _, v := range b {
				if v < 0 {
					t.Fatalf("trial %d: x_%d = %v", trial, i, b)
				}
				s += v
			}
			if math.Abs(s-1) > 1e-12 {
				t.Fatalf("trial %d: x_%d sums to %v", trial, i, s)
			}
		}
		if res.Status != solver.Solved {
			continue
		}
		solved++
		if res.KKT > tl {
			t.Fatalf("trial %d: Solved with KKT residual %v > %v", trial, res.KKT, tl)
		}
		if k, scale := kktResidual(p, res.X); k > 10*tl*scale {
			t.Fatalf("trial %d: recomputed KKT residual %v (scale %v)", trial, k, scale)
		}
	}
	if solved < 150 {
		t.Errorf("only %d of 200 runs reached the tolerance", solved)
	}
}

// TestMonotonePotts follows the objective on a 12x12 Potts grid with 5
// labels, where the run takes many steps.
func TestMonotonePotts(t *testing.T) {
	m := gen.PottsGrid(12, 12, 5, 0.8, 4)
	p, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	var objs []float64
	res, err := Solve(context.Background(), p, Settings{Trace: func(it Iterate) { objs = append(objs, it.Objective) }})
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k < len(objs); k++ {
		if objs[k] > objs[k-1]+tol(objs[k-1]) {
			t.Fatalf("objective rose from %.17g to %.17g at iteration %d", objs[k-1], objs[k], k)
		}
	}
	ic, _ := icm.Solve(context.Background(), p, icm.Settings{})
	t.Logf("status %v, %d iterations, objective %.6f, energy %.6f (ICM %.6f), vertex %v", res.Status, res.Iterations, res.Objective, res.Energy, ic.Energy, res.Vertex)
	if res.Status != solver.Solved || res.Energy > res.Objective+tol(res.Objective) {
		t.Fatalf("status %v, energy %v above the objective %v", res.Status, res.Energy, res.Objective)
	}
}

// TestChains: on a chain with unaries only the objective is linear, and
// IPM-NC must return its exact minimum; on random binary trees (where TRW-S
// and exact agree) it must find the optimum on most instances.
func TestChains(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	n := 30
	m := &model.Model{Card: make([]int, n)}
	for i := range m.Card {
		m.Card[i] = 2
		m.Factors = append(m.Factors, model.Factor{Scope: []int{i}, Table: model.Table{Log: []float64{r.NormFloat64(), r.NormFloat64()}}})
		if i > 0 {
			m.Factors = append(m.Factors, model.Factor{Scope: []int{i - 1, i}, Table: model.Table{Log: make([]float64, 4)}})
		}
	}
	p, _ := m.Pairwise(nil)
	res, err := Solve(context.Background(), p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, n)
	icm.BestUnary(p, want)
	if res.Status != solver.Solved || !res.Vertex || !equal(res.Assignment, want) || math.Abs(res.Objective-res.Energy) > tol(res.Energy) {
		t.Fatalf("linear chain: status %v, vertex %v, x %v, want %v", res.Status, res.Vertex, res.Assignment, want)
	}

	optimal, trials := 0, 100
	for trial := 0; trial < trials; trial++ {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(12), MaxCard: 2, MinCard2: true, Tree: true})
		p, _ := m.Pairwise(nil)
		ex, err := exact.Solve(context.Background(), p, exact.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Energy < ex.Energy-tol(ex.Energy) {
			t.Fatalf("trial %d: energy %v below the optimum %v", trial, res.Energy, ex.Energy)
		}
		if res.Energy <= ex.Energy+tol(ex.Energy) {
			optimal++
		}
	}
	t.Logf("random binary trees: optimal in %d of %d", optimal, trials)
	if optimal < trials*7/10 {
		t.Errorf("optimal in only %d of %d binary trees", optimal, trials)
	}
}

// TestSpecialCases: infeasible variables, dense matchings (forbidden pairs
// everywhere: the repair must find a finite assignment), ORIENT (the
// uniform start is already a KKT point), limits and cancellation.
func TestSpecialCases(t *testing.T) {
	tb := model.Table{Log: []float64{0, 0}}
	tb.Forbid(0)
	tb.Forbid(1)
	bad := &model.Model{Card: []int{2}, Factors: []model.Factor{{Scope: []int{0}, Table: tb}}}
	p, _ := bad.Pairwise(nil)
	if res, _ := Solve(context.Background(), p, Settings{}); res.Status != solver.Infeasible || res.Assignment != nil || !math.IsInf(res.Energy, 1) {
		t.Fatalf("all states forbidden: %+v", res)
	}

	for _, sz := range [][2]int{{6, 6}, {8, 10}, {12, 12}} {
		p, _ := gen.DenseMatching(sz[0], sz[1], 5).Pairwise(nil)
		res, err := Solve(context.Background(), p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(res.Energy, 1) {
			t.Fatalf("matching %v: no finite assignment (status %v)", sz, res.Status)
		}
		t.Logf("matching %v: status %v, %d iterations, objective %.4f, energy %.4f", sz, res.Status, res.Iterations, res.Objective, res.Energy)
	}

	om, _ := gen.Orient(50, 6, 6, 0.1, 3)
	p, _ = om.Pairwise(nil)
	res, _ := Solve(context.Background(), p, Settings{})
	if res.Status != solver.Solved || res.Iterations != 0 || math.IsInf(res.Energy, 1) {
		t.Fatalf("orient: %v after %d iterations, energy %v", res.Status, res.Iterations, res.Energy)
	}

	pg, _ := gen.PottsGrid(10, 10, 4, 0.5, 1).Pairwise(nil)
	if res, _ := Solve(context.Background(), pg, Settings{MaxIter: 1}); res.Status != solver.MaxIterations || res.Iterations != 1 || math.IsInf(res.Energy, 1) {
		t.Fatalf("MaxIter 1: %v after %d iterations", res.Status, res.Iterations)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, _ := Solve(ctx, pg, Settings{}); res.Status != solver.Interrupted || res.Assignment == nil {
		t.Fatalf("cancelled: %v", res.Status)
	}
	if res, _ := Solve(within(t, time.Nanosecond), pg, Settings{}); res.Status != solver.OutOfTime && res.Status != solver.Solved {
		t.Fatalf("time limit: %v", res.Status)
	}

	// All variables observed: nothing to optimize, the energy is the constant.
	m := &model.Model{Card: []int{2}, Factors: []model.Factor{{Scope: []int{0}, Table: model.Table{Log: []float64{0.5, -1}}}}}
	p, _ = m.Pairwise(model.Evidence{{Var: 0, Value: 1}})
	if res, _ := Solve(context.Background(), p, Settings{}); res.Status != solver.Solved || res.Energy != 1 || res.Objective != 1 {
		t.Fatalf("no free variable: %+v", res)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// within returns a context with a deadline d from now, cancelled at the
// end of the test.
func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
