package densefactor

import (
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/sdrmap/sdrmap/internal/fastblas"
)

// init installs the BLAS the sdrmap command installs (internal/fastblas:
// parblas, or OpenBLAS under the openblas tag), so that the tests and
// benchmarks run the command's kernels.
func init() { blas64.Use(fastblas.New(0)) }
