package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotAxpy compares DotAxpy with plain loops on lengths around the
// eight-entry step, on x and y longer than a (entries past len(a) kept).
func TestDotAxpy(t *testing.T) {
	if !Available() {
		t.Skip("no AVX2/FMA kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 40 {
		a, x, y := random(rng, n), random(rng, n+3), random(rng, n+3)
		alpha := rng.NormFloat64()
		want, wy := 0.0, append([]float64(nil), y...)
		for i, v := range a {
			want += v * x[i]
			wy[i] += alpha * v
		}
		got := DotAxpy(alpha, a, x, y)
		if math.Abs(got-want) > 1e-13*(1+float64(n)) {
			t.Fatalf("n %d: dot %v, want %v", n, got, want)
		}
		for i := range y {
			if math.Abs(y[i]-wy[i]) > 1e-14*(1+math.Abs(wy[i])) {
				t.Fatalf("n %d: y[%d] = %v, want %v", n, i, y[i], wy[i])
			}
		}
	}
}
