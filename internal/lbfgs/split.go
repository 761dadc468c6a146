package lbfgs

import (
	"gonum.org/v1/gonum/floats"

	"github.com/sdrmap/sdrmap/internal/halves"
)

// splitFrom is the vector length from which the passes over the vectors
// (the two-loop recursion, dot products, updates) run on two fixed halves
// on two goroutines (package halves). They are memory-bound, and two cores
// read memory faster than one on long vectors; below this length the split
// does not pay (BenchmarkDirection; bench/results/2026-11-26/NOTES.md, "The
// L-BFGS on both cores").
const splitFrom = 1 << 17

// dot returns x . y, summed over the halves of each.
func dot(x, y []float64) float64 {
	if len(x) < splitFrom {
		return floats.Dot(x, y)
	}
	var part [2]float64
	halves.Run(func(h int) {
		lo, hi := halves.Range(len(x), h)
		part[h] = floats.Dot(x[lo:hi], y[lo:hi])
	})
	return part[0] + part[1]
}
