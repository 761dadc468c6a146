package feasible

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// randomModel builds a model of 3-7 variables of cardinality 1-4 with
// factors of arity 1-4 whose entries are forbidden with probability pForbid.
func randomModel(rng *rand.Rand, pForbid float64) *model.Model {
	n := 3 + rng.IntN(5)
	m := &model.Model{Card: make([]int, n)}
	for v := range m.Card {
		m.Card[v] = 1 + rng.IntN(4)
	}
	nf := 1 + rng.IntN(2*n)
	for range nf {
		r := 1 + rng.IntN(min(4, n))
		scope := rng.Perm(n)[:r]
		sz := 1
		for _, v := range scope {
			sz *= m.Card[v]
		}
		f := model.Factor{Scope: scope, Table: model.Table{Log: make([]float64, sz)}}
		for k := range sz {
			f.Log[k] = rng.NormFloat64()
			if rng.Float64() < pForbid {
				f.Forbid(k)
			}
		}
		m.Factors = append(m.Factors, f)
	}
	return m
}

// bruteFeasible enumerates all assignments respecting clamp and reports
// whether one has finite energy, and whether x is such one.
func bruteFeasible(m *model.Model, clamp []int) bool {
	n := m.NumVars()
	x := make([]int, n)
	for v := range x {
		if clamp != nil && clamp[v] >= 0 {
			x[v] = clamp[v]
		}
	}
	for {
		if !math.IsInf(m.Energy(x), 1) {
			return true
		}
		v := n - 1
		for ; v >= 0; v-- {
			if clamp != nil && clamp[v] >= 0 {
				continue
			}
			x[v]++
			if x[v] < m.Card[v] {
				break
			}
			x[v] = 0
		}
		if v < 0 {
			return false
		}
	}
}

// checkResult verifies res against brute force.
func checkResult(t *testing.T, m *model.Model, clamp []int, res *Result, want bool, what string) {
	t.Helper()
	if want {
		if res.Status != solver.Solved {
			t.Fatalf("%s: status %v, brute force finds a feasible assignment", what, res.Status)
		}
		if err := m.Check(res.Assignment); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		e := m.Energy(res.Assignment)
		if math.IsInf(e, 1) || e != res.Energy {
			t.Fatalf("%s: energy %v, reported %v", what, e, res.Energy)
		}
		for v, a := range clamp {
			if a >= 0 && res.Assignment[v] != a {
				t.Fatalf("%s: variable %d clamped to %d, got %d", what, v, a, res.Assignment[v])
			}
		}
	} else {
		if res.Status != solver.Infeasible {
			t.Fatalf("%s: status %v, brute force finds no feasible assignment", what, res.Status)
		}
		if res.Assignment != nil || !math.IsInf(res.Energy, 1) {
			t.Fatalf("%s: infeasible but assignment %v energy %v", what, res.Assignment, res.Energy)
		}
	}
}

// TestRandomAgainstBruteForce compares Search with enumeration on random
// tiny models, feasible and infeasible, with and without hints, restarts
// and clamps.
func TestRandomAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var nFeas, nInfeas int
	for it := range 3000 {
		m := randomModel(rng, []float64{0.2, 0.4, 0.6, 0.8}[it%4])
		n := m.NumVars()
		var hint []int
		if it%3 == 1 {
			hint = make([]int, n)
			for v := range hint {
				hint[v] = rng.IntN(m.Card[v])
			}
		}
		var clamp []int
		if it%2 == 1 {
			clamp = make([]int, n)
			for v := range clamp {
				clamp[v] = -1
				if rng.IntN(3) == 0 {
					clamp[v] = rng.IntN(m.Card[v])
				}
			}
		}
		want := bruteFeasible(m, clamp)
		if want {
			nFeas++
		} else {
			nInfeas++
		}
		// Tiny restart base: many restarts must not break completeness.
		for _, s := range []Settings{{Seed: uint64(it)}, {Seed: uint64(it), RestartBase: 1}, {NoRestarts: true}} {
			res, err := Search(context.Background(), m, hint, clamp, s)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, m, clamp, res, want, "random model")
		}
	}
	t.Logf("%d feasible, %d infeasible", nFeas, nInfeas)
	if nFeas < 300 || nInfeas < 300 {
		t.Fatalf("unbalanced test set: %d feasible, %d infeasible", nFeas, nInfeas)
	}
}

// pigeonhole returns k+1 variables of cardinality k, pairwise different: an
// infeasible model whose proof needs search, not just propagation.
func pigeonhole(k int) *model.Model {
	m := &model.Model{Card: make([]int, k+1)}
	for v := range m.Card {
		m.Card[v] = k
	}
	for i := range k + 1 {
		for j := i + 1; j <= k; j++ {
			f := model.Factor{Scope: []int{i, j}, Table: model.Table{Log: make([]float64, k*k)}}
			for a := range k {
				f.Forbid(a*k + a)
			}
			m.Factors = append(m.Factors, f)
		}
	}
	return m
}

// TestPigeonhole proves infeasibility by search, with and without restarts.
func TestPigeonhole(t *testing.T) {
	m := pigeonhole(5)
	for _, s := range []Settings{{}, {RestartBase: 1}, {NoRestarts: true}} {
		res, err := Search(context.Background(), m, nil, nil, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != solver.Infeasible {
			t.Fatalf("settings %+v: status %v, want infeasible", s, res.Status)
		}
		if res.Nodes == 0 {
			t.Fatalf("settings %+v: infeasibility proven without search", s)
		}
	}
	// Dropping one variable makes it feasible (a permutation).
	m.Card = m.Card[:5]
	var fs []model.Factor
	for _, f := range m.Factors {
		if f.Scope[1] < 5 {
			fs = append(fs, f)
		}
	}
	m.Factors = fs
	res, err := Search(context.Background(), m, nil, nil, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, m, nil, res, true, "permutation")
}

// TestClamp checks that clamps are obeyed and that a clamp ruling out every
// feasible assignment gives Infeasible.
func TestClamp(t *testing.T) {
	// x0 == x1 == x2 over 3 states, and x0 != 2.
	m := &model.Model{Card: []int{3, 3, 3}}
	for _, sc := range [][]int{{0, 1}, {1, 2}} {
		f := model.Factor{Scope: sc, Table: model.Table{Log: make([]float64, 9)}}
		for a := range 3 {
			for b := range 3 {
				if a != b {
					f.Forbid(a*3 + b)
				}
			}
		}
		m.Factors = append(m.Factors, f)
	}
	u := model.Factor{Scope: []int{0}, Table: model.Table{Log: []float64{0, 0, 0}}}
	u.Forbid(2)
	m.Factors = append(m.Factors, u)

	for _, tc := range []struct {
		clamp []int
		want  []int // nil: infeasible
	}{
		{[]int{-1, -1, 1}, []int{1, 1, 1}},
		{[]int{-1, 0, -1}, []int{0, 0, 0}},
		{[]int{-1, -1, 2}, nil},          // contradicts the unary through the chain
		{[]int{0, -1, 1}, nil},           // contradicts the equalities
		{[]int{1, 1, 1}, []int{1, 1, 1}}, // all clamped, feasible
	} {
		res, err := Search(context.Background(), m, []int{0, 0, 0}, tc.clamp, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == nil {
			checkResult(t, m, tc.clamp, res, false, "clamp")
			continue
		}
		checkResult(t, m, tc.clamp, res, true, "clamp")
		for v := range tc.want {
			if res.Assignment[v] != tc.want[v] {
				t.Fatalf("clamp %v: got %v, want %v", tc.clamp, res.Assignment, tc.want)
			}
		}
	}
	// Out-of-range clamp or wrong length: an error.
	if _, err := Search(context.Background(), m, nil, []int{3, -1, -1}, Settings{}); err == nil {
		t.Fatal("clamp value out of range accepted")
	}
	if _, err := Search(context.Background(), m, nil, []int{-1}, Settings{}); err == nil {
		t.Fatal("short clamp accepted")
	}
}

// TestHintKept checks that a feasible hint comes back unchanged, on random
// models, and that an infeasible hint still leads to a feasible assignment.
func TestHintKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	kept := 0
	for range 2000 {
		m := randomModel(rng, 0.3)
		n := m.NumVars()
		hint := make([]int, n)
		for v := range hint {
			hint[v] = rng.IntN(m.Card[v])
		}
		orig := append([]int(nil), hint...)
		res, err := Search(context.Background(), m, hint, nil, Settings{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		for v := range hint {
			if hint[v] != orig[v] {
				t.Fatal("Search modified the hint")
			}
		}
		if math.IsInf(m.Energy(hint), 1) {
			checkResult(t, m, nil, res, bruteFeasible(m, nil), "infeasible hint")
			continue
		}
		kept++
		if res.Status != solver.Solved || res.Fails != 0 {
			t.Fatalf("feasible hint: status %v, %d fails", res.Status, res.Fails)
		}
		for v := range hint {
			if res.Assignment[v] != hint[v] {
				t.Fatalf("feasible hint %v came back as %v", hint, res.Assignment)
			}
		}
	}
	if kept < 100 {
		t.Fatalf("only %d feasible hints", kept)
	}
}

// TestDeterministic checks that a seed fixes the result, and that the seed
// does drive the tie-breaking.
func TestDeterministic(t *testing.T) {
	m := pigeonhole(6)
	m.Card = m.Card[:6] // six pigeons, six holes: feasible, all ties
	var fs []model.Factor
	for _, f := range m.Factors {
		if f.Scope[1] < 6 {
			fs = append(fs, f)
		}
	}
	m.Factors = fs
	run := func(seed uint64) *Result {
		res, err := Search(context.Background(), m, nil, nil, Settings{Seed: seed, RestartBase: 2})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, m, nil, res, true, "deterministic")
		return res
	}
	same := func(a, b *Result) bool {
		if a.Nodes != b.Nodes || a.Fails != b.Fails || a.Restarts != b.Restarts {
			return false
		}
		for v := range a.Assignment {
			if a.Assignment[v] != b.Assignment[v] {
				return false
			}
		}
		return true
	}
	first := run(42)
	for range 3 {
		if res := run(42); !same(res, first) {
			t.Fatalf("run differs: %+v vs %+v", res, first)
		}
	}
	distinct := false
	for seed := range uint64(20) {
		if !same(run(seed), first) {
			distinct = true
		}
	}
	if !distinct {
		t.Fatal("20 seeds give the same search: the seed is not used")
	}
}

// TestInterrupted checks that a cancelled context stops the search at once,
// also on a problem that would otherwise take very long, with status
// Interrupted; its deadline, the time limit, with OutOfTime.
func TestInterrupted(t *testing.T) {
	m := pigeonhole(12) // exponential for this search
	search := func(ctx context.Context) *Result {
		t.Helper()
		done := make(chan *Result, 1)
		go func() {
			res, err := Search(ctx, m, nil, nil, Settings{MaxNodes: -1})
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		select {
		case res := <-done:
			if res == nil {
				t.FailNow()
			}
			return res
		case <-time.After(5 * time.Second):
			t.Fatal("Search ignores the context")
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := search(ctx)
	if res.Status != solver.Interrupted || res.Assignment != nil || res.Nodes != 0 {
		t.Fatalf("status %v assignment %v nodes %d, want interrupted, nil, 0", res.Status, res.Assignment, res.Nodes)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res = search(ctx)
	if res.Status != solver.OutOfTime || res.Nodes == 0 {
		t.Fatalf("status %v after %d nodes and a deadline, want time-limit", res.Status, res.Nodes)
	}
}

// TestLimits checks the node and time limits.
func TestLimits(t *testing.T) {
	m := pigeonhole(12)
	res, err := Search(context.Background(), m, nil, nil, Settings{MaxNodes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.MaxIterations || res.Nodes != 1000 {
		t.Fatalf("status %v after %d nodes, want max-iterations after 1000", res.Status, res.Nodes)
	}
	res, err = Search(within(t, 30*time.Millisecond), m, nil, nil, Settings{MaxNodes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.OutOfTime || res.Time > 2*time.Second {
		t.Fatalf("status %v after %v, want time-limit", res.Status, res.Time)
	}
}

func TestLuby(t *testing.T) {
	want := []int64{1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1}
	for i, w := range want {
		if g := luby(i + 1); g != w {
			t.Fatalf("luby(%d) = %d, want %d", i+1, g, w)
		}
	}
}

const pedigree9 = "/work/shared/data/uai/higher_order/tb2_pedigree9.uai.xz"

// TestPedigree9 finds a feasible assignment of a Bayesian network on which
// the heuristic solvers only reach forbidden entries (optimum 282.997).
func TestPedigree9(t *testing.T) {
	if _, err := os.Stat(pedigree9); err != nil {
		t.Skipf("%s absent", pedigree9)
	}
	m, err := uai.ReadModelFile(pedigree9)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]int, m.NumVars())
	for _, tc := range []struct {
		name string
		hint []int
	}{{"nil", nil}, {"zeros", zeros}} {
		res, err := Search(within(t, 60*time.Second), m, tc.hint, nil, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != solver.Solved || math.IsInf(res.Energy, 0) || math.IsNaN(res.Energy) {
			t.Fatalf("hint %s: status %v energy %v", tc.name, res.Status, res.Energy)
		}
		if e := m.Energy(res.Assignment); e != res.Energy {
			t.Fatalf("hint %s: energy %v, reported %v", tc.name, e, res.Energy)
		}
		if res.Energy < 282.997-1e-3 {
			t.Fatalf("hint %s: energy %v below the proven optimum 282.997", tc.name, res.Energy)
		}
		t.Logf("hint %s: %v, energy %.4f, %d nodes, %d fails, %d restarts, %v",
			tc.name, res.Status, res.Energy, res.Nodes, res.Fails, res.Restarts, res.Time)
	}
}

// within returns a context with a deadline d from now, cancelled at the
// end of the test.
func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
