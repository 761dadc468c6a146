//go:build !amd64 || purego

package kernel

func kern4x12(k int, a, b, c *float64, ldc int) { panic("kernel: no kernel on this platform") }

func dotAxpy(alpha float64, a, x, y *float64, n int) float64 {
	panic("kernel: no kernel on this platform")
}

const available = false
