package icm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
)

// TestImproveModel: on random higher-order models with forbidden entries,
// ImproveModel never raises the energy, keeps clamped variables, and ends
// where no single move lowers (forbidden factors, energy).
func TestImproveModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(6), MaxCard: 3, Factors: 1 + r.IntN(8), MaxArity: 4, Forbidden: 0.3})
		x := make([]int, m.NumVars())
		clamp := make([]int, m.NumVars())
		for v := range x {
			x[v], clamp[v] = r.IntN(m.Card[v]), -1
		}
		if r.IntN(3) == 0 {
			clamp[0] = x[0]
		}
		before := m.Energy(x)
		after := ImproveModel(m, x, clamp)
		if after > before || after != m.Energy(x) || (clamp[0] >= 0 && x[0] != clamp[0]) {
			t.Fatalf("trial %d: energy %v -> %v (recomputed %v), x[0] %d clamp %d", trial, before, after, m.Energy(x), x[0], clamp[0])
		}
		conflicts := func() int {
			n := 0
			for fi := range m.Factors {
				if m.Factors[fi].IsForbidden(m.Index(&m.Factors[fi], x)) {
					n++
				}
			}
			return n
		}
		c0 := conflicts()
		for v := range x {
			if clamp[v] >= 0 {
				continue
			}
			keep := x[v]
			for a := range m.Card[v] {
				x[v] = a
				c, e := conflicts(), m.Energy(x)
				if c < c0 || (c == 0 && c0 == 0 && e < after-1e-9*(1+math.Abs(after))) {
					t.Fatalf("trial %d: moving variable %d to %d improves (%d, %v) to (%d, %v)", trial, v, a, c0, after, c, e)
				}
			}
			x[v] = keep
		}
	}
}
