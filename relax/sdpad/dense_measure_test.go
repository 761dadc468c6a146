package sdpad

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/sdrmap/sdrmap/internal/parblas"
)

// TestMeasureDense counts the iterations of Solve to the protocol on the
// models named in SDPAD_DENSE (comma-separated UAI files) under
// DefaultSettings with the fields in SDPAD_DENSE_SET ("Name=value;...")
// changed, at tolerance SDPAD_MEASURE_TOL (default 1e-3), for the dense
// models of issue 44 (build with -tags openblas for speed; the counts do
// not depend on the build; SDPAD_DENSE_VERBOSE=1 prints the iteration
// table):
// SDPAD_DENSE=m1.uai,m2.uai SDPAD_DENSE_SET="BalanceFirst=0" go test -tags openblas -run MeasureDense -v -timeout 2h ./relax/sdpad.
func TestMeasureDense(t *testing.T) {
	files := os.Getenv("SDPAD_DENSE")
	if files == "" {
		t.Skip("set SDPAD_DENSE to a list of UAI files to measure")
	}
	tol := 1e-3
	if v := os.Getenv("SDPAD_MEASURE_TOL"); v != "" {
		if _, err := fmt.Sscan(v, &tol); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range strings.Split(files, ",") {
		p := fileProblem(t, file)
		s := DefaultSettings()
		s.Tol, s.TolLoose = tol, max(s.TolLoose, tol)
		set := os.Getenv("SDPAD_DENSE_SET")
		if err := setFields(&s, set); err != nil {
			t.Fatal(err)
		}
		if os.Getenv("SDPAD_DENSE_VERBOSE") != "" {
			s.Verbose, s.VerboseEvery = os.Stdout, 20
		}
		r, err := Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s [%s]: %v after %d iterations (%d restarts), %.1f s, gap %.2e, pinf %.2e, dinf %.2e, mu %.3g, energy bound %.4f",
			filepath.Base(file), set, r.Status, r.Iterations, r.Restarts, r.Time.Seconds(), r.Gap, r.PrimalInfeasibility, r.FaceDualInfeasibility, r.Mu, r.EnergyBound)
	}
}

// setFields sets the Settings fields named in list, "Name=value;..."
// (int, float64 and bool fields).
func setFields(s *Settings, list string) error {
	v := reflect.ValueOf(s).Elem()
	for _, kv := range strings.Split(list, ";") {
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		f := v.FieldByName(name)
		if !ok || !f.IsValid() || !f.CanSet() {
			return fmt.Errorf("SDPAD_DENSE_SET: bad entry %q", kv)
		}
		if _, err := fmt.Sscan(val, f.Addr().Interface()); err != nil {
			return fmt.Errorf("SDPAD_DENSE_SET: %q: %v", kv, err)
		}
	}
	return nil
}

// BenchmarkDenseIterations runs 20 iterations of Solve on the UAI model in
// SDPAD_BENCH_MODEL (skipped without it; SDPAD_DENSE_SET as in
// TestMeasureDense, e.g. "MaxIter=100") with internal/parblas as gonum's
// BLAS, as the sdrmap command installs it, and reports the time per
// iteration (the closing certificate included); for profiles of the pure-Go iteration at N = 601 and 1001:
// SDPAD_BENCH_MODEL=deer34.uai go test -run - -bench DenseIterations -count 5 -cpuprofile cpu.out ./relax/sdpad.
func BenchmarkDenseIterations(b *testing.B) {
	file := os.Getenv("SDPAD_BENCH_MODEL")
	if file == "" {
		b.Skip("set SDPAD_BENCH_MODEL to a UAI file")
	}
	p := fileProblem(b, file)
	prev := blas64.Implementation()
	blas64.Use(parblas.Implementation{})
	defer blas64.Use(prev)
	s := DefaultSettings()
	s.MaxIter, s.Tol, s.TolLoose = 20, 1e-12, 1e-12
	if err := setFields(&s, os.Getenv("SDPAD_DENSE_SET")); err != nil {
		b.Fatal(err)
	}
	its := 0
	for b.Loop() {
		r, err := Solve(context.Background(), p, s)
		if err != nil {
			b.Fatal(err)
		}
		its += r.Iterations
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(its), "ms/iteration")
}
