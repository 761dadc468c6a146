package icm

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
)

// TestCrossoverAgainstBruteForce: on random sparse tiny models with
// forbidden entries, from random x and y (y a perturbation of x, so that the
// differences split into several components), Crossover reaches the best
// (forbidden entries, energy) over every combination of the components
// where x and y differ, found by enumerating the 2^k subsets, and only
// changes x where it differs from y.
func TestCrossoverAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	multi := 0
	for trial := 0; trial < 300; trial++ {
		n := 5 + r.IntN(6)
		m := randmodel.New(r, randmodel.Options{
			Vars: n, MaxCard: 3, Factors: n + r.IntN(n), MaxArity: 2,
			Forbidden: []float64{0, 0.1, 0.3}[trial%3], Constant: true,
		})
		p, err := m.Pairwise(nil)
		if err != nil {
			continue
		}
		tr := NewTrees(p)
		x := randomAssignment(r, p)
		y := slices.Clone(x)
		for i := range y {
			if r.IntN(2) == 0 {
				y[i] = r.IntN(p.Card[i])
			}
		}
		comps := components(tr, x, y)
		if len(comps) > 1 {
			multi++
		}
		bestC, bestW := pairOf(p, x)
		z := slices.Clone(x)
		for mask := 1; mask < 1<<len(comps); mask++ {
			copy(z, x)
			for k, c := range comps {
				if mask&(1<<k) != 0 {
					for _, v := range c {
						z[v] = y[v]
					}
				}
			}
			if c, w := pairOf(p, z); c < bestC || c == bestC && lowerBy(w, bestW) {
				bestC, bestW = c, w
			}
		}
		got := slices.Clone(x)
		tr.Crossover(got, y)
		for i := range got {
			if got[i] != x[i] && got[i] != y[i] {
				t.Fatalf("trial %d: variable %d is %d, neither x's %d nor y's %d", trial, i, got[i], x[i], y[i])
			}
		}
		if c, w := pairOf(p, got); c != bestC || !closeTo(w, bestW) {
			t.Fatalf("trial %d: crossover (%d, %v), best combination of %d components (%d, %v)", trial, c, w, len(comps), bestC, bestW)
		}
	}
	if multi < 100 {
		t.Fatalf("only %d trials with more than one component", multi)
	}
}

// components returns the connected components of the variables where x
// and y differ, by a plain search over every edge.
func components(tr *Trees, x, y []int) [][]int {
	n := len(x)
	seen := make([]bool, n)
	var out [][]int
	for s := range n {
		if x[s] == y[s] || seen[s] {
			continue
		}
		c := []int{s}
		seen[s] = true
		for h := 0; h < len(c); h++ {
			for _, e := range tr.p.Edges {
				for _, uv := range [][2]int{{e.I, e.J}, {e.J, e.I}} {
					if uv[0] == c[h] && x[uv[1]] != y[uv[1]] && !seen[uv[1]] {
						seen[uv[1]] = true
						c = append(c, uv[1])
					}
				}
			}
		}
		out = append(out, c)
	}
	return out
}
