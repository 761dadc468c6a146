// Package vec holds the vector kernels of the dense SDPAD's Anderson step,
// Dot and AddScaled as in gonum's floats, which a build with the tag
// openblas hands to OpenBLAS's ddot and daxpy (vectorized for the CPU at
// hand, faster than gonum's kernels there; bench/results/2026-11-26/NOTES.md).
package vec

import "gonum.org/v1/gonum/floats"

var (
	dot       = floats.Dot
	addScaled = floats.AddScaled
)

// Dot returns x . y; x and y have the same length.
func Dot(x, y []float64) float64 { return dot(x, y) }

// AddScaled sets dst += alpha s; dst and s have the same length.
func AddScaled(dst []float64, alpha float64, s []float64) { addScaled(dst, alpha, s) }
