// Package presolve holds the checks that run on a model before a method:
// cheap proofs that it has no assignment of finite energy.
package presolve

import (
	"context"
	"fmt"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/search/feasible"
	"github.com/sdrmap/sdrmap/solver"
)

// probeNodes is the decision budget of the feasibility probe: enough to
// refute small infeasible models, small against any relaxation.
const probeNodes = 20_000

// Infeasible returns why m under clamp (-1: free) has no assignment of
// finite energy when a cheap proof shows it, and "" otherwise. The proofs:
// one pass over the tables, which finds a factor with every entry
// consistent with the evidence forbidden and a variable whose every state
// some factor forbids (whatever the other variables are); then, when a
// factor has forbidden entries, a feasibility search (package feasible)
// within probeNodes decisions, until ctx ends.
func Infeasible(ctx context.Context, m *model.Model, clamp []int, seed uint64) (string, error) {
	why := emptyDomain(m, clamp)
	if why == "" && hasForbidden(m) {
		res, err := feasible.Search(ctx, m, nil, clamp, feasible.Settings{MaxNodes: probeNodes, Seed: seed})
		if err != nil {
			return "", err
		}
		if res.Status == solver.Infeasible {
			why = fmt.Sprintf("the feasibility search refutes every assignment (%d decisions)", res.Nodes)
		}
	}
	return why, nil
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
