package sdr

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
)

// TestTransfer conditions random models on random evidence and checks that
// A*(y) - P*(z) of the transferred multipliers is the principal submatrix
// of the parent's on the kept rows (every constraint among free variables
// is shared), and that the factor's rows follow their states.
func TestTransfer(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	checked := 0
	for trial := 0; checked < 200 && trial < 5000; trial++ {
		m := randmodel.New(r, randmodel.Options{
			Vars: 2 + r.IntN(5), MaxCard: 4, Factors: r.IntN(10), MaxArity: 2,
			Forbidden: []float64{0, 0.2}[trial%2], Constant: true,
		})
		pw, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		parent, err := Build(pw)
		if errors.Is(err, ErrInfeasible) {
			continue
		}
		var ev model.Evidence
		if trial%5 != 0 { // every fifth trial fixes nothing: Transfer must be the identity
			for v := range m.Card {
				if r.IntN(3) == 0 {
					ev = append(ev, model.Observation{Var: v, Value: r.IntN(m.Card[v])})
				}
			}
		}
		cw, err := m.Pairwise(ev)
		if err != nil {
			continue
		}
		child, err := Build(cw)
		if errors.Is(err, ErrInfeasible) {
			continue
		}
		y, z := randVec(r, parent.Y.Len), randVec(r, parent.NumZ)
		f := randDense(r, parent.N(), 3)
		cy, cz, cf := child.Transfer(parent, y, z, f)
		if len(cy) != child.Y.Len || len(cz) != child.NumZ {
			t.Fatalf("trial %d: lengths %d, %d, want %d, %d", trial, len(cy), len(cz), child.Y.Len, child.NumZ)
		}
		// row[k]: parent row of child row k, -1 for a state the parent removed.
		row := make([]int, child.N())
		for i, st := range child.States {
			v := cw.Orig[i]
			for a, s := range st {
				row[child.Offset[i]+a] = -1
				for pa, ps := range parent.States[v] {
					if ps == s {
						row[child.Offset[i]+a] = parent.Offset[v] + pa
					}
				}
			}
		}
		pd := symOf(parent, func(s *Sym) { parent.AStar(s, 1, y); parent.PStar(s, -1, z) }).ToDense()
		cd := symOf(child, func(s *Sym) { child.AStar(s, 1, cy); child.PStar(s, -1, cz) }).ToDense()
		for k := range row {
			if row[k] < 0 {
				continue
			}
			for c := range 3 {
				if cf.At(k, c) != f.At(row[k], c) {
					t.Fatalf("trial %d: factor row %d col %d = %g, want parent row %d: %g", trial, k, c, cf.At(k, c), row[k], f.At(row[k], c))
				}
			}
			for l := range row {
				if row[l] >= 0 && !near(cd.At(k, l), pd.At(row[k], row[l]), 1e-12) {
					t.Fatalf("trial %d (evidence %v): A*(y)-P*(z) at (%d,%d) = %g, parent (%d,%d) = %g", trial, ev, k, l, cd.At(k, l), row[k], row[l], pd.At(row[k], row[l]))
				}
			}
		}
		if len(ev) == 0 {
			if !mat.Equal(cf, f) || !slices.Equal(cy, y) || !slices.Equal(cz, z) {
				t.Fatalf("trial %d: Transfer without evidence is not the identity", trial)
			}
		}
		checked++
	}
	if checked < 200 {
		t.Fatalf("only %d cases checked", checked)
	}
}
