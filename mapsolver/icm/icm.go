// Package icm improves an assignment of a pairwise model by iterated
// conditional modes (Besag 1986): sweep over the variables in order and set
// each to the state of least energy given its neighbours,
//
//	x_i <- argmin_a  -w_i(a) - sum_{j in N(i)} W_ij(a, x_j),
//
// until a sweep changes nothing. The result is a local optimum: no change of
// a single variable lowers the energy.
//
// Forbidden entries are handled exactly, never as a large number: a state is
// ranked first by how many forbidden entries it uses with the current
// neighbours, then by its finite energy. The pair (number of forbidden entries
// used by x, finite part of the energy) therefore decreases
// lexicographically with every move, so the search terminates, and once it
// reaches an assignment of finite energy it never leaves the finite ones.
//
// Larger moves, in the same order: Trees sets the variables of a whole tree
// of an induced forest to their exact minimizer given the rest (block
// coordinate descent, min-sum on the tree), Trees.Search is an iterated
// local search around it (random connected blocks reassigned, then Trees),
// and ImproveModel makes single-variable moves on a model of any arity.
package icm

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// relEps is the relative margin by which a move must lower the local energy:
// it keeps rounding from cycling and guarantees that every accepted move
// lowers the exact energy.
const relEps = 1e-12

// Settings controls a run.
type Settings struct {
	// Init is the starting assignment of the pairwise model's variables; nil
	// means, per variable, the allowed state of least unary energy.
	Init []int
	// MaxSweeps stops after that many sweeps (status MaxIterations); 0 means
	// no limit (the search always terminates).
	MaxSweeps int
}

// Result is the outcome of a run.
type Result struct {
	// Status is Solved when a local optimum was reached (Energy may still be
	// +Inf if ICM got stuck on forbidden entries: that proves nothing about
	// the model), else MaxIterations, OutOfTime or Interrupted.
	Status     solver.Status
	Assignment []int   // final assignment of the pairwise model's variables
	Energy     float64 // its energy, p.Energy (includes Const); +Inf if it uses a forbidden entry
	Sweeps     int     // sweeps over all variables, the last one without change included
	Time       time.Duration
}

// Solve runs ICM on p from s.Init. ctx's deadline ends it with status
// OutOfTime, its cancellation with Interrupted, both with the current
// assignment, which is never worse than the
// start.
func Solve(ctx context.Context, p *model.Pairwise, s Settings) (*Result, error) {
	start := time.Now()
	n := p.NumVars()
	x := make([]int, n)
	if s.Init != nil {
		if len(s.Init) != n {
			return nil, fmt.Errorf("icm: initial assignment has %d values, model has %d variables", len(s.Init), n)
		}
		for i, a := range s.Init {
			if a < 0 || a >= p.Card[i] {
				return nil, fmt.Errorf("icm: initial value %d of variable %d outside 0..%d", a, i, p.Card[i]-1)
			}
		}
		copy(x, s.Init)
	} else {
		BestUnary(p, x)
	}
	l := NewLocal(p)
	r := &Result{Status: solver.Solved, Assignment: x}
	for {
		if ctx != nil && ctx.Err() != nil {
			r.Status = solver.StopStatus(ctx)
			break
		}
		if s.MaxSweeps > 0 && r.Sweeps >= s.MaxSweeps {
			r.Status = solver.MaxIterations
			break
		}
		r.Sweeps++
		if l.Sweep(x) == 0 {
			break
		}
	}
	r.Energy = p.Energy(x)
	r.Time = time.Since(start)
	return r, nil
}

// BestUnary sets x (of length p.NumVars()) to, per variable, the allowed
// state of least unary energy -w_i(a) (state 0 if every state is forbidden).
func BestUnary(p *model.Pairwise, x []int) {
	for i := range x {
		u := &p.Unary[i]
		best, bestA := math.Inf(1), 0
		for a, w := range u.Log {
			if !u.IsForbidden(a) && -w < best {
				best, bestA = -w, a
			}
		}
		x[i] = bestA
	}
}

// Improve runs ICM on x in place until it is a local optimum and returns its
// energy p.Energy(x), which is never larger than that of the x passed in.
// For repeated calls on the same model, NewLocal saves the set-up.
func Improve(p *model.Pairwise, x []int) float64 { return NewLocal(p).Improve(x) }

// Local is ICM's local search on one model, set up once for repeated use. It
// is not safe for concurrent use.
type Local struct {
	p    *model.Pairwise
	adj  [][]model.Neighbor
	cost []float64
	ban  []int
}

// NewLocal prepares the local search on p.
func NewLocal(p *model.Pairwise) *Local {
	mc := 0
	for _, c := range p.Card {
		mc = max(mc, c)
	}
	return &Local{p: p, adj: p.Adjacency(), cost: make([]float64, mc), ban: make([]int, mc)}
}

// Improve sweeps x in place until no single-variable change lowers the
// energy and returns p.Energy(x), never larger than at the start (if
// rounding ever made it so, x is restored).
func (l *Local) Improve(x []int) float64 {
	e0 := l.p.Energy(x)
	x0 := append([]int(nil), x...)
	for l.Sweep(x) > 0 {
		// until a sweep without a move
	}
	e := l.p.Energy(x)
	if e > e0 {
		copy(x, x0)
		return e0
	}
	return e
}

// Sweep visits every variable once in order, moving each to its best state
// given the others when that is a strict improvement, and returns the number
// of moves.
func (l *Local) Sweep(x []int) int {
	moves := 0
	for i := range x {
		if l.move(i, x) {
			moves++
		}
	}
	return moves
}

// move sets x_i to its best state given the neighbours, if strictly better
// than the current one, and reports whether it moved.
func (l *Local) move(i int, x []int) bool {
	p := l.p
	k := p.Card[i]
	cost, ban := l.cost[:k], l.ban[:k]
	u := &p.Unary[i]
	for a := range cost {
		if u.IsForbidden(a) {
			cost[a], ban[a] = 0, 1
		} else {
			cost[a], ban[a] = -u.Log[a], 0
		}
	}
	for _, nb := range l.adj[i] {
		ed := &p.Edges[nb.Edge]
		b := x[nb.Var]
		for a := range cost {
			e := p.EdgeEntry(nb, a, b)
			if ed.IsForbidden(e) {
				ban[a]++
			} else {
				cost[a] -= ed.Log[e]
			}
		}
	}
	cur := x[i]
	best := cur
	for a := range cost {
		if ban[a] < ban[best] || (ban[a] == ban[best] && cost[a] < cost[best]) {
			best = a
		}
	}
	if best == cur {
		return false
	}
	if ban[best] == ban[cur] && !(cost[best] < cost[cur]-relEps*(1+math.Abs(cost[cur]))) {
		return false
	}
	x[i] = best
	return true
}
