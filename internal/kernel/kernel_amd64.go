//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// kern4x12 adds the product of a packed k x 4 panel of A (a[4p+i]) and
// a packed k x 12 panel of B (b[12p+j]) to the 4 x 12 block of C at c
// (row stride ldc), on AVX2 and FMA (kernel_amd64.s).
//
//go:noescape
func kern4x12(k int, a, b, c *float64, ldc int)

// dotAxpy returns a . x and adds alpha a to y, all of length n
// (dotaxpy_amd64.s).
//
//go:noescape
func dotAxpy(alpha float64, a, x, y *float64, n int) float64

var available = cpu.X86.HasAVX2 && cpu.X86.HasFMA
