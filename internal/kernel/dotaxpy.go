package kernel

// DotAxpy returns a . x and sets y += alpha a, reading a once (the row
// step of a symmetric matrix-vector product from one triangle); x and y
// are at least as long as a. It panics when Available is false.
func DotAxpy(alpha float64, a, x, y []float64) float64 {
	if !available {
		panic("kernel: DotAxpy without a kernel")
	}
	if len(a) == 0 {
		return 0
	}
	if len(x) < len(a) || len(y) < len(a) {
		panic("kernel: DotAxpy: short slice")
	}
	return dotAxpy(alpha, &a[0], &x[0], &y[0], len(a))
}
