//go:build !amd64 || purego

package gemm

func kern4x12(k int, a, b, c *float64, ldc int) { panic("gemm: no kernel on this platform") }

const available = false
