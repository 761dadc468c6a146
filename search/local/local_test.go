package local

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
)

// TestCandidates on random frustrated models against brute force: the
// best is returned with its energy, never worse than any candidate nor
// better than the optimum; without polish it is the best candidate as
// given; a bound at the optimum is kept and stops nothing wrongly.
func TestCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	ctx := context.Background()
	for trial := range 40 {
		m := randmodel.Frustrated(r, 4+r.IntN(4))
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		opt, _ := randmodel.BruteForce(m, free(m.NumVars()))
		draw := func() [][]int {
			cs := make([][]int, 6)
			for k := range cs {
				cs[k] = make([]int, p.NumVars())
				for i, c := range p.Card {
					cs[k][i] = r.IntN(c)
				}
			}
			return cs
		}
		cands := draw()
		worst := math.Inf(-1)
		for _, x := range cands {
			worst = max(worst, p.Energy(x))
		}
		first := math.Inf(1)
		for _, x := range cands {
			first = min(first, p.Energy(x))
		}
		x, e, b := Candidates(ctx, p, cands, math.Inf(-1), nil, Settings{Seed: 1})
		if e != p.Energy(x) || e > first || e < opt-1e-9 || b != math.Inf(-1) {
			t.Fatalf("trial %d: energy %v of %v (evaluates to %v), best candidate %v, optimum %v, bound %v", trial, e, x, p.Energy(x), first, opt, b)
		}
		cands = draw()
		es := make([]float64, len(cands))
		for k, c := range cands {
			es[k] = p.Energy(c)
		}
		want := cands[slices.Index(es, slices.Min(es))]
		calls := 0
		x, e, b = Candidates(ctx, p, cands, math.Inf(-1), func([]int) float64 { calls++; return opt }, Settings{NoPolish: true})
		if !slices.Equal(x, want) || e != slices.Min(es) || b != opt || calls != 1 {
			t.Fatalf("trial %d, no polish: %v (%v), want %v (%v); bound %v, %d certificates", trial, x, e, want, slices.Min(es), b, calls)
		}
	}
}

// TestPolishLNS: Polish never raises the energy and returns that of the
// assignment; the large-neighbourhood search, whose exact blocks cover
// these tiny models, reaches the brute-force optimum.
func TestPolishLNS(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 6))
	ctx := context.Background()
	identity := func(x []int) []int { return x }
	for trial := range 8 {
		m := randmodel.Frustrated(r, 4+r.IntN(5))
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		opt, _ := randmodel.BruteForce(m, free(m.NumVars()))
		x := make([]int, m.NumVars())
		e0 := m.Energy(x)
		e := Polish(ctx, m, p, nil, identity, identity, x)
		if e != m.Energy(x) || e > e0 {
			t.Fatalf("trial %d: polish %v -> %v (evaluates to %v)", trial, e0, e, m.Energy(x))
		}
		e = LNS(ctx, m, nil, x, e, math.Inf(-1), Settings{Seed: 1})
		if e != m.Energy(x) || math.Abs(e-opt) > 1e-9*(1+math.Abs(opt)) {
			t.Fatalf("trial %d: LNS energy %v (evaluates to %v), optimum %v", trial, e, m.Energy(x), opt)
		}
	}
}

func free(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = -1
	}
	return c
}
