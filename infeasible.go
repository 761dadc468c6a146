package sdrmap

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/higherorder"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/presolve"
)

// DefaultSeed is the seed that Settings.Seed 0 stands for: the default of
// the command's --seed.
const DefaultSeed = 1

// checkInput refuses a nil or malformed model (model.Validate, naming the
// factor) and a conversion from higher order that may exceed s.Limits
// (higherorder.CheckSize), and sets Seed 0 to DefaultSeed.
func checkInput(m *model.Model, s *Settings) error {
	if m == nil {
		return fmt.Errorf("nil model")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("invalid model: %w", err)
	}
	if s.Seed == 0 {
		s.Seed = DefaultSeed
	}
	if m.MaxArity() > 2 && !s.NoConvert {
		return higherorder.CheckSize(m, s.Limits)
	}
	return nil
}

// proveInfeasible returns the answer infeasible when a cheap proof
// (presolve.Infeasible) shows that m under the evidence has no assignment
// of finite energy, so that no method runs on it, and nil otherwise; ctx's
// deadline is the time limit.
func proveInfeasible(ctx context.Context, m *model.Model, s *Settings, start time.Time) (*Result, error) {
	clamp, err := s.Evidence.Clamps(m)
	if err != nil {
		return nil, err
	}
	why, err := presolve.Infeasible(ctx, m, clamp, s.Seed)
	if err != nil || why == "" {
		return nil, err
	}
	return infeasibleResult(s, start, why), nil
}

// infeasibleResult is the answer infeasible, proven by why.
func infeasibleResult(s *Settings, start time.Time, why string) *Result {
	if s.Log != nil {
		fmt.Fprintf(s.Log, "presolve: infeasible: %s\n", why)
	}
	r := &Result{Solver: s.Solver, Termination: Infeasible, Energy: math.Inf(1), Bound: math.Inf(1)}
	report(r, s.Log)
	r.Time = time.Since(start)
	return r
}
