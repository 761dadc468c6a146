package lns

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/internal/refdata"
	"github.com/sdrmap/sdrmap/mapsolver/icm"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/search/feasible"
)

// feasibleAll returns every finite-energy assignment of m consistent with
// clamp, by enumeration.
func feasibleAll(m *model.Model, clamp []int) [][]int {
	n := m.NumVars()
	x := make([]int, n)
	for v := range x {
		x[v] = max(clamp[v], 0)
	}
	var all [][]int
	for {
		if !math.IsInf(m.Energy(x), 1) {
			all = append(all, slices.Clone(x))
		}
		v := n - 1
		for ; v >= 0; v-- {
			if clamp[v] >= 0 {
				continue
			}
			if x[v]++; x[v] < m.Card[v] {
				break
			}
			x[v] = 0
		}
		if v < 0 {
			return all
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(b)) }

func noClamp(n int) []int {
	c := make([]int, n)
	for v := range c {
		c[v] = -1
	}
	return c
}

// check runs Improve from x and verifies the invariants: the returned
// energy is m.Energy(x), finite, not above the start's; the clamps hold.
func check(t *testing.T, m *model.Model, x, clamp []int, s Settings) float64 {
	t.Helper()
	e0 := m.Energy(x)
	got := Improve(context.Background(), m, x, clamp, s)
	if err := m.Check(x); err != nil {
		t.Fatal(err)
	}
	e := m.Energy(x)
	if e != got {
		t.Fatalf("returned %v, m.Energy(x) = %v", got, e)
	}
	if math.IsInf(e, 1) || e > e0 {
		t.Fatalf("energy %v from a start of %v", e, e0)
	}
	for v, c := range clamp {
		if c >= 0 && x[v] != c {
			t.Fatalf("clamped variable %d moved from %d to %d", v, c, x[v])
		}
	}
	return e
}

// randomCase draws a small model with forbidden entries, a random feasible
// start, sometimes clamps (at the start's values), and the optimum by
// brute force; ok is false if the model is infeasible.
func randomCase(r *rand.Rand, o randmodel.Options) (m *model.Model, start, clamp []int, opt float64, ok bool) {
	m = randmodel.New(r, o)
	clamp = noClamp(m.NumVars())
	all := feasibleAll(m, clamp)
	if len(all) == 0 {
		return nil, nil, nil, 0, false
	}
	start = all[r.IntN(len(all))]
	if r.IntN(3) == 0 {
		for v := range clamp {
			if r.IntN(4) == 0 {
				clamp[v] = start[v]
			}
		}
	}
	opt, _ = randmodel.BruteForce(m, clamp)
	return m, start, clamp, opt, true
}

// TestSolveExact: one block move over all the free variables reaches the
// brute-force optimum (the branch and bound is exact), and a walk move stays
// feasible within its slack.
func TestSolveExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	cases, moved := 0, 0
	for cases < 300 {
		m, start, clamp, opt, ok := randomCase(r, randmodel.Options{
			Vars: 2 + r.IntN(8), MaxCard: 3, Factors: 1 + r.IntN(9), MaxArity: 4, Forbidden: 0.3,
		})
		if !ok {
			continue
		}
		cases++
		x := slices.Clone(start)
		b := newBlocker(m, x, clamp, Settings{MaxNodes: 1 << 30}, 0, nil)
		if len(b.free) == 0 {
			continue
		}
		b.setBlock(b.free)
		e0 := m.Energy(x)
		d := b.solve(-1)
		if e := m.Energy(x); !near(e, opt) || !near(e0+d, e) {
			t.Fatalf("case %d: block move gave %v (change %v from %v), optimum %v", cases, e, d, e0, opt)
		}
		if !near(e0, opt) {
			moved++
		}
		// A walk move from the optimum with slack 1.
		b.setBlock(b.free)
		e1 := m.Energy(x)
		d = b.solve(1)
		if e := m.Energy(x); math.IsInf(e, 1) || e > e1+1+1e-9 || !near(e1+d, e) {
			t.Fatalf("case %d: walk move from %v gave %v (change %v)", cases, e1, e, d)
		}
		for v, c := range clamp {
			if c >= 0 && x[v] != c {
				t.Fatalf("case %d: clamped variable %d moved", cases, v)
			}
		}
	}
	if moved < cases/3 {
		t.Fatalf("only %d of %d starts were not optimal: the test is too easy", moved, cases)
	}
}

// TestImproveOptimal: on small random models of arity up to 4 with
// forbidden entries and clamps, Improve with MaxBlock >= n reaches the
// brute-force optimum; with blocks of 2 it never worsens.
func TestImproveOptimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for cases := 0; cases < 100; {
		m, start, clamp, opt, ok := randomCase(r, randmodel.Options{
			Vars: 3 + r.IntN(7), MaxCard: 3, Factors: 2 + r.IntN(8), MaxArity: 4, Forbidden: 0.25,
		})
		if !ok {
			continue
		}
		cases++
		n := m.NumVars()
		for seed := range uint64(2) {
			x := slices.Clone(start)
			e := check(t, m, x, clamp, Settings{Seed: seed, MaxBlock: n, MaxNodes: 1 << 30, Population: 1 + int(seed)})
			if !near(e, opt) {
				t.Fatalf("case %d seed %d: energy %v, optimum %v (start %v)", cases, seed, e, opt, m.Energy(start))
			}
			x = slices.Clone(start)
			e = check(t, m, x, clamp, Settings{Seed: seed, MaxBlock: 2, MaxStall: 50})
			if e < opt-1e-9 {
				t.Fatalf("case %d: energy %v below the optimum %v", cases, e, opt)
			}
		}
	}
}

// TestHighArity: a factor of arity 12 over binary variables uses the flat
// bound (3^12 > maxExtRatio * 2^12); the block move is still exact.
func TestHighArity(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for c := 0; c < 10; {
		m := randmodel.New(r, randmodel.Options{Vars: 13, MaxCard: 2, MinCard2: true, Factors: 6, MaxArity: 2, Forbidden: 0.2})
		scope := r.Perm(13)[:12]
		f := model.Factor{Scope: scope, Table: model.Table{Log: make([]float64, 1<<12)}}
		for k := range f.Log {
			if r.IntN(3) == 0 {
				f.Forbid(k)
			} else {
				f.Log[k] = r.NormFloat64()
			}
		}
		m.Factors = append(m.Factors, f)
		clamp := noClamp(13)
		all := feasibleAll(m, clamp)
		if len(all) == 0 {
			continue
		}
		c++
		opt, _ := randmodel.BruteForce(m, clamp)
		x := slices.Clone(all[r.IntN(len(all))])
		b := newBlocker(m, x, nil, Settings{MaxNodes: 1 << 30}, 0, nil)
		b.setBlock(b.free)
		b.solve(-1)
		flat := false
		for i := range b.facs {
			flat = flat || b.facs[i].flat
		}
		if !flat {
			t.Fatal("the arity-12 factor is not flat")
		}
		if e := m.Energy(x); !near(e, opt) {
			t.Fatalf("block move gave %v, optimum %v", e, opt)
		}
	}
}

// TestRecombine: x takes the better parts of y: the result is feasible and
// at most min(E(x), E(y)).
func TestRecombine(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for c := 0; c < 200; {
		m, _, _, _, ok := randomCase(r, randmodel.Options{
			Vars: 4 + r.IntN(6), MaxCard: 3, Factors: 2 + r.IntN(6), MaxArity: 3, Forbidden: 0.3,
		})
		if !ok {
			continue
		}
		all := feasibleAll(m, noClamp(m.NumVars()))
		if len(all) < 2 {
			continue
		}
		c++
		x, y := slices.Clone(all[r.IntN(len(all))]), all[r.IntN(len(all))]
		ex, ey := m.Energy(x), m.Energy(y)
		b := newBlocker(m, x, nil, Settings{MaxNodes: 1 << 30}, 0, nil)
		d := b.recombine(y)
		e := m.Energy(x)
		if e > min(ex, ey)+1e-9 || !near(ex+d, e) {
			t.Fatalf("recombination of %v and %v gave %v (change %v)", ex, ey, e, d)
		}
	}
}

// TestNodeLimit: a tiny node limit still never worsens and stays feasible.
func TestNodeLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	runs := 0
	for range 20 {
		m := randmodel.New(r, randmodel.Options{Vars: 40, MaxCard: 3, MinCard2: true, Factors: 60, MaxArity: 4, Forbidden: 0.2})
		res, err := feasible.Search(context.Background(), m, nil, nil, feasible.Settings{Seed: 1})
		if err != nil || res.Assignment == nil {
			continue
		}
		runs++
		check(t, m, res.Assignment, nil, Settings{Seed: 1, MaxBlock: 40, MaxNodes: 3, MaxStall: 300})
	}
	if runs < 5 {
		t.Fatalf("only %d feasible models", runs)
	}
}

// TestDeterministic: the same seed gives the same assignment, which is at
// least as good as ICM's; OnImprove reports decreasing energies of x.
func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	m := randmodel.New(r, randmodel.Options{Vars: 200, MaxCard: 4, MinCard2: true, Factors: 300, MaxArity: 4, Forbidden: 0.05})
	res, err := feasible.Search(context.Background(), m, nil, nil, feasible.Settings{Seed: 1})
	if err != nil || res.Assignment == nil {
		t.Fatalf("no feasible start: %v", err)
	}
	run := func(seed uint64) ([]int, float64) {
		x := slices.Clone(res.Assignment)
		last := m.Energy(x)
		e := check(t, m, x, nil, Settings{Seed: seed, MaxBlock: 12, MaxStall: 3000,
			OnImprove: func(e float64) {
				if e >= last || !near(e, m.Energy(x)) {
					t.Fatalf("OnImprove(%v) after %v, m.Energy(x) = %v", e, last, m.Energy(x))
				}
				last = e
			}})
		if !near(e, last) {
			t.Fatalf("last OnImprove %v, result %v", last, e)
		}
		return x, e
	}
	x1, e1 := run(7)
	x2, e2 := run(7)
	if e1 != e2 || !slices.Equal(x1, x2) {
		t.Fatalf("seed 7 gave %v then %v", e1, e2)
	}
	xi := slices.Clone(res.Assignment)
	if ei := icm.ImproveModel(m, xi, nil); e1 > ei+1e-9 {
		t.Fatalf("lns %v worse than icm %v", e1, ei)
	}
}

// TestStops: a cancelled context returns at once with x unchanged; the time
// limit is kept.
func TestStops(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	m := randmodel.New(r, randmodel.Options{Vars: 30, MaxCard: 3, MinCard2: true, Factors: 40, MaxArity: 3})
	x := make([]int, m.NumVars())
	e0 := m.Energy(x)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if e := Improve(ctx, m, x, nil, Settings{MaxStall: -1}); e != e0 || slices.ContainsFunc(x, func(a int) bool { return a != 0 }) {
		t.Fatal("a cancelled run changed x")
	}
	start := time.Now()
	Improve(within(t, 50*time.Millisecond), m, x, nil, Settings{MaxStall: -1})
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("time limit of 50ms took %v", el)
	}
	// A dense model without a node limit to speak of: one block search
	// alone would take far longer than the limit, which it must still keep.
	m = randmodel.New(r, randmodel.Options{Vars: 60, MaxCard: 12, MinCard2: true, Factors: 2000, MaxArity: 2})
	x = make([]int, m.NumVars())
	start = time.Now()
	Improve(within(t, 50*time.Millisecond), m, x, nil, Settings{MaxStall: -1, MaxNodes: 1 << 40})
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("time limit of 50ms on a dense model took %v", el)
	}
}

// TestMeasure runs the shared pedigree instance (set LNS_MEASURE=1; run with
// GOMAXPROCS=1): feasible.Search, icm.ImproveModel, then Improve for
// LNS_TIME (default 60s) for each seed of LNS_SEEDS (default 1,2,3), and
// prints the energy at 1, 5, 15, 30 and 60 s (time counted from the start
// of feasible.Search). LNS_BLOCK, LNS_NODES, LNS_POP override the settings.
func TestMeasure(t *testing.T) {
	if os.Getenv("LNS_MEASURE") != "1" {
		t.Skip("set LNS_MEASURE=1")
	}
	path := refdata.Path(refdata.Require(t), refdata.Instance{File: "higher_order/tb2_pedigree9.uai.xz"})
	m, err := uai.ReadModelFile(path)
	if err != nil {
		t.Fatal(err)
	}
	limit := 60 * time.Second
	if s := os.Getenv("LNS_TIME"); s != "" {
		if limit, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	seeds := "1,2,3"
	if s := os.Getenv("LNS_SEEDS"); s != "" {
		seeds = s
	}
	envInt := func(name string) int {
		v, _ := strconv.Atoi(os.Getenv(name))
		return v
	}
	marks := []time.Duration{time.Second, 5 * time.Second, 15 * time.Second, 30 * time.Second, 60 * time.Second}
	for _, ss := range strings.Split(seeds, ",") {
		seed, err := strconv.ParseUint(ss, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		res, err := feasible.Search(context.Background(), m, nil, nil, feasible.Settings{Seed: 1})
		if err != nil || res.Assignment == nil {
			t.Fatalf("no feasible start: %v", err)
		}
		x := res.Assignment
		ef := m.Energy(x)
		ei := icm.ImproveModel(m, x, nil)
		type point struct {
			t time.Duration
			e float64
		}
		trace := []point{{time.Since(t0), ei}}
		e := Improve(within(t, limit-time.Since(t0)), m, x, nil, Settings{
			Seed: seed, MaxStall: -1,
			MaxBlock: envInt("LNS_BLOCK"), MaxNodes: envInt("LNS_NODES"), Population: envInt("LNS_POP"),
			OnImprove: func(e float64) { trace = append(trace, point{time.Since(t0), e}) },
		})
		line := fmt.Sprintf("seed %d: feasible %.3f icm %.3f (%.2fs)", seed, ef, ei, trace[0].t.Seconds())
		for _, mk := range marks {
			if mk > limit {
				break
			}
			at := trace[0].e
			for _, p := range trace {
				if p.t <= mk {
					at = p.e
				}
			}
			line += fmt.Sprintf(" | %v %.3f", mk, at)
		}
		last := trace[len(trace)-1]
		line += fmt.Sprintf(" | final %.3f, reached at %.1fs", e, last.t.Seconds())
		fmt.Println(line)
	}
}

// within returns a context with a deadline d from now, cancelled at the
// end of the test.
func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
