package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernels checks Dot and AddScaled (gonum's, or OpenBLAS's with the tag
// openblas) against plain loops, and that they refuse unequal lengths.
func TestKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 2048, 5003} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = r.NormFloat64(), r.NormFloat64()
		}
		want, scale := 0.0, 0.0
		for i := range x {
			want += x[i] * y[i]
			scale += math.Abs(x[i] * y[i])
		}
		if got := Dot(x, y); math.Abs(got-want) > 1e-13*(1+scale) {
			t.Fatalf("n = %d: Dot %v, want %v", n, got, want)
		}
		dst := append([]float64(nil), y...)
		AddScaled(dst, -0.75, x)
		for i := range dst {
			if w := y[i] - 0.75*x[i]; math.Abs(dst[i]-w) > 1e-15*(1+math.Abs(w)) {
				t.Fatalf("n = %d: AddScaled entry %d %v, want %v", n, i, dst[i], w)
			}
		}
	}
	for _, f := range []func(){
		func() { Dot(make([]float64, 3), make([]float64, 2)) },
		func() { AddScaled(make([]float64, 3), 1, make([]float64, 2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("unequal lengths accepted")
				}
			}()
			f()
		}()
	}
}
