package sdrmap

import (
	"bytes"
	"context"
	"errors"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/methods"
)

// TestProbeBoundKept: every seed's run has probes (their lines in the log:
// a certificate, or none when the relaxation's objective is too far below
// the assignment's energy for it to prove anything, as in seed 3 here); the
// bound of every probe's certificate holds for every assignment, so the
// result's bound is at least the best of them, also when no probe proves
// its assignment optimal (seed 1 here), and the result is at least as good
// as every certified probe's assignment. On these small models the final
// rounding and its certificate beat the probes' anyway; at n = 1000
// (BENCHMARKS.md) a probe's were the best.
func TestProbeBoundKept(t *testing.T) {
	probeLine := regexp.MustCompile(`energy (\S+) \(probe at iteration \d+\): bound (\S+) \(iterates: (\S+)\)`)
	skipLine := regexp.MustCompile(`no certificate at an assignment of energy \S+ \(probe at iteration \d+\)`)
	certified := 0
	for seed := uint64(1); seed <= 3; seed++ {
		m, _ := gen.Orient(30, 8, 6, 0.3, seed)
		var log bytes.Buffer
		res, err := Solve(context.Background(), m, Settings{Solver: "sdpad", Options: methods.SDPADOptions{RelaxOptions: methods.RelaxOptions{Tol: 1e-9, MaxIter: 300}}, Log: &log, NoPolish: true})
		if err != nil {
			t.Fatal(err)
		}
		best, bestE, beat := math.Inf(-1), math.Inf(1), false
		probes := probeLine.FindAllStringSubmatch(log.String(), -1)
		if len(probes) == 0 && !skipLine.MatchString(log.String()) {
			t.Fatalf("seed %d: no probe in the log:\n%s", seed, log.String())
		}
		certified += len(probes)
		for _, g := range probes {
			e, err1 := strconv.ParseFloat(g[1], 64)
			b, err2 := strconv.ParseFloat(g[2], 64)
			it, err3 := strconv.ParseFloat(g[3], 64)
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatalf("seed %d: probe line %q: %v", seed, g[0], err)
			}
			best, bestE, beat = max(best, b), min(bestE, e), beat || b > it
		}
		t.Logf("seed %d: energy %v, bound %v, best probe %v, %v, a probe's bound beat the iterates: %v", seed, res.Energy, res.Bound, bestE, best, beat)
		if res.Bound < best-1e-9*(1+math.Abs(best)) || res.Energy > bestE+1e-9*(1+math.Abs(bestE)) {
			t.Fatalf("seed %d: energy %v, bound %v; a probe had %v, %v", seed, res.Energy, res.Bound, bestE, best)
		}
	}
	if certified == 0 {
		t.Fatal("no probe was certified")
	}
}
