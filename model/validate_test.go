package model

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestValidate checks issue 45, item 8: every malformed model built in
// code is an error naming the factor and the problem.
func TestValidate(t *testing.T) {
	good := func() *Model {
		return &Model{Card: []int{2, 3}, Factors: []Factor{
			{Scope: []int{0}, Table: Table{Log: []float64{0, -1}}},
			{Scope: []int{0, 1}, Table: Table{Log: make([]float64, 6), Forbidden: make([]bool, 6)}},
		}}
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid model: %v", err)
	}
	for _, c := range []struct {
		name   string
		break_ func(m *Model)
		want   string
	}{
		{"short table", func(m *Model) { m.Factors[1].Log = m.Factors[1].Log[:5] }, "factor 1 (scope [0 1]): short table, 5 entries where its scope needs 6"},
		{"long table", func(m *Model) { m.Factors[0].Log = append(m.Factors[0].Log, 0) }, "factor 0 (scope [0]): long table"},
		{"scope out of range", func(m *Model) { m.Factors[1].Scope[1] = 2 }, "factor 1 (scope [0 2]): variable 2 out of range 0..1"},
		{"negative scope", func(m *Model) { m.Factors[0].Scope[0] = -1 }, "variable -1 out of range"},
		{"repeated scope variable", func(m *Model) { m.Factors[1].Scope[1] = 0 }, "factor 1 (scope [0 0]): variable 0 appears twice"},
		{"short Forbidden", func(m *Model) { m.Factors[1].Forbidden = m.Factors[1].Forbidden[:2] }, "factor 1 (scope [0 1]): 2 Forbidden flags for 6 table entries"},
		{"NaN", func(m *Model) { m.Factors[0].Log[1] = math.NaN() }, "factor 0 (scope [0]): entry 1 is NaN"},
		{"-Inf", func(m *Model) { m.Factors[1].Log[3] = math.Inf(-1) }, "factor 1 (scope [0 1]): entry 3 is -Inf"},
		{"+Inf", func(m *Model) { m.Factors[0].Log[0] = math.Inf(1) }, "entry 0 is +Inf"},
		{"cardinality 0", func(m *Model) { m.Card[1] = 0 }, "variable 1 has cardinality 0"},
	} {
		m := good()
		c.break_(m)
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// A forbidden entry's log is ignored, whatever it holds.
	m := good()
	m.Factors[1].Forbidden[2], m.Factors[1].Log[2] = true, math.NaN()
	if err := m.Validate(); err != nil {
		t.Errorf("NaN under a forbidden flag: %v", err)
	}
	var nilModel *Model
	if err := nilModel.Validate(); err == nil {
		t.Error("nil model validates")
	}
}

// TestPairwiseInfeasible checks that evidence using a forbidden entry is
// an error that sdrmap.Solve recognizes as a proof of infeasibility.
func TestPairwiseInfeasible(t *testing.T) {
	m := &Model{Card: []int{2}, Factors: []Factor{{Scope: []int{0}, Table: Table{Log: []float64{0, 0}}}}}
	m.Factors[0].Forbid(1)
	if _, err := m.Pairwise(Evidence{{Var: 0, Value: 1}}); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("error %v, want one wrapping ErrInfeasible", err)
	}
}
