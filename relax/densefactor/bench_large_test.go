//go:build unix

package densefactor

import (
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/eigen"
)

// BenchmarkCertifyLarge times one certificate at N = 5,001 (complete
// graph, 500 variables, 10 labels: a face of order 4,501) after one inner
// solve, by Lanczos (cold, the path beyond denseCertify) and by every
// eigenvalue of the compressed slack (dense, the solver's path), with the
// solver's settings; dinf is the certificate's dual infeasibility on the
// face.
func BenchmarkCertifyLarge(b *testing.B) {
	prob, y, z := certifyInput(b, 500)
	ds := DefaultSettings()
	b.Run("lanczos", func(b *testing.B) {
		for range b.N {
			cf := newCertifier(prob, ds.CertifyRank)
			cf.proj = nil
			c0 := cpuTime()
			t0 := time.Now()
			c, _, err := cf.certify(y, z, ds.CertifyTol, ds.CertifyMaxIter, 1, func() bool { return false })
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(c.FaceDualInfeasibility, "dinf")
			b.ReportMetric((cpuTime() - c0).Seconds(), "cpu-s/op")
			b.ReportMetric(time.Since(t0).Seconds(), "wall-s/op")
		}
	})
	b.Run("dense", func(b *testing.B) {
		cf := newCertifier(prob, ds.CertifyRank)
		proj := eigen.NewProjector(cf.face.Dim())
		for range b.N {
			c0 := cpuTime()
			cf.prob.DualSlack(cf.s, y, z)
			clear(cf.full.RawSymmetric().Data)
			cf.s.AddTo(cf.full, 1)
			cf.face.Compress(cf.comp, cf.full)
			vals, ok := proj.Values(cf.comp)
			if !ok {
				b.Fatal("no eigenvalues")
			}
			c, err := prob.CertifyEigen(y, z, nil, append([]float64(nil), vals...))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(c.FaceDualInfeasibility, "dinf")
			b.ReportMetric((cpuTime() - c0).Seconds(), "cpu-s/op")
		}
	})
}
