package sdrmap

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/methods"
)

// TestResultJSON: a Result with infinite bound and gap (icm has no bound)
// and an SDR figure that is NaN marshals, with the strings of package
// jsonfloat, the statuses and the field names of the tags.
func TestResultJSON(t *testing.T) {
	m := gen.PottsGrid(3, 3, 3, 1, 1)
	res, err := Solve(context.Background(), m, Settings{Solver: "icm"})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(res.Bound, -1) {
		t.Fatalf("icm bound %v, want -Inf", res.Bound)
	}
	res.SDR = &SDRInfo{DualInfeasibility: math.NaN(), Dimension: 28}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	sdr, _ := got["sdr"].(map[string]any)
	if got["bound"] != "-Inf" || got["gap"] != "+Inf" || got["energy"] != res.Energy || got["status"] != nil ||
		got["termination"] != "converged" || got["answer"] != "feasible" || len(got["assignment"].([]any)) != 9 ||
		sdr == nil || sdr["dual_infeasibility"] != "NaN" || sdr["dimension"] != 28.0 {
		t.Fatalf("JSON %s", b)
	}
}

// TestAnswer: icm stops converged at a feasible (not optimal) answer; a
// relaxation cut short by its iteration limit (no probes) whose certificate closes the
// gap is optimal (50 iterations: the certificate at that iterate closes it, the
// loose protocol does not hold yet); an infeasible model is infeasible with termination
// infeasible.
func TestAnswer(t *testing.T) {
	m, _ := gen.Orient(12, 4, 4, 0, 1)
	ctx := context.Background()
	res, err := Solve(ctx, m, Settings{Solver: "icm"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Termination != Converged || res.Answer != Feasible {
		t.Fatalf("icm: %v, %v", res.Termination, res.Answer)
	}
	res, err = Solve(ctx, m, Settings{Solver: "sdpad", Options: methods.SDPADOptions{RelaxOptions: methods.RelaxOptions{MaxIter: 50, Tol: 1e-12, NoProbe: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Termination == Converged || res.Answer != Optimal || res.Gap > 1e-6 {
		t.Fatalf("sdpad, 50 iterations: %v, %v, gap %v", res.Termination, res.Answer, res.Gap)
	}
	res = &Result{Termination: Infeasible, Energy: math.Inf(1), Bound: math.Inf(1)}
	report(res, nil)
	if res.Termination != Infeasible || res.Answer != InfeasibleModel {
		t.Fatalf("infeasible: %v, %v", res.Termination, res.Answer)
	}
}
