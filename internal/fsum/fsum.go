// Package fsum provides compensated (Neumaier) floating-point summation, used
// wherever energies are accumulated over many terms.
package fsum

// Sum accumulates float64 terms with Neumaier's variant of Kahan summation:
// the rounding error of every addition is kept in a separate term, so the
// result is within a few ulps of the exact sum regardless of the term order.
// The zero value is an empty sum.
type Sum struct {
	s, c float64
}

// Add adds x to the sum.
func (k *Sum) Add(x float64) {
	t := k.s + x
	if abs(k.s) >= abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

// Value returns the compensated sum.
func (k *Sum) Value() float64 { return k.s + k.c }

// Of returns the compensated sum of xs.
func Of(xs ...float64) float64 {
	var k Sum
	for _, x := range xs {
		k.Add(x)
	}
	return k.Value()
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
