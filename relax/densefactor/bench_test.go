//go:build unix

package densefactor

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/sdr"
)

// BenchmarkEval times one evaluation of the Lagrangian and its gradient
// (V V^T, the entrywise pass, M V) at the default rank on complete graphs
// with 10 labels, N = 601 to 5,001 (go test -bench Eval -benchtime 3x),
// in wall time and in the process's CPU time (cpu-s/op: on a loaded
// machine the figure that does not depend on the other processes).
func BenchmarkEval(b *testing.B) {
	for _, n := range []int{60, 100, 200, 500} {
		b.Run(fmt.Sprintf("N=%d", 10*n+1), func(b *testing.B) {
			prob, a, v := denseStart(b, n)
			rank := v.RawMatrix().Cols
			g := mat.NewDense(prob.N(), rank, nil)
			c0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				a.eval(v, g)
			}
			b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(rank), "rank")
		})
	}
}

// BenchmarkCertify times one certificate of the dense factor ALM's dual
// point after one inner solve, N = 601 to 2,001 (dense eigenvalues).
func BenchmarkCertify(b *testing.B) {
	for _, n := range []int{60, 100, 200} {
		b.Run(fmt.Sprintf("N=%d", 10*n+1), func(b *testing.B) {
			prob, y, z := certifyInput(b, n)
			cf := newCertifier(prob, 16)
			c0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				if _, _, err := cf.certify(y, z, 1e-6, 100, 1, func() bool { return false }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// denseStart returns the SDR of a complete graph of vars variables and 10
// labels, the dense factor ALM on it and its initial factor.
func denseStart(b *testing.B, vars int) (*sdr.Problem, *alm, *mat.Dense) {
	pw, err := gen.Dense(vars, 10, 1, 0, 1).Pairwise(nil)
	if err != nil {
		b.Fatal(err)
	}
	prob, err := sdr.Build(pw)
	if err != nil {
		b.Fatal(err)
	}
	a := newALM(prob, 10)
	s := Settings{Rank: InitialRank(prob.N()), Seed: 1}
	return prob, a, start(prob, a, &s)
}

// certifyInput returns denseStart's problem and the dual point of the
// ALM after one evaluation and multiplier update.
func certifyInput(b *testing.B, vars int) (*sdr.Problem, []float64, []float64) {
	prob, a, v := denseStart(b, vars)
	a.eval(v, mat.NewDense(prob.N(), v.RawMatrix().Cols, nil))
	a.update()
	y, z := a.dual(v)
	return prob, y, z
}

// cpuTime is the CPU time (user and system) of the process so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
