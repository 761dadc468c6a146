package icm

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/internal/refdata"
	"github.com/sdrmap/sdrmap/model"
)

// pairOf returns the number of forbidden entries x uses and the finite part
// of its energy, -(Const + sum of the entries that are not forbidden).
func pairOf(p *model.Pairwise, x []int) (int, float64) {
	c, w := 0, p.Const
	for i, a := range x {
		if p.Unary[i].IsForbidden(a) {
			c++
		} else {
			w += p.Unary[i].Log[a]
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		if k := x[ed.I]*p.Card[ed.J] + x[ed.J]; ed.IsForbidden(k) {
			c++
		} else {
			w += ed.Log[k]
		}
	}
	return c, -w
}

// bruteBlock enumerates every assignment of vars with the other variables
// as in x and returns the lexicographically least (forbidden entries,
// energy) pair and an assignment reaching it. x is left unchanged.
func bruteBlock(p *model.Pairwise, x []int, vars []int) (int, float64, []int) {
	y := append([]int(nil), x...)
	for _, v := range vars {
		y[v] = 0
	}
	bestC, bestE := math.MaxInt, math.Inf(1)
	var arg []int
	for {
		if c, e := pairOf(p, y); c < bestC || (c == bestC && e < bestE) {
			bestC, bestE, arg = c, e, append(arg[:0], y...)
		}
		k := len(vars) - 1
		for ; k >= 0; k-- {
			v := vars[k]
			if y[v]++; y[v] < p.Card[v] {
				break
			}
			y[v] = 0
		}
		if k < 0 {
			return bestC, bestE, arg
		}
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// lowerBy reports whether energy a is below b by more than rounding.
func lowerBy(a, b float64) bool { return a < b-1e-9*math.Max(1, math.Abs(b)) }

// treeVars returns the variables of every tree of every forest of tr.
func treeVars(tr *Trees) [][]int {
	var out [][]int
	for fi := range tr.forests {
		f := &tr.forests[fi]
		for k := 0; k+1 < len(f.trees); k++ {
			var vs []int
			for _, v := range f.verts[f.trees[k]:f.trees[k+1]] {
				vs = append(vs, int(v))
			}
			out = append(out, vs)
		}
	}
	return out
}

// checkForests verifies the forests of tr independently of how they were
// built: each tree is a connected tree along its parent pointers, the edges
// of the model between the variables of a forest are exactly its tree edges
// (so a tree move is exact), and together the forests cover every edge.
func checkForests(t *testing.T, p *model.Pairwise, tr *Trees) {
	t.Helper()
	covered := make([]bool, len(p.Edges))
	for fi := range tr.forests {
		f := &tr.forests[fi]
		tree := make([]int, p.NumVars()) // 1 + tree number, 0 outside
		treeEdges := map[int]bool{}
		for k := 0; k+1 < len(f.trees); k++ {
			s, e := int(f.trees[k]), int(f.trees[k+1])
			if e-s < 2 {
				t.Fatalf("forest %d: tree %d has %d variables", fi, k, e-s)
			}
			for q := s; q < e; q++ {
				v := int(f.verts[q])
				if tree[v] != 0 {
					t.Fatalf("forest %d: variable %d twice", fi, v)
				}
				tree[v] = k + 1
				if q == s {
					if f.par[q] != -1 {
						t.Fatalf("forest %d: root of tree %d has a parent", fi, k)
					}
					continue
				}
				pq := int(f.par[q])
				if pq < s || pq >= q {
					t.Fatalf("forest %d: position %d has parent position %d, tree %d..%d", fi, q, pq, s, e)
				}
				ed := &p.Edges[f.pedge[q]]
				u := int(f.verts[pq])
				if !(ed.I == v && ed.J == u && f.first[q]) && !(ed.I == u && ed.J == v && !f.first[q]) {
					t.Fatalf("forest %d: edge %d (%d,%d) does not join %d to its parent %d as marked", fi, f.pedge[q], ed.I, ed.J, v, u)
				}
				treeEdges[int(f.pedge[q])] = true
			}
		}
		for e := range p.Edges {
			ed := &p.Edges[e]
			inside := tree[ed.I] != 0 && tree[ed.J] != 0
			if inside != treeEdges[e] {
				t.Fatalf("forest %d: edge %d (%d,%d) between its variables: %v, a tree edge: %v", fi, e, ed.I, ed.J, inside, treeEdges[e])
			}
			if inside {
				covered[e] = true
			}
		}
		for k, v := range f.verts {
			if f.off[k+1]-f.off[k] != int32(p.Card[v]) {
				t.Fatalf("forest %d: %d states reserved for variable %d of cardinality %d", fi, f.off[k+1]-f.off[k], v, p.Card[v])
			}
		}
	}
	for e, c := range covered {
		if !c {
			t.Fatalf("edge %d (%d,%d) in no forest", e, p.Edges[e].I, p.Edges[e].J)
		}
	}
}

// fixedPoint fails the test if the brute-force minimizer over the variables
// of some tree, or of one variable, given the rest, beats x
// lexicographically in (forbidden entries, energy) by more than rounding.
func fixedPoint(t *testing.T, p *model.Pairwise, tr *Trees, x []int, what string) {
	t.Helper()
	c0, e0 := pairOf(p, x)
	blocks := treeVars(tr)
	for i := range x {
		blocks = append(blocks, []int{i})
	}
	for _, vs := range blocks {
		c, e, y := bruteBlock(p, x, vs)
		if c < c0 || (c == c0 && lowerBy(e, e0)) {
			t.Fatalf("%s: x = %v at (%d, %v); changing variables %v to %v gives (%d, %v)", what, x, c0, e0, vs, y, c, e)
		}
	}
}

// randomPairwise draws a tiny pairwise model with a dense random edge set.
func randomPairwise(r *rand.Rand, trial int) (*model.Pairwise, error) {
	n := 3 + r.IntN(5)
	m := randmodel.New(r, randmodel.Options{
		Vars: n, MaxCard: 4, Factors: n + r.IntN(n*n), MaxArity: 2,
		Forbidden: []float64{0, 0.1, 0.3}[trial%3], Constant: true,
	})
	return m.Pairwise(randmodel.Evidence(r, m, 0.1))
}

// TestTreesAgainstBruteForce: on random tiny dense models with forbidden
// entries and constants, from the best-unary start and random ones, Improve
// returns the energy of its result, never raises the pair (forbidden
// entries, energy), stays finite from a finite start, is never below the
// brute-force optimum, and ends at a fixed point of every tree move and
// every single-variable move, checked by brute force over each tree's
// variables given the rest. The forests are checked by checkForests.
func TestTreesAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	optimal, icmOptimal, runs := 0, 0, 0
	for trial := 0; trial < 400; trial++ {
		p, err := randomPairwise(r, trial)
		if err != nil {
			continue
		}
		tr := NewTrees(p)
		checkForests(t, p, tr)
		all := make([]int, p.NumVars())
		for i := range all {
			all[i] = i
		}
		optC, optE, _ := bruteBlock(p, make([]int, p.NumVars()), all)
		for start := 0; start < 3; start++ {
			x := randomAssignment(r, p)
			if start == 0 {
				BestUnary(p, x)
			}
			y := append([]int(nil), x...)
			e0 := p.Energy(x)
			c0, w0 := pairOf(p, x)
			e := tr.Improve(x)
			c, w := pairOf(p, x)
			if e != p.Energy(x) {
				t.Fatalf("trial %d: Improve returned %v, energy of its result %v", trial, e, p.Energy(x))
			}
			if e > e0 || c > c0 || (c == c0 && w > w0+1e-9*math.Max(1, math.Abs(w0))) {
				t.Fatalf("trial %d: (%d, %v) energy %v after Improve, (%d, %v) energy %v at the start", trial, c, w, e, c0, w0, e0)
			}
			if c < optC || (c == optC && lowerBy(w, optE)) {
				t.Fatalf("trial %d: (%d, %v) below the brute-force optimum (%d, %v)", trial, c, w, optC, optE)
			}
			fixedPoint(t, p, tr, x, "Improve")
			runs++
			if c == optC && closeTo(w, optE) {
				optimal++
			}
			NewLocal(p).Improve(y)
			if c, w := pairOf(p, y); c == optC && closeTo(w, optE) {
				icmOptimal++
			}
		}
	}
	if runs < 900 {
		t.Fatalf("only %d runs", runs)
	}
	t.Logf("optimal in %d of %d runs (ICM alone: %d)", optimal, runs, icmOptimal)
}

// TestTreesExactOnForests: when the model's graph is a forest (a random
// tree with some edges dropped, some variables observed), one forest covers
// it and one call of Improve reaches the brute-force optimum, in
// (forbidden entries, energy), from any start.
func TestTreesExactOnForests(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	runs, icmOptimal := 0, 0
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(8)
		m := randmodel.New(r, randmodel.Options{
			Vars: n, MaxCard: []int{3, 4}[trial%2], Tree: true,
			Forbidden: []float64{0, 0.2, 0.4}[trial%3],
		})
		if trial%4 == 1 {
			kept := m.Factors[:0]
			for _, f := range m.Factors {
				if len(f.Scope) < 2 || r.IntN(3) > 0 {
					kept = append(kept, f)
				}
			}
			m.Factors = kept
		}
		var ev model.Evidence
		if trial%5 == 2 {
			ev = randmodel.Evidence(r, m, 0.2)
		}
		p, err := m.Pairwise(ev)
		if err != nil {
			continue
		}
		if n > 7 && p.NumVars() > 7 && p.Card[0] > 3 {
			continue // keep the enumeration small
		}
		tr := NewTrees(p)
		checkForests(t, p, tr)
		if tr.NumForests() > 1 {
			t.Fatalf("trial %d: %d forests for a forest-structured model", trial, tr.NumForests())
		}
		all := make([]int, p.NumVars())
		for i := range all {
			all[i] = i
		}
		optC, optE, _ := bruteBlock(p, make([]int, p.NumVars()), all)
		for start := 0; start < 4; start++ {
			x := randomAssignment(r, p)
			if start == 0 {
				BestUnary(p, x)
			}
			y := append([]int(nil), x...)
			tr.Improve(x)
			if c, w := pairOf(p, x); c != optC || !closeTo(w, optE) {
				t.Fatalf("trial %d: Improve from %v ends at %v with (%d, %v), optimum (%d, %v)", trial, y, x, c, w, optC, optE)
			}
			runs++
			NewLocal(p).Improve(y)
			if c, w := pairOf(p, y); c == optC && closeTo(w, optE) {
				icmOptimal++
			}
		}
	}
	t.Logf("%d runs optimal (ICM alone: %d)", runs, icmOptimal)
}

// TestTreesReachFeasible: on random models with many forbidden entries and a
// known feasible assignment y, starting from y with the variables of one
// tree of the first forest scrambled (often infeasible), Improve ends
// feasible: the first forest's move on that tree sees the rest as in y. From
// a feasible start the result is feasible too.
func TestTreesReachFeasible(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 77))
	infeasibleStarts, icmStuck := 0, 0
	for trial := 0; trial < 150; trial++ {
		n := 5 + r.IntN(30)
		m := randmodel.New(r, randmodel.Options{Vars: n, MaxCard: 4, Factors: 2 * n, MaxArity: 2, Forbidden: 0.4})
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		// Make a random y feasible by allowing the entries it uses.
		y := randomAssignment(r, p)
		allow := func(tb *model.Table, k int) {
			if tb.IsForbidden(k) {
				tb.Forbidden[k] = false
				tb.Log[k] = r.NormFloat64()
			}
		}
		for i, a := range y {
			allow(&p.Unary[i], a)
		}
		for e := range p.Edges {
			ed := &p.Edges[e]
			allow(&ed.Table, y[ed.I]*p.Card[ed.J]+y[ed.J])
		}
		if math.IsInf(p.Energy(y), 1) {
			t.Fatal("y still infeasible")
		}
		tr := NewTrees(p)
		f := &tr.forests[0]
		for k := 0; k+1 < len(f.trees); k++ {
			x := append([]int(nil), y...)
			for _, v := range f.verts[f.trees[k]:f.trees[k+1]] {
				x[v] = r.IntN(p.Card[v])
			}
			feasible := !math.IsInf(p.Energy(x), 1)
			z := append([]int(nil), x...)
			if e := tr.Improve(x); math.IsInf(e, 1) {
				t.Fatalf("trial %d, tree %d: infeasible result from %v, feasible %v differs only on the tree", trial, k, z, y)
			}
			if !feasible {
				infeasibleStarts++
				if math.IsInf(NewLocal(p).Improve(z), 1) {
					icmStuck++
				}
			}
		}
		x := append([]int(nil), y...)
		if e := tr.Improve(x); math.IsInf(e, 1) || e > p.Energy(y) {
			t.Fatalf("trial %d: energy %v from a feasible start of energy %v", trial, e, p.Energy(y))
		}
	}
	if infeasibleStarts < 50 {
		t.Fatalf("only %d infeasible starts", infeasibleStarts)
	}
	t.Logf("%d infeasible starts, all repaired; ICM alone stuck infeasible on %d", infeasibleStarts, icmStuck)
}

// spinGlass returns a rows x cols grid of binary variables with random
// fields and random +-1 couplings (frustrated): W_ij(a, b) = J_ij if a = b,
// else -J_ij.
func spinGlass(r *rand.Rand, rows, cols int) *model.Pairwise {
	n := rows * cols
	p := &model.Pairwise{Card: make([]int, n), Unary: make([]model.Table, n)}
	for i := range n {
		p.Card[i] = 2
		p.Unary[i].Log = []float64{0.3 * r.NormFloat64(), 0.3 * r.NormFloat64()}
	}
	coupling := func(i, j int) {
		J := float64(2*r.IntN(2) - 1)
		p.Edges = append(p.Edges, model.Edge{I: i, J: j, Table: model.Table{Log: []float64{J, -J, -J, J}}})
	}
	for i := range n {
		if (i+1)%cols != 0 {
			coupling(i, i+1)
		}
		if i+cols < n {
			coupling(i, i+cols)
		}
	}
	return p
}

// TestTreesFrustratedGrid: on a 30x30 binary spin glass, Improve ends no
// higher than ICM from the same start, and lower in total over the starts.
func TestTreesFrustratedGrid(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 30))
	p := spinGlass(r, 30, 30)
	tr := NewTrees(p)
	checkForests(t, p, tr)
	if tr.NumForests() > 8 {
		t.Errorf("%d forests on a grid", tr.NumForests())
	}
	l := NewLocal(p)
	sumICM, sumTrees := 0.0, 0.0
	for start := 0; start < 4; start++ {
		x := randomAssignment(r, p)
		if start == 0 {
			BestUnary(p, x)
		}
		y := append([]int(nil), x...)
		e0 := p.Energy(x)
		eICM := l.Improve(y)
		eTrees := tr.Improve(x)
		t.Logf("start %d (energy %.4f): ICM %.4f, Trees %.4f (%d forests)", start, e0, eICM, eTrees, tr.NumForests())
		if eTrees > eICM {
			t.Errorf("start %d: Trees %v above ICM %v", start, eTrees, eICM)
		}
		localOptimum(t, p, x, "Trees")
		sumICM += eICM
		sumTrees += eTrees
	}
	if !(sumTrees < sumICM) {
		t.Errorf("Trees total %v not below ICM total %v", sumTrees, sumICM)
	}
}

// TestTreesCancel: a cancelled context leaves x as it is; MaxSweeps bounds
// the rounds and never raises the energy.
func TestTreesCancel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	p := spinGlass(r, 10, 10)
	tr := NewTrees(p)
	x := randomAssignment(r, p)
	y := append([]int(nil), x...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if e := tr.ImproveCtx(ctx, x); e != p.Energy(y) {
		t.Errorf("cancelled: energy %v, start %v", e, p.Energy(y))
	}
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("cancelled: variable %d changed", i)
		}
	}
	tr.MaxSweeps = 1
	e1 := tr.ImproveCtx(nil, x)
	tr.MaxSweeps = 0
	e := tr.Improve(x)
	if !(e1 < p.Energy(y)) || e > e1 {
		t.Errorf("start %v, one round %v, to convergence %v", p.Energy(y), e1, e)
	}
}

// TestNewTreesCtx: a cancelled context leaves no forest (a grid needs
// several) and Improve still works (ICM); without one all edges are covered.
func TestNewTreesCtx(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := spinGlass(r, 10, 10)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	one, all := NewTreesCtx(ctx, p), NewTrees(p)
	if one.NumForests() != 0 || all.NumForests() < 3 {
		t.Fatalf("forests: %d cancelled, %d in all", one.NumForests(), all.NumForests())
	}
	x := randomAssignment(r, p)
	if e := one.Improve(x); !(e < math.Inf(1)) || math.Abs(e-p.Energy(x)) > 1e-9*(1+math.Abs(e)) {
		t.Fatalf("energy %v, of x %v", e, p.Energy(x))
	}
}

// TestTreesUAI logs ICM against Improve from the best-unary start on two
// shared instances (skipped when they are absent).
func TestTreesUAI(t *testing.T) {
	dir := refdata.Dir()
	if dir == "" {
		t.Skip("shared data absent")
	}
	for _, name := range []string{"grids/uai2014_Grids_26.uai.xz", "segmentation/uai2014_Segmentation_11.uai.xz"} {
		path := filepath.Join(dir, "uai", name)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("%s absent", path)
		}
		m, err := uai.ReadModelFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]int, p.NumVars())
		BestUnary(p, x)
		e0 := p.Energy(x)
		y := append([]int(nil), x...)
		t0 := time.Now()
		eICM := NewLocal(p).Improve(y)
		dICM := time.Since(t0)
		t0 = time.Now()
		tr := NewTrees(p)
		dSetup := time.Since(t0)
		t0 = time.Now()
		eTrees := tr.Improve(x)
		dTrees := time.Since(t0)
		if eTrees > e0 || eTrees != p.Energy(x) {
			t.Errorf("%s: Trees %v, start %v", name, eTrees, e0)
		}
		t.Logf("%s: start %.6f; ICM %.6f in %v; Trees %.6f in %v (+ %v set-up, %d forests)",
			name, e0, eICM, dICM, eTrees, dTrees, dSetup, tr.NumForests())
	}
}
