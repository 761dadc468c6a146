package rounding

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/sdr"
)

func TestFix(t *testing.T) {
	marg := [][]float64{{0.995, 0.005}, {0.3, 0.7}, {0.1, 0.2, 0.7}, {0.0, 1}}
	ev := Fix(marg, TMax)
	want := model.Evidence{{Var: 0, Value: 0}, {Var: 3, Value: 1}}
	if len(ev) != len(want) || ev[0] != want[0] || ev[1] != want[1] {
		t.Fatalf("got %v, want %v", ev, want)
	}
	// Nothing above tmax: the single largest entry overall.
	ev = Fix([][]float64{{0.5, 0.5}, {0.2, 0.8}, {0.75, 0.25}}, TMax)
	if len(ev) != 1 || ev[0] != (model.Observation{Var: 1, Value: 1}) {
		t.Fatalf("got %v", ev)
	}
}

// TestSampleIntegral: on the lifting of an integral point, Y = [1; x] (rank
// one), every draw with a small scale returns that point, in the
// Pairwise's numbering even when states were removed as forbidden.
func TestSampleIntegral(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(4), MaxCard: 4, Factors: 4, MaxArity: 2, Forbidden: 0.2})
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		prob, err := sdr.Build(p)
		if err != nil {
			continue
		}
		y := mat.NewDense(prob.N(), 1, nil)
		y.Set(0, 0, 1)
		want := make([]int, prob.NumVars())
		for i, c := range prob.Card {
			a := r.IntN(c)
			y.Set(prob.Offset[i]+a, 0, 1)
			want[i] = prob.States[i][a]
		}
		for d, x := range Sample(prob, y, 3, r)[:2] {
			for i := range x {
				if x[i] != want[i] {
					t.Fatalf("trial %d draw %d: got %v, want %v", trial, d, x, want)
				}
			}
		}
	}
}

// TestSampleCtx: a done context leaves the first draw, the argmax, the same
// as Sample's.
func TestSampleCtx(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := randmodel.New(r, randmodel.Options{Vars: 6, MaxCard: 3, Factors: 6, MaxArity: 2})
	p, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := sdr.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	y := mat.NewDense(prob.N(), 2, nil)
	for i := range prob.N() {
		y.Set(i, 0, r.Float64())
		y.Set(i, 1, r.NormFloat64())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := SampleCtx(ctx, prob, y, 8, rand.New(rand.NewPCG(5, 6)))
	all := Sample(prob, y, 8, rand.New(rand.NewPCG(5, 6)))
	if len(got) != 1 || len(all) != 8 || !slices.Equal(got[0], all[0]) {
		t.Fatalf("cancelled: %d draws %v; all: %d draws %v", len(got), got, len(all), all[0])
	}
}
