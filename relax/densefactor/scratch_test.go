package densefactor

import (
	"math"
	"sort"
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
)

func envf(k string, d float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(k), 64); err == nil {
		return v
	}
	return d
}

func TestScratch(t *testing.T) {
	f := os.Getenv("DF_FILE")
	if f == "" {
		t.Skip()
	}
	m, err := uai.ReadModelFile(f)
	if err != nil {
		t.Fatal(err)
	}
	p := build(t, m)
	s := DefaultSettings()
	s.Tol, s.TolLoose = envf("DF_TOL", 1e-3), envf("DF_TOL", 1e-3)
	s.Sigma0 = envf("DF_SIGMA", s.Sigma0)
	s.InnerIter = int(envf("DF_INNER", float64(s.InnerIter)))
	s.Rank = int(envf("DF_RANK", 0))
	s.MaxIter = int(envf("DF_MAXITER", 1000))
	s.TimeLimit = 1e9 * time.Duration(envf("DF_TIME", 120))
	s.Verbose = os.Stdout
	if _, err := Solve(context.Background(), p, s); err != nil {
		t.Fatal(err)
	}
}

func TestScratchStats(t *testing.T) {
	f := os.Getenv("DF_FILE")
	if f == "" {
		t.Skip()
	}
	m, err := uai.ReadModelFile(f)
	if err != nil {
		t.Fatal(err)
	}
	p := build(t, m)
	a := newALM(p, 1)
	var diag, off []float64
	for k := range a.n {
		diag = append(diag, math.Abs(a.c[k*a.n+k]))
		for l := k + 1; l < a.n; l++ {
			if a.kind[k*a.n+l] != free {
				off = append(off, math.Abs(a.c[k*a.n+l]))
			}
		}
	}
	sort.Float64s(diag)
	sort.Float64s(off)
	q := func(x []float64) []float64 {
		return []float64{x[0], x[len(x)/10], x[len(x)/2], x[9*len(x)/10], x[len(x)-1]}
	}
	t.Logf("scale %g cnorm %g; diag quantiles %v; off %v", a.scale, a.cnorm, q(diag), q(off))
}
