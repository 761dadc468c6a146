package fsum

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestAgainstBigFloat compares with an exact sum in 1000-bit arithmetic on
// ill-conditioned inputs where naive summation loses every digit.
func TestAgainstBigFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		xs := make([]float64, 1000)
		for i := range xs {
			xs[i] = (r.Float64() - 0.5) * float64(int64(1)<<uint(r.IntN(60)))
		}
		xs = append(xs, 1e100, 1, -1e100)
		exact := new(big.Float).SetPrec(1000)
		for _, x := range xs {
			exact.Add(exact, new(big.Float).SetPrec(1000).SetFloat64(x))
		}
		want, _ := exact.Float64()
		got := Of(xs...)
		if diff := got - want; diff > 1e-12*abs(want)+1e-300 || -diff > 1e-12*abs(want)+1e-300 {
			t.Fatalf("trial %d: got %v, want %v", trial, got, want)
		}
	}
}
