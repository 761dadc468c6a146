package sdrmap_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/model"
)

// Solve a UAI model with the low-rank SDR solver: the certified bound shows
// that the assignment found is optimal to within the gap.
func ExampleSolve() {
	m, err := uai.ReadModelFile("testdata/uai2008_pdb1akg.uai.xz")
	if err != nil {
		log.Fatal(err)
	}
	res, err := sdrmap.Solve(context.Background(), m, sdrmap.Settings{Solver: "sdpad-lr", Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("answer %v (stopped: %v), energy %.6f, gap below 1e-4: %v\n", res.Answer, res.Termination, res.Energy, res.Gap < 1e-4)
	// Output: answer optimal (stopped: converged), energy 6.048465, gap below 1e-4: true
}

// Build a model in code, two binary variables that prefer to agree, and
// solve it exactly; the energy is -sum ln phi of the assignment.
func Example_buildModel() {
	agree := model.Table{Log: []float64{math.Log(4), 0, 0, math.Log(4)}} // phi(x0, x1), x1 fastest
	bias := model.Table{Log: []float64{0, math.Log(2)}}                  // phi(x0)
	m := &model.Model{Card: []int{2, 2}, Factors: []model.Factor{
		{Scope: []int{0, 1}, Table: agree},
		{Scope: []int{0}, Table: bias},
	}}
	res, err := sdrmap.Solve(context.Background(), m, sdrmap.Settings{Solver: "exact"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%v %v, energy %.4f = -ln 8\n", res.Answer, res.Assignment, res.Energy)
	// Output: optimal [1 1], energy -2.0794 = -ln 8
}

// Read a Result: the answer says what the assignment is, the termination
// why the run stopped, the gap how far from optimal the assignment can be.
// icm stops at a local optimum and proves nothing: its answer is feasible
// and its bound -Inf.
func ExampleResult() {
	m := gen.PottsGrid(4, 4, 3, 1, 1)
	res, err := sdrmap.Solve(context.Background(), m, sdrmap.Settings{Solver: "icm"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", res.Answer)
	fmt.Println("termination:", res.Termination)
	fmt.Println("bound:", res.Bound, "gap:", res.Gap)
	fmt.Println("variables assigned:", len(res.Assignment))
	// Output:
	// answer: feasible
	// termination: converged
	// bound: -Inf gap: +Inf
	// variables assigned: 16
}

// A method's own options go in Settings.Options, of the method's type:
// here SDPAD without Anderson acceleration or restarts (the paper's
// iteration), to a tolerance of 1e-6.
func ExampleSettings_options() {
	m, err := uai.ReadModelFile("testdata/uai2008_pdb1akg.uai.xz")
	if err != nil {
		log.Fatal(err)
	}
	res, err := sdrmap.Solve(context.Background(), m, sdrmap.Settings{Solver: "sdpad", Options: methods.SDPADOptions{
		RelaxOptions: methods.RelaxOptions{Tol: 1e-6}, NoAccel: true, NoRestart: true}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("answer %v, energy %.6f\n", res.Answer, res.Energy)
	// Output: answer optimal, energy 6.048465
}

// The JSON of a Result is its Record, the one encoding that `sdrmap solve
// --json`, batch and bench write too; infinities are strings.
func ExampleResult_Record() {
	m := gen.PottsGrid(3, 3, 2, 1, 1)
	res, err := sdrmap.Solve(context.Background(), m, sdrmap.Settings{Solver: "icm"})
	if err != nil {
		log.Fatal(err)
	}
	rec := res.Record()
	rec.TimeS, rec.Assignment = 0, nil // a wall time; the assignment is long
	b, err := json.Marshal(rec)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))
	// Output: {"solver":"icm","termination":"converged","answer":"feasible","energy":-16.13806836726184,"log10":7.008674040479238,"bound":"-Inf","gap":"+Inf","time_s":0,"iterations":2,"rounds":0}
}
