package higherorder

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/model"
)

// randomPairwiseTable returns a table over cards that is a constant plus
// random unary terms plus random pairwise terms on a random subset of pairs.
func randomPairwiseTable(r *rand.Rand, cards []int) model.Table {
	st := strides(cards)
	t := model.Table{Log: make([]float64, size(cards))}
	c := r.NormFloat64()
	for k := range t.Log {
		t.Log[k] = c
	}
	for p := range cards {
		u := make([]float64, cards[p])
		for a := range u {
			u[a] = 3 * r.NormFloat64()
		}
		for k := range t.Log {
			t.Log[k] += u[k/st[p]%cards[p]]
		}
		for q := p + 1; q < len(cards); q++ {
			if r.IntN(3) == 0 {
				continue
			}
			w := make([]float64, cards[p]*cards[q])
			for ab := range w {
				w[ab] = 10 * r.NormFloat64()
			}
			for k := range t.Log {
				t.Log[k] += w[k/st[p]%cards[p]*cards[q]+k/st[q]%cards[q]]
			}
		}
	}
	return t
}

// rebuild evaluates a decomposition at every configuration of cards.
func rebuild(cards []int, d *decomposition) []float64 {
	st := strides(cards)
	out := make([]float64, size(cards))
	for k := range out {
		for p := range cards {
			a := k / st[p] % cards[p]
			out[k] += d.unary[p][a]
			for q := p + 1; q < len(cards); q++ {
				if f := d.pair[p][q]; f != nil {
					out[k] += f[a*cards[q]+k/st[q]%cards[q]]
				}
			}
		}
	}
	return out
}

// TestDecompose checks the decomposition test on sums of random pairwise
// terms (decomposable, rebuilt exactly) and on tables with a three-way
// interaction, however small, or a forbidden entry (not decomposable).
func TestDecompose(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 300; trial++ {
		k := 3 + r.IntN(3)
		cards := make([]int, k)
		for p := range cards {
			cards[p] = 1 + r.IntN(4)
		}
		tab := randomPairwiseTable(r, cards)
		d, ok := decompose(cards, &tab, DefaultTol)
		if !ok {
			t.Fatalf("trial %d: sum of pairwise terms over %v not recognized", trial, cards)
		}
		for i, w := range rebuild(cards, d) {
			if math.Abs(w-tab.Log[i]) > 1e-11 {
				t.Fatalf("trial %d: entry %d rebuilt as %v, table %v", trial, i, w, tab.Log[i])
			}
		}

		// A three-way term on three positions of cardinality >= 2.
		for p := range cards[:3] {
			cards[p] = max(cards[p], 2)
		}
		tab = randomPairwiseTable(r, cards)
		st := strides(cards)
		eps := []float64{1, 1e-6, 1e-9}[trial%3]
		for i := range tab.Log {
			if i/st[0]%cards[0] == 1 && i/st[1]%cards[1] == 1 && i/st[2]%cards[2] == 1 {
				tab.Log[i] += eps
			}
		}
		if _, ok := decompose(cards, &tab, DefaultTol); ok {
			t.Fatalf("trial %d: three-way term of size %g over %v not detected", trial, eps, cards)
		}
		tab = randomPairwiseTable(r, cards)
		tab.Forbid(r.IntN(len(tab.Log)))
		if _, ok := decompose(cards, &tab, DefaultTol); ok {
			t.Fatalf("trial %d: table with a forbidden entry decomposed", trial)
		}
	}
}

// TestProjectReorder checks the index helpers against direct computation.
func TestProjectReorder(t *testing.T) {
	card := []int{2, 3, 1, 4}
	scope := []int{3, 0, 1, 2}
	tab := model.Table{Log: make([]float64, 24)}
	for k := range tab.Log {
		tab.Log[k] = float64(k)
	}
	tab.Forbid(5)
	newScope := []int{0, 1, 2, 3}
	re := reorder(card, scope, &tab, newScope)
	for x0 := range 2 {
		for x1 := range 3 {
			for x3 := range 4 {
				old := x3*6 + x0*3 + x1
				nw := x0*12 + x1*4 + x3
				if re.IsForbidden(nw) != tab.IsForbidden(old) || re.Log[nw] != tab.Log[old] {
					t.Fatalf("reorder: (%d,%d,%d) new %d old %d", x0, x1, x3, nw, old)
				}
			}
		}
	}
}
