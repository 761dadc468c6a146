package sdrmap

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/model"
)

func parse(t *testing.T, text string) *model.Model {
	t.Helper()
	m, err := uai.ParseModel("t.uai", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// matching5 is 5 variables with 4 states each, pairwise all different (a
// forbidden diagonal on every pair): the pigeonhole principle makes it
// infeasible, though every factor and every domain alone is satisfiable.
func matching5() *model.Model {
	m := &model.Model{Card: []int{4, 4, 4, 4, 4}}
	for i := range 5 {
		m.Factors = append(m.Factors, model.Factor{Scope: []int{i}, Table: model.Table{Log: []float64{-0.1 * float64(i), 0, -0.2, -0.3}}})
		for j := i + 1; j < 5; j++ {
			f := model.Factor{Scope: []int{i, j}, Table: model.Table{Log: make([]float64, 16)}}
			for a := range 4 {
				f.Forbid(a*4 + a)
			}
			m.Factors = append(m.Factors, f)
		}
	}
	return m
}

// TestInfeasibleAnswers checks issue 45, item 4: an all-zero table,
// evidence that empties a factor or a variable's domain, and the
// infeasible matching model are answered infeasible by every solver, not
// an error; before, the first two were input errors ("no feasible
// assignment") and auto spent 10 s in the factor ALM on the third.
func TestInfeasibleAnswers(t *testing.T) {
	cases := []struct {
		name string
		m    *model.Model
		ev   model.Evidence
	}{
		{"all-zero table", parse(t, "MARKOV 2 2 2 2 1 0 2 0 1 2 0.5 0.5 4 0 0 0 0"), nil},
		{"evidence empties a factor", parse(t, "MARKOV 2 2 2 1 2 0 1 4 0 0 1 1"), model.Evidence{{Var: 0, Value: 0}}},
		{"evidence empties a domain", parse(t, "MARKOV 2 2 2 2 2 0 1 1 1 4 1 0 0 1 2 0 1"), model.Evidence{{Var: 0, Value: 0}}},
		{"higher order emptied", parse(t, "MARKOV 3 2 2 2 1 3 0 1 2 8 1 1 1 1 0 0 0 0"), model.Evidence{{Var: 0, Value: 1}}},
		{"matching", matching5(), nil},
	}
	for _, c := range cases {
		for _, name := range Solvers() {
			res, err := Solve(context.Background(), c.m, Settings{Solver: name, Evidence: c.ev})
			if err != nil {
				t.Errorf("%s, %s: error %v, want the answer infeasible", c.name, name, err)
				continue
			}
			if res.Answer != InfeasibleModel || res.Termination != Infeasible || res.Assignment != nil || !math.IsInf(res.Energy, 1) {
				t.Errorf("%s, %s: answer %v, termination %v, energy %v", c.name, name, res.Answer, res.Termination, res.Energy)
			}
			if res.SDR != nil || res.Iterations != 0 {
				t.Errorf("%s, %s: a method ran (%d iterations, SDR %v) before the presolve's proof", c.name, name, res.Iterations, res.SDR != nil)
			}
		}
	}
}

// TestFeasibleNotRefuted checks that the presolve's proofs do not refute a
// feasible model with forbidden entries: a matching with enough states.
func TestFeasibleNotRefuted(t *testing.T) {
	m := matching5()
	for i := range m.Card {
		m.Card[i] = 5
	}
	for fi := range m.Factors {
		f := &m.Factors[fi]
		if len(f.Scope) == 1 {
			f.Log = append(f.Log, -1)
			continue
		}
		f.Log, f.Forbidden = make([]float64, 25), nil
		for a := range 5 {
			f.Forbid(a*5 + a)
		}
	}
	res, err := Solve(context.Background(), m, Settings{Solver: "exact"})
	if err != nil || res.Answer != Optimal {
		t.Fatalf("answer %v, error %v", res.Answer, err)
	}
}

// TestSolveValidates checks issue 45, item 8: a nil or malformed model is
// an error from Solve naming the factor, never a panic (short tables,
// out-of-range scopes and short Forbidden slices panicked; long tables,
// repeated scope variables and NaN were solved).
func TestSolveValidates(t *testing.T) {
	good := func() *model.Model {
		return &model.Model{Card: []int{2, 2}, Factors: []model.Factor{
			{Scope: []int{0, 1}, Table: model.Table{Log: []float64{0, -1, -2, 0}}},
		}}
	}
	for _, c := range []struct {
		name   string
		break_ func(*model.Model)
		want   string
	}{
		{"short table", func(m *model.Model) { m.Factors[0].Log = m.Factors[0].Log[:3] }, "factor 0 (scope [0 1]): short table"},
		{"long table", func(m *model.Model) { m.Factors[0].Log = append(m.Factors[0].Log, 1) }, "factor 0 (scope [0 1]): long table"},
		{"out-of-range scope", func(m *model.Model) { m.Factors[0].Scope[1] = 7 }, "variable 7 out of range"},
		{"repeated scope variable", func(m *model.Model) { m.Factors[0].Scope[1] = 0 }, "appears twice"},
		{"short Forbidden", func(m *model.Model) { m.Factors[0].Forbidden = []bool{true} }, "1 Forbidden flags for 4"},
		{"NaN", func(m *model.Model) { m.Factors[0].Log[2] = math.NaN() }, "entry 2 is NaN"},
	} {
		for _, name := range Solvers() {
			m := good()
			c.break_(m)
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s, %s: panic %v", c.name, name, p)
					}
				}()
				_, err = Solve(context.Background(), m, Settings{Solver: name})
			}()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: error %v, want %q", c.name, name, err, c.want)
			}
		}
	}
	if _, err := Solve(context.Background(), nil, Settings{}); err == nil {
		t.Error("nil model: no error")
	}
}

// TestZeroSeedIsDefault checks that Settings{}'s Seed is the command's
// default seed (issue 45, item 8): Solve gives the methods DefaultSeed for
// 0, so Seed 0 and Seed 1 run the same randomized steps.
func TestZeroSeedIsDefault(t *testing.T) {
	m := &model.Model{Card: []int{2}, Factors: []model.Factor{{Scope: []int{0}, Table: model.Table{Log: []float64{0, -1}}}}}
	s := Settings{}
	if err := checkInput(m, &s); err != nil || s.Seed != DefaultSeed || DefaultSeed != 1 {
		t.Fatalf("Seed 0 becomes %d (%v), want %d", s.Seed, err, DefaultSeed)
	}
	s.Seed = 7
	if checkInput(m, &s); s.Seed != 7 {
		t.Fatalf("Seed 7 becomes %d", s.Seed)
	}
	grid := matching5()
	grid.Factors = grid.Factors[:5] // unaries only
	a, errA := Solve(context.Background(), grid, Settings{Solver: "sdpad-lr"})
	b, errB := Solve(context.Background(), grid, Settings{Solver: "sdpad-lr", Seed: 1})
	if errA != nil || errB != nil || a.Energy != b.Energy || a.Bound != b.Bound || a.Iterations != b.Iterations {
		t.Fatalf("seed 0: %v %v %d (%v); seed 1: %v %v %d (%v)", a.Energy, a.Bound, a.Iterations, errA, b.Energy, b.Bound, b.Iterations, errB)
	}
}

// TestConversionLimit checks that a conversion from higher order that
// could exceed the limits is an error before it allocates (issue 45, item
// 2): a factor over 20 x 20 x 20 states may become an auxiliary variable
// of 8,000 states with edges of 8,000 x 20 entries each.
func TestConversionLimit(t *testing.T) {
	m := &model.Model{Card: []int{20, 20, 20}, Factors: []model.Factor{{Scope: []int{0, 1, 2}, Table: model.Table{Log: make([]float64, 8000)}}}}
	for k := range m.Factors[0].Log {
		m.Factors[0].Log[k] = float64(k%7) * 0.1
	}
	_, err := Solve(context.Background(), m, Settings{Solver: "trws", Limits: model.Limits{MaxEntries: 100_000}})
	if err == nil || !strings.Contains(err.Error(), "more than the limit 100000 (--max-entries") {
		t.Fatalf("error %v, want the conversion refused", err)
	}
	_, err = Solve(context.Background(), m, Settings{Solver: "trws", Limits: model.Limits{MaxN: 1000}})
	if err == nil || !strings.Contains(err.Error(), "N up to 8061, more than the limit 1000") {
		t.Fatalf("error %v, want the conversion refused", err)
	}
}
