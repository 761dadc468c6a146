//go:build openblas && cgo

package vec

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

func init() { dot, addScaled = openblasDot, openblasAxpy }

func openblasDot(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("vec: length mismatch")
	}
	if len(x) == 0 {
		return 0
	}
	return float64(C.cblas_ddot(C.int(len(x)), (*C.double)(&x[0]), 1, (*C.double)(&y[0]), 1))
}

func openblasAxpy(dst []float64, alpha float64, s []float64) {
	if len(dst) != len(s) {
		panic("vec: length mismatch")
	}
	if len(s) == 0 {
		return
	}
	C.cblas_daxpy(C.int(len(s)), C.double(alpha), (*C.double)(&s[0]), 1, (*C.double)(&dst[0]), 1)
}
