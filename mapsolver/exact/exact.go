// Package exact finds a MAP assignment of a small pairwise model by
// depth-first branch and bound: variables in a fixed order, states in order
// of increasing cost, a branch cut when its partial energy plus a lower bound
// on the rest cannot beat the best assignment found so far. It is the test
// oracle for every other solver and `sdrmap solve --solver exact`.
//
// The lower bound on the unassigned part is sum over unassigned variables u
// of min_a (unary cost of a + cost of edges to assigned neighbours) plus
// sum over edges between unassigned variables of their smallest entry.
package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// DefaultMaxStates is the default limit on the joint state space.
const DefaultMaxStates = 1e9

// Settings controls the search.
type Settings struct {
	// MaxStates refuses models whose joint state space (product of the
	// cardinalities) is larger; <= 0 means DefaultMaxStates.
	MaxStates float64
}

// Result is the outcome of a search.
type Result struct {
	Status     solver.Status // Solved (proven optimal), OutOfTime, Interrupted or Infeasible
	Assignment []int         // best assignment of the pairwise model's variables; nil if none found
	Energy     float64       // its energy (model convention, includes Const); +Inf if none
	Nodes      int64         // search nodes visited
	Time       time.Duration
}

// ErrTooLarge is returned for models beyond Settings.MaxStates.
var ErrTooLarge = errors.New("model too large for the exact solver")

// Solve runs the search on p. ctx's deadline ends it with status
// OutOfTime, its cancellation with Interrupted, both with the best
// assignment so far.
func Solve(ctx context.Context, p *model.Pairwise, s Settings) (*Result, error) {
	limit := s.MaxStates
	if limit <= 0 {
		limit = DefaultMaxStates
	}
	logStates := 0.0
	for _, c := range p.Card {
		logStates += math.Log10(float64(c))
	}
	if logStates > math.Log10(limit) {
		return nil, fmt.Errorf("%w: 10^%.1f joint states, limit %.3g (raise --max-states)", ErrTooLarge, logStates, limit)
	}
	start := time.Now()
	b := newSearch(p)
	b.ctx = ctx
	b.dfs(0, 0)
	r := &Result{Status: solver.Solved, Energy: math.Inf(1), Nodes: b.nodes}
	if b.stop != solver.Unsolved {
		r.Status = b.stop
	}
	if b.best != nil {
		r.Assignment = b.best
		r.Energy = p.Energy(b.best) // exact, compensated
	} else if r.Status == solver.Solved {
		r.Status = solver.Infeasible
	}
	r.Time = time.Since(start)
	return r, nil
}

type search struct {
	p     *model.Pairwise
	adj   [][]model.Neighbor
	order []int // variables in search order
	pos   []int // position of each variable in order
	// cost[u][a]: energy of state a of u given the assigned variables
	// (unary plus edges to assigned neighbours); ban[u][a] counts forbidden
	// entries among those terms, so undoing an assignment never subtracts
	// infinities.
	cost [][]float64
	ban  [][]int32
	// restMin[d]: sum of the smallest entries of edges whose both ends are at
	// positions >= d.
	restMin []float64
	edgeMin []float64
	x       []int
	best    []int
	bestE   float64
	nodes   int64

	ctx  context.Context
	stop solver.Status
}

func newSearch(p *model.Pairwise) *search {
	n := p.NumVars()
	b := &search{p: p, adj: p.Adjacency(), x: make([]int, n), bestE: math.Inf(1)}
	// Most constrained first: larger degree, then smaller domain.
	b.order = make([]int, n)
	for i := range b.order {
		b.order[i] = i
	}
	sort.SliceStable(b.order, func(i, j int) bool {
		u, v := b.order[i], b.order[j]
		if len(b.adj[u]) != len(b.adj[v]) {
			return len(b.adj[u]) > len(b.adj[v])
		}
		return p.Card[u] < p.Card[v]
	})
	b.pos = make([]int, n)
	for k, v := range b.order {
		b.pos[v] = k
	}
	b.cost = make([][]float64, n)
	b.ban = make([][]int32, n)
	for i := range b.cost {
		b.cost[i] = make([]float64, p.Card[i])
		b.ban[i] = make([]int32, p.Card[i])
		for a := range b.cost[i] {
			if p.Unary[i].IsForbidden(a) {
				b.ban[i][a] = 1
			} else {
				b.cost[i][a] = -p.Unary[i].Log[a]
			}
		}
	}
	b.edgeMin = make([]float64, len(p.Edges))
	b.restMin = make([]float64, n+1)
	for e := range p.Edges {
		ed := &p.Edges[e]
		m := math.Inf(1)
		for k, w := range ed.Log {
			if !ed.IsForbidden(k) {
				m = math.Min(m, -w)
			}
		}
		if math.IsInf(m, 1) {
			// Every pair is forbidden: nothing can beat bestE = -Inf, the
			// search ends at once and reports Infeasible.
			m = 0
			b.bestE = math.Inf(-1)
		}
		b.edgeMin[e] = m
		d := min(b.pos[ed.I], b.pos[ed.J])
		b.restMin[d] += m
	}
	for d := n - 1; d >= 0; d-- {
		b.restMin[d] += b.restMin[d+1]
	}
	return b
}

// dfs assigns the variable at position d given partial energy e of the
// variables before it.
func (b *search) dfs(d int, e float64) {
	if b.stop != solver.Unsolved {
		return
	}
	b.nodes++
	if b.nodes&0xfff == 0 && b.interrupted() {
		return
	}
	n := len(b.order)
	if d == n {
		if e < b.bestE {
			b.bestE = e
			b.best = append(make([]int, 0, n), b.x...)
		}
		return
	}
	// Bound: e + best case of every remaining variable + remaining edges.
	bound := e + b.restMin[d]
	for k := d; k < n; k++ {
		u := b.order[k]
		m := math.Inf(1)
		for a, c := range b.cost[u] {
			if b.ban[u][a] == 0 && c < m {
				m = c
			}
		}
		bound += m
	}
	if !(bound < b.bestE) {
		return
	}
	v := b.order[d]
	states := b.sortedStates(v)
	for _, a := range states {
		b.x[v] = a
		b.assign(v, a, d, 1)
		b.dfs(d+1, e+b.cost[v][a])
		b.assign(v, a, d, -1)
	}
}

// sortedStates returns the allowed states of v by increasing cost.
func (b *search) sortedStates(v int) []int {
	var st []int
	for a := range b.cost[v] {
		if b.ban[v][a] == 0 {
			st = append(st, a)
		}
	}
	sort.Slice(st, func(i, j int) bool { return b.cost[v][st[i]] < b.cost[v][st[j]] })
	return st
}

// assign adds (sign = 1) or removes (sign = -1) the effect of v = a on the
// costs of v's neighbours later in the order.
func (b *search) assign(v, a, d, sign int) {
	p := b.p
	for _, nb := range b.adj[v] {
		u := nb.Var
		if b.pos[u] <= d {
			continue
		}
		ed := &p.Edges[nb.Edge]
		for c := range b.cost[u] {
			k := p.EdgeEntry(nb, a, c)
			if ed.IsForbidden(k) {
				b.ban[u][c] += int32(sign)
			} else {
				b.cost[u][c] -= float64(sign) * ed.Log[k]
			}
		}
	}
}

func (b *search) interrupted() bool {
	if b.ctx != nil {
		b.stop = solver.StopStatus(b.ctx)
	}
	return b.stop != solver.Unsolved
}
