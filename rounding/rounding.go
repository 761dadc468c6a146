// Package rounding turns a solution of the relaxation into assignments: the
// paper's iterative rounding rule (docs/relaxation.md, Iterative rounding) that decides which variables to
// fix after a round, and randomized rounding from the low-rank factor.
package rounding

import (
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/sdr"
)

// TMax is the paper's threshold t_max: a variable whose largest marginal
// exceeds it is fixed after a round.
const TMax = 0.99

// Fix returns the variables the paper fixes after a round (docs/relaxation.md, Iterative rounding): every
// variable i with some x_ia > tmax, at that state, and the variable holding
// the largest x_ia overall. marg[i][a] = x_ia (Problem.Marginals); the
// observations are in the numbering of marg. Forbidden states (marginal 0)
// are never chosen while an allowed one remains, since the largest entry of
// a variable whose marginals sum to 1 is positive.
func Fix(marg [][]float64, tmax float64) model.Evidence {
	var ev model.Evidence
	bi, ba, bv := -1, -1, 0.0
	for i, xs := range marg {
		a := Argmax(xs)
		if a < 0 {
			continue
		}
		if xs[a] > tmax {
			ev = append(ev, model.Observation{Var: i, Value: a})
		} else if bi < 0 || xs[a] > bv {
			bi, ba, bv = i, a, xs[a]
		}
	}
	if len(ev) == 0 && bi >= 0 {
		ev = append(ev, model.Observation{Var: bi, Value: ba})
	}
	return ev
}

// Argmax returns the index of the largest entry of xs (the first of ties),
// -1 for an empty xs.
func Argmax(xs []float64) int {
	best := -1
	for a, v := range xs {
		if best < 0 || v > xs[best] {
			best = a
		}
	}
	return best
}

// Sample draws k assignments from the factor Y (N x r, Xbar = Y Y^T) of a
// solution of prob: for draw d, g ~ N(0, t_d^2 I_r) and variable i takes the
// allowed state a maximizing x_ia + <Y_ia, g>, with x_ia = Xbar[0,ia]. Draw
// 0 has g = 0 (plain argmax of the marginals); the scales t_d cycle through
// 0.1, 0.3 and 1. Assignments are in the Pairwise's numbering.
func Sample(prob *sdr.Problem, y *mat.Dense, k int, rng *rand.Rand) [][]int {
	return SampleCtx(context.Background(), prob, y, k, rng)
}

// SampleCtx is Sample that stops drawing when ctx ends, after the first
// draw (the argmax): at large N each draw takes a noticeable time.
func SampleCtx(ctx context.Context, prob *sdr.Problem, y *mat.Dense, k int, rng *rand.Rand) [][]int {
	_, r := y.Dims()
	row0 := make([]float64, prob.N())
	for j := range row0 {
		row0[j] = mat.Dot(y.RowView(0), y.RowView(j))
	}
	scales := []float64{0.1, 0.3, 1}
	g := make([]float64, r)
	out := make([][]int, 0, k)
	for d := 0; d < k && (d == 0 || ctx.Err() == nil); d++ {
		t := 0.0
		if d > 0 {
			t = scales[(d-1)%len(scales)]
		}
		for c := range g {
			g[c] = t * rng.NormFloat64()
		}
		x := make([]int, prob.NumVars())
		for i, m := range prob.Card {
			best, bv := 0, 0.0
			for a := 0; a < m; a++ {
				row := prob.Offset[i] + a
				v := row0[row]
				for c, gc := range g {
					v += y.At(row, c) * gc
				}
				if a == 0 || v > bv {
					best, bv = a, v
				}
			}
			x[i] = prob.States[i][best]
		}
		out = append(out, x)
	}
	return out
}
