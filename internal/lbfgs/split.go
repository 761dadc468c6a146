package lbfgs

import (
	"gonum.org/v1/gonum/floats"

	"github.com/sdrmap/sdrmap/internal/halves"
)

// splitFrom is the vector length from which the passes over the vectors
// (the two-loop recursion, dot products, updates) run on two fixed halves
// on two goroutines (package halves). They are memory-bound, and two cores
// of the machine of BENCHMARKS.md read memory faster than one: the
// recursion with 10 pairs took 0.81 of the time at 204,816 entries and
// 0.65 at 8 million; at 102,408 the two took as long (BenchmarkDirection).
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
