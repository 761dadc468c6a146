// Command libsdrmap is sdrmap as a C shared library, for the Python package
// in python/ (loaded with ctypes) and any other C caller:
//
//	go build -buildmode=c-shared -o libsdrmap.so ./cmd/libsdrmap
//
// writes libsdrmap.so and its header libsdrmap.h. The API (capi.go) deals in
// handles (int64 ids of models and solve jobs held on the Go side), C arrays
// that are copied before a call returns, and errors as a kind (errKind) and a
// message the caller frees with sdrmap_free. Models come from a file (any
// format the sdrmap command reads, chosen by solvecmd.Load from the path) or
// from flat arrays; solves run on a goroutine that the caller polls, waits
// for and cancels, so a caller can stop one with the best assignment so far.
//
// Every function may be called from any thread, several solves of one
// model at once included (TestConcurrentSolves). The library installs no
// signal handler: the host process keeps its own (Ctrl-C in Python reaches
// Python, which cancels the job). A panic in a call is recovered and
// returned as an error of kind kindRuntime.
package main

import (
	"runtime/debug"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/sdrmap/sdrmap/internal/fastblas"
)

func init() {
	// The BLAS the sdrmap command installs at start, so that solves in
	// process run the same kernels.
	blas64.Use(fastblas.New(0))
}

// main is required by -buildmode=c-shared and never runs.
func main() {}

// version returns the module version and VCS revision of the build.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value[:min(12, len(s.Value))]
		}
	}
	return v
}
