package cyclic

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// invariant draws a shift-invariant model: n variables with m states, each
// pair an edge with probability 0.6, tables T((x_j - x_i) mod m) drawn from
// a standard normal (or from {-1, 0}, ORIENT-like), constant unaries.
func invariant(r *rand.Rand, n, m int) *model.Model {
	md := &model.Model{Card: make([]int, n)}
	for i := range n {
		md.Card[i] = m
		c := r.NormFloat64()
		md.Factors = append(md.Factors, model.Factor{Scope: []int{i}, Table: model.Table{Log: []float64{c, c, c, c, c, c, c, c}[:m]}})
	}
	orient := r.IntN(2) == 0
	for i := range n {
		for j := i + 1; j < n; j++ {
			if r.Float64() > 0.6 {
				continue
			}
			t := make([]float64, m)
			for s := range t {
				if orient {
					t[s] = -float64(r.IntN(2))
				} else {
					t[s] = r.NormFloat64()
				}
			}
			log := make([]float64, m*m)
			for a := range m {
				for b := range m {
					log[a*m+b] = -t[mod(b-a, m)]
				}
			}
			md.Factors = append(md.Factors, model.Factor{Scope: []int{i, j}, Table: model.Table{Log: log}})
		}
	}
	return md
}

func problem(t *testing.T, md *model.Model) (*model.Pairwise, *Problem) {
	t.Helper()
	pw, err := md.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromPairwise(pw)
	if err != nil {
		t.Fatal(err)
	}
	return pw, p
}

// TestFromPairwise: the energy of the Problem is the model's on random
// assignments, and models that are not shift invariant are refused with
// an error naming the variable or edge.
func TestFromPairwise(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		n, m := 2+r.IntN(5), 2+r.IntN(4)
		pw, p := problem(t, invariant(r, n, m))
		x := make([]int, n)
		for range 20 {
			for i := range x {
				x[i] = r.IntN(m)
			}
			if e, want := p.Energy(x), pw.Energy(x); math.Abs(e-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("energy %v, model %v", e, want)
			}
		}
	}
	orient := func() *model.Model { m, _ := gen.Orient(10, 4, 3, 0.2, 1); return m }
	unary := orient()
	unary.Factors = append(unary.Factors, model.Factor{Scope: []int{3}, Table: model.Table{Log: []float64{0, 1, 0, 0}}})
	mixed := orient()
	mixed.Factors[0].Log[1] += 0.5
	cards := &model.Model{Card: []int{3, 4}}
	forbid := orient()
	forbid.Factors[0].Table.Forbid(0)
	for name, c := range map[string]struct {
		m    *model.Model
		want string
	}{
		"unary":     {unary, "unary table of variable 3"},
		"edge":      {mixed, "not a function of"},
		"cards":     {cards, "variable 1 has 4 states"},
		"forbidden": {forbid, "forbidden pair"},
	} {
		pw, err := c.m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FromPairwise(pw); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

// TestBoundBelowMinimum: on 1,000 random tiny shift-invariant models the
// bound certified at every outer iteration is at most the brute-force
// minimum energy, and a run that proves its assignment optimal returns
// a minimizer.
func TestBoundBelowMinimum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	certified, proven := 0, 0
	for c := range 1000 {
		md := invariant(r, 2+r.IntN(4), 2+r.IntN(4))
		_, p := problem(t, md)
		free := make([]int, md.NumVars())
		for v := range free {
			free[v] = -1
		}
		minE, _ := randmodel.BruteForce(md, free)
		s := DefaultSettings()
		s.MaxIter, s.Seed, s.Rank = 12, uint64(c), 1+r.IntN(3)
		worst := math.Inf(-1)
		s.Monitor = func(res *Result) { worst = max(worst, res.Bound) }
		res, err := Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		if worst > minE+1e-9*(1+math.Abs(minE)) || res.Bound > minE+1e-9*(1+math.Abs(minE)) {
			t.Fatalf("model %d: bound %.12g (final %.12g) above the minimum energy %.12g", c, worst, res.Bound, minE)
		}
		if !math.IsInf(res.Bound, -1) {
			certified++
		}
		if solver.Proven(res.Energy, res.Bound) {
			proven++
			if math.Abs(res.Energy-minE) > 1e-9*(1+math.Abs(minE)) {
				t.Fatalf("model %d: proven energy %.12g, minimum %.12g", c, res.Energy, minE)
			}
		}
	}
	if certified < 950 || proven < 300 {
		t.Fatalf("%d of 1000 runs certified, %d proven", certified, proven)
	}
	t.Logf("%d of 1000 certified, %d proven optimal", certified, proven)
}

// TestMatchesDense: the reduced relaxation has the lifted SDR's optimum
// (dense SDPAD on the same model, its symmetry kept) within 1e-5 relative,
// and its certified bound is at most that optimum; at least 8 of the 30
// models have an optimum below their minimum energy (not tight: 11).
func TestMatchesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	loose := 0
	for c := range 30 {
		md := invariant(r, 4+r.IntN(3), 2+r.IntN(4))
		pw, p := problem(t, md)
		prob, err := sdr.Build(pw)
		if err != nil {
			t.Fatal(err)
		}
		ds := sdpad.DefaultSettings()
		ds.Tol, ds.MaxIter = 1e-9, 50000
		d, err := sdpad.Solve(context.Background(), prob, ds)
		if err != nil || d.Status != solver.Solved {
			t.Fatalf("model %d: dense SDPAD %v %v", c, d.Status, err)
		}
		opt := d.PrimalObjective - prob.Const // energy = <C, Xbar> - Const
		s := DefaultSettings()
		s.Tol = 1e-7
		res, err := Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		scale := 1 + math.Abs(opt)
		if res.Status != solver.Solved {
			t.Fatalf("model %d: %v after %d iterations, gap %.2e pinf %.2e", c, res.Status, res.Iterations, res.Gap, res.PrimalInf)
		}
		if res.Bound > opt+1e-7*scale || res.Bound < opt-1e-5*scale {
			t.Errorf("model %d (n %d, m %d): bound %.10g, lifted SDR optimum %.10g", c, p.N, p.M, res.Bound, opt)
		}
		free := make([]int, md.NumVars())
		for v := range free {
			free[v] = -1
		}
		if minE, _ := randmodel.BruteForce(md, free); opt < minE-1e-4*scale {
			loose++
		}
	}
	if loose < 8 {
		t.Fatalf("only %d of 30 models with a loose relaxation", loose)
	}
	t.Logf("%d of 30 relaxations not tight", loose)
}

// TestOrient: the planted assignment of ORIENT models (n = 60 and 200,
// noise 0.1) is found and proven optimal.
func TestOrient(t *testing.T) {
	for _, c := range []struct {
		n, m   int
		degree float64
	}{{60, 8, 8}, {200, 16, 20}} {
		md, planted := gen.Orient(c.n, c.m, c.degree, 0.1, 1)
		_, p := problem(t, md)
		res, err := Solve(context.Background(), p, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		if want := p.Energy(planted); res.Status != solver.Solved || res.Energy != want || !solver.Proven(res.Energy, res.Bound) {
			t.Errorf("n %d: %v, energy %v (planted %v), bound %v", c.n, res.Status, res.Energy, want, res.Bound)
		}
	}
}

// TestLimits: a time limit or a cancelled context ends the run with the
// best so far and the matching status.
func TestLimits(t *testing.T) {
	md, _ := gen.Orient(200, 16, 20, 0.3, 2)
	_, p := problem(t, md)
	s := DefaultSettings()
	res, err := Solve(within(t, time.Nanosecond), p, s)
	if err != nil || res.Status != solver.OutOfTime {
		t.Fatalf("time limit: %v %v", res.Status, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s = DefaultSettings()
	s.Monitor = func(*Result) { cancel() }
	if res, err = Solve(ctx, p, s); err != nil || res.Status != solver.Interrupted || res.Assignment == nil {
		t.Fatalf("cancelled: %v %v", res.Status, err)
	}
	if _, err := Solve(context.Background(), p, Settings{}); err == nil {
		t.Fatal("zero settings accepted")
	}
}

// TestRankGrowth: on a noisy ORIENT model, whose relaxation is far from
// tight, a run started at rank 1 grows the rank along the slacks' negative
// curvature and reaches the tolerance, its bound below the objective and
// within the tolerance of it; held at rank 1 it does not.
func TestRankGrowth(t *testing.T) {
	md, _ := gen.Orient(60, 8, 8, 0.9, 1)
	_, p := problem(t, md)
	s := DefaultSettings()
	s.Rank, s.MaxRank, s.Tol = 1, 16, 1e-5
	res, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Solved || res.Rank < 2 || res.Gap > s.Tol || res.Bound > res.Objective+1e-9*math.Abs(res.Objective) {
		t.Fatalf("%v at rank %d: objective %.9g, bound %.9g, gap %.2e, energy %v", res.Status, res.Rank, res.Objective, res.Bound, res.Gap, res.Energy)
	}
	s.MaxRank, s.MaxIter = 1, 40
	fixed, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Status == solver.Solved || fixed.Bound > res.Bound {
		t.Fatalf("rank 1: %v, bound %.9g (grown: %.9g)", fixed.Status, fixed.Bound, res.Bound)
	}
	t.Logf("rank %d, objective %.9g, bound %.9g, energy %v; rank 1: bound %.9g", res.Rank, res.Objective, res.Bound, res.Energy, fixed.Bound)
}

// TestGradient: the Lagrangian's gradient matches central differences on
// a small model with random multipliers (both sides of the penalty's kink
// active), and on a model large enough for the two halves (split) the
// value and gradient match one serial pass.
func TestGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	_, p := problem(t, invariant(r, 6, 5))
	a := newALM(p, 3, 2)
	for j := range a.mu {
		a.mu[j] = r.Float64() * 0.3
	}
	x := a.initial(1)
	g := make([]float64, len(x))
	a.products(x)
	a.gradient(x, g)
	const h = 1e-6
	for i := range x {
		xi := x[i]
		x[i] = xi + h
		fp := a.products(x)
		x[i] = xi - h
		fm := a.products(x)
		x[i] = xi
		if fd := (fp - fm) / (2 * h); math.Abs(fd-g[i]) > 1e-6*(1+math.Abs(fd)) {
			t.Fatalf("coordinate %d: gradient %.9g, central difference %.9g", i, g[i], fd)
		}
	}

	md, _ := gen.Orient(400, 6, 24, 0.3, 3)
	_, big := problem(t, md)
	if len(big.Edges) < parallelEdges {
		t.Fatalf("%d edges: too few to split", len(big.Edges))
	}
	a = newALM(big, 2, 10)
	for j := range a.mu {
		a.mu[j] = r.Float64()
	}
	x = a.initial(2)
	f := a.products(x)
	g = make([]float64, len(x))
	a.gradient(x, g)
	serial := make([]float64, len(x))
	a.gradientRange(x, serial, 0, len(big.Edges))
	if fs := a.productsRange(x, 0, len(big.Edges)); math.Abs(fs-f) > 1e-12*(1+math.Abs(fs)) {
		t.Fatalf("split value %.15g, serial %.15g", f, fs)
	}
	for i := range g {
		if math.Abs(g[i]-serial[i]) > 1e-12*(1+math.Abs(serial[i])) {
			t.Fatalf("coordinate %d: split gradient %.15g, serial %.15g", i, g[i], serial[i])
		}
	}
}

// within returns a context with a deadline d from now, cancelled at the
// end of the test.
func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
