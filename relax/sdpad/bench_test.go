package sdpad

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/sdr"
)

// BenchmarkGrid10 solves the SDR of a 10 x 10 Potts grid with 4 labels (N =
// 401, random unaries) to the protocol tolerance 1e-4 (gap and
// infeasibilities, docs/relaxation.md, Protocol) with the default settings. With SDPAD_BENCH_CSDP=1
// it also times csdp on the SDPA export of the same problem (minutes).
func BenchmarkGrid10(b *testing.B) {
	p, err := sdr.Build(gridPW(rand.New(rand.NewPCG(1, 2)), 10, 4))
	if err != nil {
		b.Fatal(err)
	}
	var r *Result
	for b.Loop() {
		if r, err = Solve(context.Background(), p, DefaultSettings()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.Iterations), "iterations")
	b.ReportMetric(r.Gap, "gap")
	b.ReportMetric(r.PrimalObjective, "objective")
	b.Logf("status %v, %d iterations, %v, objective %.8g, bound %.8g, gap %.2e, pinf %.2e, face dinf %.2e",
		r.Status, r.Iterations, r.Time, r.PrimalObjective, r.SDRBound, r.Gap, r.PrimalInfeasibility, r.FaceDualInfeasibility)
	if os.Getenv("SDPAD_BENCH_CSDP") == "" {
		return
	}
	bin, err := exec.LookPath("csdp")
	if err != nil {
		b.Skip("csdp not on PATH")
	}
	file := filepath.Join(b.TempDir(), "grid10.dat-s")
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := sdr.WriteSDPA(f, p); err != nil {
		b.Fatal(err)
	}
	f.Close()
	start := time.Now()
	out, _ := exec.Command(bin, file).CombinedOutput()
	b.ReportMetric(time.Since(start).Seconds(), "csdp-s")
	b.Logf("csdp:\n%s", out[max(0, len(out)-400):])
}
