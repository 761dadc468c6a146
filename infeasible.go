package sdrmap

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/higherorder"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/search/feasible"
	"github.com/sdrmap/sdrmap/solver"
)

// DefaultSeed is the seed that Settings.Seed 0 stands for: the default of
// the command's --seed.
const DefaultSeed = 1

// checkInput refuses a nil or malformed model (model.Validate, naming the
// factor) and a conversion from higher order that may exceed s.Limits
// (higherorder.SizeBound), and sets Seed 0 to DefaultSeed.
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
		lim := s.Limits.OrDefault()
		entries, n := higherorder.SizeBound(m)
		switch {
		case entries > lim.MaxEntries:
			return fmt.Errorf("converting the factors of arity > 2 may need up to %d table entries, more than the limit %d (--max-entries raises it)", entries, lim.MaxEntries)
		case n > lim.MaxN:
			return fmt.Errorf("converting the factors of arity > 2 may need N up to %d, more than the limit %d (--max-n raises it)", n, lim.MaxN)
		}
	}
	return nil
}

// probeNodes is the decision budget of the feasibility probe that runs
// before the method: enough to refute small infeasible models, small
// against any relaxation.
const probeNodes = 20_000

// proveInfeasible returns the answer infeasible when a cheap proof shows
// that m under the evidence has no assignment of finite energy, and nil
// otherwise. The proofs: one pass over the tables, which finds a factor
// with every entry consistent with the evidence forbidden and a variable
// whose every state some factor forbids (whatever the other variables
// are); then, when a factor has forbidden entries, a feasibility search
// (package feasible) within probeNodes decisions, so that no relaxation
// runs on a small infeasible model.
func proveInfeasible(ctx context.Context, m *model.Model, s *Settings, start time.Time) (*Result, error) {
	clamp, err := s.Evidence.Clamps(m)
	if err != nil {
		return nil, err
	}
	why := emptyDomain(m, clamp)
	if why == "" && hasForbidden(m) {
		pctx := ctx
		if s.TimeLimit > 0 {
			var cancel context.CancelFunc
			pctx, cancel = context.WithDeadline(ctx, start.Add(s.TimeLimit))
			defer cancel()
		}
		res, err := feasible.Search(pctx, m, nil, clamp, feasible.Settings{MaxNodes: probeNodes, Seed: s.Seed})
		if err != nil {
			return nil, err
		}
		if res.Status == solver.Infeasible {
			why = fmt.Sprintf("the feasibility search refutes every assignment (%d decisions)", res.Nodes)
		}
	}
	if why == "" {
		return nil, nil
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

func hasForbidden(m *model.Model) bool {
	for i := range m.Factors {
		if m.Factors[i].Forbidden != nil && m.Factors[i].ForbiddenCount() > 0 {
			return true
		}
	}
	return false
}

// emptyDomain returns why no assignment of m agreeing with clamp (-1:
// free) has finite energy, when one pass over the tables shows it: a
// factor none of whose allowed entries agrees with clamp, or a variable
// each of whose states is, in some factor, in no allowed entry agreeing
// with clamp. It returns "" otherwise.
func emptyDomain(m *model.Model, clamp []int) string {
	dom := make([][]bool, m.NumVars()) // dom[v][a]: no factor rules out v = a
	for v, c := range m.Card {
		dom[v] = make([]bool, c)
		for a := range dom[v] {
			dom[v][a] = clamp[v] < 0 || clamp[v] == a
		}
	}
	x := []int{}
	for fi := range m.Factors {
		f := &m.Factors[fi]
		if f.ForbiddenCount() == 0 {
			continue // supports every state
		}
		support := make([][]bool, len(f.Scope))
		for p, v := range f.Scope {
			support[p] = make([]bool, m.Card[v])
		}
		x = append(x[:0], make([]int, len(f.Scope))...)
		allowed := false
		for k := range f.Log {
			ok := !f.IsForbidden(k)
			for p, v := range f.Scope {
				if clamp[v] >= 0 && clamp[v] != x[p] {
					ok = false
				}
			}
			if ok {
				allowed = true
				for p := range f.Scope {
					support[p][x[p]] = true
				}
			}
			for p := len(x) - 1; p >= 0; p-- { // next entry, last variable fastest
				if x[p]++; x[p] < m.Card[f.Scope[p]] {
					break
				}
				x[p] = 0
			}
		}
		if !allowed {
			if len(f.Scope) == 0 || f.ForbiddenCount() == len(f.Log) {
				return fmt.Sprintf("factor %d (scope %v) has every entry zero", fi, f.Scope)
			}
			return fmt.Sprintf("factor %d (scope %v) forbids every entry that agrees with the evidence", fi, f.Scope)
		}
		for p, v := range f.Scope {
			left := false
			for a := range dom[v] {
				dom[v][a] = dom[v][a] && support[p][a]
				left = left || dom[v][a]
			}
			if !left {
				return fmt.Sprintf("variable %d has no state left: the evidence and the forbidden entries of factor %d and others rule out each one", v, fi)
			}
		}
	}
	return ""
}
