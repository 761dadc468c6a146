package sdrmap

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/model"
)

// TestSolveHigherOrder runs the pipeline with the exact solver on random
// higher-order models with evidence: conversion, evidence mapping and the
// map back must give the brute-force optimum of the original model.
func TestSolveHigherOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 200; trial++ {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(4), MaxCard: 3, Factors: 1 + r.IntN(5), MaxArity: 4, Forbidden: 0.1})
		ev := randmodel.Evidence(r, m, 0.2)
		clamp, _ := ev.Clamps(m)
		want, _ := randmodel.BruteForce(m, clamp)
		res, err := Solve(context.Background(), m, Settings{Solver: "exact", Evidence: ev})
		if err != nil {
			if math.IsInf(want, 1) {
				continue // infeasible: an error from conversion or evidence is right
			}
			t.Fatalf("trial %d: %v (optimum %v)", trial, err, want)
		}
		if math.IsInf(want, 1) {
			if res.Termination != Infeasible || res.Answer != InfeasibleModel {
				t.Fatalf("trial %d: infeasible model, %v, %v", trial, res.Termination, res.Answer)
			}
			continue
		}
		if res.Termination != Converged || res.Answer != Optimal || math.Abs(res.Energy-want) > 1e-9*(1+math.Abs(want)) || res.Gap > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("trial %d: %v, %v, energy %v gap %v, optimum %v", trial, res.Termination, res.Answer, res.Energy, res.Gap, want)
		}
		for v, c := range clamp {
			if c >= 0 && res.Assignment[v] != c {
				t.Fatalf("trial %d: assignment ignores evidence", trial)
			}
		}
	}
}

// TestSolveSDPAD checks the sdpad and sdpad-lr pipelines against brute force: the
// certified bound never exceeds the optimum, the energy never beats it,
// and on trees (where the SDR is tight) the optimum is found.
func TestSolveSDPAD(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for trial := 0; trial < 40; trial++ {
		tree := trial%2 == 0
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(4), MaxCard: 3, Factors: 4, MaxArity: 2, Forbidden: 0.1, Tree: tree})
		clamp := make([]int, m.NumVars())
		for i := range clamp {
			clamp[i] = -1
		}
		want, _ := randmodel.BruteForce(m, clamp)
		for _, name := range []string{"sdpad", "sdpad-lr"} {
			var calls int
			progress := func(p Progress) {
				if p.Stage != name && p.Iteration == 0 {
					return // a stage starts (certificate, rounding)
				}
				if p.Stage == name {
					calls++
				}
				if (p.Stage == name && p.Iteration != calls) || p.Bound > want+1e-9*(1+math.Abs(want)) {
					t.Fatalf("trial %d %s: progress %+v after %d calls, optimum %v", trial, name, p, calls, want)
				}
			}
			res, err := Solve(context.Background(), m, Settings{Solver: name, Seed: 1, Progress: progress})
			if err != nil {
				t.Fatal(err)
			}
			if math.IsInf(want, 1) {
				continue
			}
			tol := 1e-9 * (1 + math.Abs(want))
			if res.Bound > want+tol || res.Energy < want-tol || calls != res.Iterations {
				t.Fatalf("trial %d %s: bound %v, energy %v, optimum %v, %d progress calls for %d iterations", trial, name, res.Bound, res.Energy, want, calls, res.Iterations)
			}
			if tree && res.Energy > want+1e-6*(1+math.Abs(want)) {
				t.Fatalf("trial %d %s: tree, energy %v, optimum %v", trial, name, res.Energy, want)
			}
		}
	}
}

// TestIterativeRounding runs the paper's iterative rounding, with and
// without ICM, on random tiny models: never below the optimum, the optimum
// on trees (tight relaxations), and at least one relaxation per round.
func TestIterativeRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	for trial := 0; trial < 40; trial++ {
		tree := trial%2 == 0
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(5), MaxCard: 3, Factors: 5, MaxArity: 2, Forbidden: 0.1, Tree: tree})
		clamp := make([]int, m.NumVars())
		for i := range clamp {
			clamp[i] = -1
		}
		want, _ := randmodel.BruteForce(m, clamp)
		if math.IsInf(want, 1) {
			continue
		}
		for _, polish := range []bool{true, false} {
			for _, name := range []string{"sdpad", "sdpad-lr"} {
				res, err := Solve(context.Background(), m, Settings{Solver: name, Options: methods.SDPADOptions{RelaxOptions: methods.RelaxOptions{Rounding: methods.RoundIterative}}, NoPolish: !polish})
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-9 * (1 + math.Abs(want))
				if res.Energy < want-tol || res.Bound > want+tol || res.Rounds < 1 || len(res.Assignment) != m.NumVars() {
					t.Fatalf("trial %d %s: energy %v, bound %v, optimum %v, %d rounds", trial, name, res.Energy, res.Bound, want, res.Rounds)
				}
				if tree && res.Energy > want+1e-6*(1+math.Abs(want)) {
					t.Fatalf("trial %d %s (polish %v): tree, energy %v, optimum %v", trial, name, polish, res.Energy, want)
				}
			}
		}
	}
	if _, err := Solve(context.Background(), randmodel.New(r, randmodel.Options{Vars: 2, MaxCard: 2, Factors: 1, MaxArity: 2}), Settings{Solver: "sdpad", Options: methods.SDPADOptions{RelaxOptions: methods.RelaxOptions{Rounding: "bogus"}}}); err == nil {
		t.Fatal("unknown rounding accepted")
	}
}

// TestSolveAuto checks the auto pipeline against brute force and against
// TRW-S alone: bound below the optimum, energy not below it, never a worse
// energy or a weaker bound than TRW-S's, the optimum with a closed gap on
// trees, and the SDR run when TRW-S leaves a gap (frustrated models).
func TestSolveAuto(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 4))
	sdrRuns := 0
	for trial := 0; trial < 40; trial++ {
		var m *model.Model
		switch trial % 3 {
		case 0:
			m = randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(5), MaxCard: 3, Factors: 5, MaxArity: 2, Forbidden: 0.1, Tree: true})
		case 1:
			m = randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(5), MaxCard: 3, Factors: 8, MaxArity: 2, Forbidden: 0.1})
		default:
			m = randmodel.Frustrated(r, 4+r.IntN(3))
		}
		free := make([]int, m.NumVars())
		for i := range free {
			free[i] = -1
		}
		want, _ := randmodel.BruteForce(m, free)
		auto, err := Solve(context.Background(), m, Settings{Solver: "auto", Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		lp, err := Solve(context.Background(), m, Settings{Solver: "trws", Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-9 * (1 + math.Abs(want))
		if math.IsInf(want, 1) {
			if !math.IsInf(auto.Energy, 1) {
				t.Fatalf("trial %d: energy %v on an infeasible model", trial, auto.Energy)
			}
			continue
		}
		if auto.Bound > want+tol || auto.Energy < want-tol || auto.Energy > lp.Energy+tol || auto.Bound < lp.Bound-tol {
			t.Fatalf("trial %d: auto energy %v bound %v, trws energy %v bound %v, optimum %v", trial, auto.Energy, auto.Bound, lp.Energy, lp.Bound, want)
		}
		if trial%3 == 0 && (auto.Energy > want+tol || auto.Gap > 1e-6*(1+math.Abs(want))) {
			t.Fatalf("trial %d: tree, energy %v gap %v, optimum %v", trial, auto.Energy, auto.Gap, want)
		}
		if lp.Gap > 1e-6*(1+math.Abs(want)) {
			if auto.SDR == nil {
				t.Fatalf("trial %d: TRW-S left a gap %v and the SDR did not run", trial, lp.Gap)
			}
			sdrRuns++
		}
	}
	if sdrRuns < 5 {
		t.Fatalf("the SDR ran on %d models only", sdrRuns)
	}
}
