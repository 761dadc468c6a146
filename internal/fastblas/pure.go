//go:build !(openblas && cgo)

package fastblas

import (
	"gonum.org/v1/gonum/blas"

	"github.com/sdrmap/sdrmap/internal/parblas"
)

func newImpl(p parblas.Implementation) blas.Float64 { return p }
