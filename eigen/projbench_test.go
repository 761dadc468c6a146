package eigen

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func BenchmarkProject401(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 401
	vals := make([]float64, n)
	for j := range vals {
		vals[j] = -r.Float64()
		if j < 5 {
			vals[j] = 1 + r.Float64()
		}
	}
	v := withSpectrum(vals, r)
	dst := mat.NewSymDense(n, nil)
	for _, full := range []bool{false, true} {
		e := NewProjector(n)
		e.full = full
		name := "selective"
		if full {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				e.Project(dst, v)
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
