package icm

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSearchAgainstBruteForce: on random tiny models Search never raises
// the pair (forbidden entries, energy) of its start, ends at a fixed point
// of every tree and single-variable move, and reaches the brute-force
// optimum (a block can cover the whole model, so a long enough search
// finds it); the same seed gives the same result.
func TestSearchAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 2))
	runs := 0
	for trial := 0; trial < 200; trial++ {
		p, err := randomPairwise(r, trial)
		if err != nil {
			continue
		}
		all := make([]int, p.NumVars())
		for i := range all {
			all[i] = i
		}
		optC, optE, _ := bruteBlock(p, make([]int, p.NumVars()), all)
		tr := NewTrees(p)
		x := randomAssignment(r, p)
		c0, e0 := pairOf(p, x)
		y := slices.Clone(x)
		s := SearchSettings{MaxStall: 500, Seed: uint64(trial)}
		e := tr.Search(context.Background(), x, s)
		c, w := pairOf(p, x)
		if c > c0 || (c == c0 && lowerBy(e0, w)) || (c == 0 && !closeTo(e, w)) {
			t.Fatalf("trial %d: (%d, %v) -> (%d, %v), returned %v", trial, c0, e0, c, w, e)
		}
		fixedPoint(t, p, tr, x, "Search")
		if c != optC || (c == 0 && !closeTo(w, optE)) {
			t.Fatalf("trial %d: Search ends at (%d, %v), optimum (%d, %v)", trial, c, w, optC, optE)
		}
		if tr.Search(context.Background(), y, s); !slices.Equal(x, y) {
			t.Fatalf("trial %d: same seed, %v then %v", trial, x, y)
		}
		runs++
	}
	if runs < 150 {
		t.Fatalf("only %d runs", runs)
	}
}

// TestSearchFrustratedGrid: on a 30x30 spin glass Search ends below Improve
// from the same start; a cancelled context stops it at once, never worse
// than the start.
func TestSearchFrustratedGrid(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 31))
	p := spinGlass(r, 30, 30)
	tr := NewTrees(p)
	x := make([]int, p.NumVars())
	BestUnary(p, x)
	y := slices.Clone(x)
	eImprove := tr.Improve(y)
	eSearch := tr.Search(context.Background(), x, SearchSettings{MaxStall: 2000, Seed: 1})
	t.Logf("Improve %.4f, Search %.4f", eImprove, eSearch)
	if !lowerBy(eSearch, eImprove) {
		t.Fatalf("Search %v not below Improve %v", eSearch, eImprove)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	z := randomAssignment(r, p)
	e0 := p.Energy(z)
	if e := tr.Search(ctx, z, SearchSettings{Seed: 1}); e > e0 {
		t.Fatalf("cancelled Search raised the energy %v -> %v", e0, e)
	}
}
