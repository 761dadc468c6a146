// Command sdrmap finds MAP assignments of discrete Markov random fields
// through the semidefinite relaxation of Huang, Chen and Guibas (ICML 2014).
//
//	sdrmap info FILE            sizes of a model
//	sdrmap eval FILE SOLUTION   energy of an assignment
//	sdrmap solve FILE           MAP assignment
//	sdrmap batch INPUT... --out DIR   many models on Apache Beam (sdrmap-batch)
//
// Run `sdrmap help CMD` for the flags of each command.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/sdrmap/sdrmap/internal/fastblas"
)

func main() {
	blas64.Use(fastblas.New(0))
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status (see
// exitcode.go).
func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:   "sdrmap",
		Short: "MAP inference in discrete Markov random fields by semidefinite relaxation",
		Long: `sdrmap finds the most probable assignment (MAP/MPE) of a discrete Markov random
field given in the UAI format (plain, .gz, .xz or single-file .zip) or, in a
build with -tags hdf5, as an OpenGM HDF5 model (file.h5 or file.h5:group), or
in toulbar2's .wcsp or .cfn formats (plain, .gz or .xz). A
build with -tags openblas (Debian's libopenblas-dev) computes the dense SDPAD's
projections with LAPACK (dsytrd, dstedc) and the dense solvers' matrix products
with OpenBLAS (dgemm, dsyrk), faster than the pure-Go build.

Energies are lower-is-better. For UAI files E(x) = -sum over factors of
ln phi_f(x_f), +Inf when x uses a zero-probability entry, and log10 is the UAI
competition score sum log10 phi_f(x_f) = -E / ln 10. For OpenGM files E(x) is
OpenGM's energy, the sum of the function values (+Inf entries forbidden). For
toulbar2's files E(x) is toulbar2's cost, the sum of the cost functions
(constant included), negated for a .cfn file that maximizes; costs at or
beyond the file's bound are forbidden entries.

` + exitHelp,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(infoCmd(), evalCmd(), solveCmd(), convertCmd(), exportCmd(), genCmd(), benchCmd(), batchCmd())
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	if err := root.Execute(); err != nil {
		var x exitStatus
		if errors.As(err, &x) {
			if x.msg != "" {
				fmt.Fprintln(stderr, "sdrmap:", x.msg)
			}
			return x.code
		}
		fmt.Fprintln(stderr, "sdrmap:", err)
		var u usageError
		if errors.As(err, &u) || strings.Contains(err.Error(), "unknown command") || strings.Contains(err.Error(), "arg(s)") {
			return exitUsage
		}
		return exitError
	}
	return exitOK
}

// usageError marks a bad command line (exit status 2).
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }
