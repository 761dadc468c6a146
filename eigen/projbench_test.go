package eigen

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchProject times Project on an n x n matrix with pos positive
// eigenvalues in [1, 1 + spread] and the others in [-1, 0], by Project's
// default path ("selective": inverse iteration, or LAPACK's dsytrd and
// dstedc in a build with the tag openblas) and by gonum's full
// decomposition.
func benchProject(b *testing.B, n, pos int, spread float64) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, n)
	for j := range vals {
		vals[j] = -r.Float64()
		if j < pos {
			vals[j] = 1 + spread*r.Float64()
		}
	}
	v := withSpectrum(vals, r)
	dst := mat.NewSymDense(n, nil)
	benchPaths(b, v, func(e *Projector) { e.Project(dst, v) })
}

// benchPaths times f by the Projector's default path ("selective") and by
// gonum's full decomposition ("full"), and Values on v beside them.
func benchPaths(b *testing.B, v *mat.SymDense, f func(e *Projector)) {
	n := v.SymmetricDim()
	for _, full := range []bool{false, true} {
		e := NewProjector(n)
		e.full = full
		name := "selective"
		if full {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				f(e)
			}
		})
	}
	b.Run("values", func(b *testing.B) {
		e := NewProjector(n)
		for b.Loop() {
			e.Values(v)
		}
	})
}

// BenchmarkProject401: the 10 x 10 x 4 grid's order, a rank-5 projection.
func BenchmarkProject401(b *testing.B) { benchProject(b, 401, 5, 1) }

// BenchmarkProject601: deer_0034's order, 220 positive eigenvalues, about
// the rank of SDPAD's iterates there; clustered: within 5% of each other,
// closer than dstein's cluster gap, as inverse iteration then
// orthogonalizes.
func BenchmarkProject601(b *testing.B) {
	b.Run("spread", func(b *testing.B) { benchProject(b, 601, 220, 1) })
	b.Run("clustered", func(b *testing.B) { benchProject(b, 601, 220, 0.05) })
}

// BenchmarkSmallest541: Smallest's 16 pairs at deer_0034's face order
// (541, the order of certify.Refine's dense eigensolves), by the default
// path (inverse iteration, or LAPACK with the tag openblas) and by
// gonum's full decomposition, beside Values.
func BenchmarkSmallest541(b *testing.B) {
	const n, k = 541, 16
	r := rand.New(rand.NewPCG(3, 4))
	vals := make([]float64, n)
	for j := range vals {
		vals[j] = r.Float64()
		if j < 40 {
			vals[j] = -1e-3 * r.Float64()
		}
	}
	v := withSpectrum(vals, r)
	vecs := mat.NewDense(n, k, nil)
	benchPaths(b, v, func(e *Projector) { e.Smallest(v, k, vecs) })
}
