// Package fastblas picks the process's BLAS (installed with blas64.Use by
// the commands): in the pure-Go build internal/parblas; in a build with
// -tags openblas (Debian's libopenblas-dev), OpenBLAS's Dgemm, Dsyrk,
// Dsyr2k, Dsymm, Dsymv and Dgemv through cblas, split over goroutines into
// bands that each call single-threaded OpenBLAS, with parblas for the
// rest. The library never installs a BLAS itself (a process-wide choice
// belongs to the program).
package fastblas

import (
	"gonum.org/v1/gonum/blas"

	"github.com/sdrmap/sdrmap/internal/parblas"
)

// New returns the BLAS of this build for calls split over parts
// goroutines: 0 for GOMAXPROCS (up to parblas's bound), 1 to keep every
// call on the calling goroutine (a process that already runs one solve per
// core).
func New(parts int) blas.Float64 { return newImpl(parblas.Implementation{Parts: parts}) }
