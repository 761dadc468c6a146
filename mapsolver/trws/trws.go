// Package trws minimizes the energy of a pairwise model by sequential
// tree-reweighted message passing (TRW-S, Kolmogorov, "Convergent
// tree-reweighted message passing for energy minimization", PAMI 2006), with
// monotone chains along the variable order 0..n-1. It returns the best
// assignment decoded along the way and a lower bound on the optimal energy
// (the dual of the local-polytope LP relaxation).
//
// In energy form, theta_i(a) = -w_i(a) and theta_ij(a, b) = -W_ij(a, b) for
// edges i < j. Messages M_{i->j}(b) define the reparametrization
//
//	hat theta_i(a) = theta_i(a) + sum_{k in N(i)} M_{k->i}(a),
//
// and node i, with n_in(i) neighbours before it and n_out(i) after, has
// gamma_i = 1 / max(n_in(i), n_out(i), 1). The forward pass visits i = 0..n-1
// and updates the messages to later neighbours j,
//
//	M_{i->j}(b) = min_a [gamma_i hat theta_i(a) - M_{j->i}(a) + theta_ij(a, b)],
//
// the backward pass visits i = n-1..0 and updates those to earlier
// neighbours the same way; every message is shifted to minimum 0. In the
// backward pass the bound adds min_a hat theta_i(a) at every node and the
// shift of every message it sends. This is a valid lower bound for any
// messages: with D_i = hat theta_i - min hat theta_i >= 0, each message sent
// back from i gives, for all a, b, theta_ki(a, b) - M_{k->i}(b) -
// M_{i->k}(a) + gamma_i D_i(b) >= its shift, and n_in(i) gamma_i <= 1.
//
// After each iteration the assignment is decoded as in Kolmogorov's paper:
// for i = 0..n-1, x_i minimizes theta_i(a) + sum_{k < i} theta_ki(x_k, a) +
// sum_{j > i} M_{j->i}(a).
//
// Forbidden entries. The passes use the finite surrogate energy E~ in which a
// forbidden entry of a table costs the table's smallest allowed cost plus
// Big = 2 S + 1, where S is the sum over tables of (largest - smallest
// allowed cost). E~ <= E everywhere, so every bound of E~ is a bound of E;
// any assignment using a forbidden entry has E~ >= L + Big > U, where L and
// U are the sums of the smallest and largest allowed costs, and every
// assignment of finite energy has E <= U, so E~ and E have the same optimum
// when the model is feasible. A bound above U therefore proves the model
// infeasible (status Infeasible, Bound +Inf); otherwise the reported bound is
// at most U, on the scale of the model's own costs. Decoding ranks states first by the number of
// forbidden entries they use with the decoded neighbours, and energies are
// always recomputed exactly with Pairwise.Energy.
package trws

import (
	"context"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// Defaults of Settings.
const (
	DefaultMaxIter = 1000
	DefaultTol     = 1e-8
)

// gapTol is the relative gap Energy - Bound under which the assignment is
// taken as proven optimal and the iteration stops.
const gapTol = 1e-10

// checkEvery is how many nodes a pass visits between checks of the context
// and the time limit.
const checkEvery = 1024

// Settings controls a run.
type Settings struct {
	// MaxIter is the number of iterations (a forward and a backward pass
	// each); 0 means DefaultMaxIter.
	MaxIter int
	// Tol stops the run (status Solved) when the bound improves by at most
	// Tol * max(1, |Bound|) in one iteration; 0 means DefaultTol, < 0 never.
	Tol float64
}

// Result is the outcome of a run.
type Result struct {
	// Status is Solved (the bound converged to Tol, or the gap closed: then
	// the assignment is optimal up to rounding), MaxIterations, OutOfTime,
	// Interrupted, or Infeasible (proven: a table with every entry forbidden
	// or a bound above every finite energy).
	Status     solver.Status
	Assignment []int   // best decoded assignment; nil if Infeasible
	Energy     float64 // its energy p.Energy (includes Const); +Inf if it uses a forbidden entry
	Bound      float64 // lower bound on the optimal energy (includes Const), <= Energy
	Iterations int     // completed iterations
	Time       time.Duration
}

// Solve runs TRW-S on p. ctx's deadline ends it with status OutOfTime,
// its cancellation with Interrupted, both with the best assignment and
// bound so far.
func Solve(ctx context.Context, p *model.Pairwise, s Settings) (*Result, error) {
	start := time.Now()
	maxIter := s.MaxIter
	if maxIter <= 0 {
		maxIter = DefaultMaxIter
	}
	tol := s.Tol
	if tol == 0 {
		tol = DefaultTol
	}
	r := &Result{Status: solver.Solved}
	defer func() { r.Time = time.Since(start) }()

	t, ok := newTRW(p)
	if !ok {
		r.Status, r.Energy, r.Bound = solver.Infeasible, math.Inf(1), math.Inf(1)
		return r, nil
	}
	t.ctx = ctx
	x := make([]int, t.n)
	t.decode(x)
	r.Assignment = make([]int, t.n)
	copy(r.Assignment, x)
	r.Energy = p.Energy(x)
	best := t.lo // the bound of the zero messages: sum of the smallest costs
	prev := math.Inf(-1)
	finish := func() {
		r.Bound = math.Min(best-p.Const, r.Energy)
	}
	closed := func() bool {
		return !math.IsInf(r.Energy, 1) && r.Energy-(best-p.Const) <= gapTol*math.Max(1, math.Abs(r.Energy))
	}
	for r.Iterations < maxIter {
		if closed() {
			finish()
			return r, nil
		}
		if t.stopped() || !t.forward() {
			break
		}
		lb, done := t.backward()
		if !done {
			break
		}
		r.Iterations++
		if lb > t.hi+1e-9*(1+t.scale) {
			r.Status, r.Assignment, r.Energy, r.Bound = solver.Infeasible, nil, math.Inf(1), math.Inf(1)
			return r, nil
		}
		best = math.Max(best, lb)
		t.decode(x)
		if e := p.Energy(x); e < r.Energy {
			r.Energy = e
			copy(r.Assignment, x)
		}
		if tol > 0 && lb-prev <= tol*math.Max(1, math.Abs(lb)) {
			finish()
			return r, nil
		}
		prev = lb
	}
	switch {
	case t.stop != solver.Unsolved:
		r.Status = t.stop
	case closed():
		r.Status = solver.Solved
	default:
		r.Status = solver.MaxIterations
	}
	finish()
	return r, nil
}

// trw holds the surrogate costs, the messages and the chain structure.
type trw struct {
	p    *model.Pairwise
	n    int
	card []int
	// theta[uoff[i]+a]: surrogate unary cost of state a of node i.
	uoff  []int
	theta []float64
	// Edge e = (I, J), I < J: surrogate costs pair[poff[e]+a*card[J]+b];
	// M_{I->J} at msg[foff[e]:], M_{J->I} at msg[boff[e]:].
	poff, foff, boff []int
	pair, msg        []float64
	// potts[e]: edge e is square with one cost pottsDiag[e] on the diagonal
	// and one cost pottsOff[e] off it; its messages take O(k), not O(k^2).
	potts               []bool
	pottsDiag, pottsOff []float64
	// Edges of node i to later nodes: out[outStart[i]:outStart[i+1]]; to
	// earlier nodes: in[inStart[i]:inStart[i+1]].
	outStart, out, inStart, in []int
	gamma                      []float64
	d, h                       []float64 // scratch, max cardinality
	ban                        []int     // scratch for decoding

	lo, hi, scale float64 // L, U and a magnitude for rounding margins

	ctx  context.Context
	stop solver.Status
}

// newTRW builds the surrogate problem; ok is false if a table has every
// entry forbidden.
func newTRW(p *model.Pairwise) (*trw, bool) {
	n := p.NumVars()
	t := &trw{p: p, n: n, card: p.Card, uoff: make([]int, n+1)}
	mc := 1
	for i, c := range p.Card {
		t.uoff[i+1] = t.uoff[i] + c
		mc = max(mc, c)
	}
	t.d, t.h, t.ban = make([]float64, mc), make([]float64, mc), make([]int, mc)
	ne := len(p.Edges)
	t.poff, t.foff, t.boff = make([]int, ne+1), make([]int, ne), make([]int, ne)
	nm := 0
	for e := range p.Edges {
		ed := &p.Edges[e]
		t.poff[e+1] = t.poff[e] + len(ed.Log)
		t.foff[e], t.boff[e] = nm, nm+p.Card[ed.J]
		nm += p.Card[ed.J] + p.Card[ed.I]
	}
	t.msg = make([]float64, nm)
	t.theta = make([]float64, t.uoff[n])
	t.pair = make([]float64, t.poff[ne])

	// First pass: smallest and largest allowed cost per table.
	span, lo, hi, abs := 0.0, 0.0, 0.0, 0.0
	tables := make([]*model.Table, 0, n+ne)
	for i := range p.Unary {
		tables = append(tables, &p.Unary[i])
	}
	for e := range p.Edges {
		tables = append(tables, &p.Edges[e].Table)
	}
	mins := make([]float64, len(tables))
	for k, tb := range tables {
		mn, mx := math.Inf(1), math.Inf(-1)
		for a, w := range tb.Log {
			if !tb.IsForbidden(a) {
				mn, mx = math.Min(mn, -w), math.Max(mx, -w)
			}
		}
		if math.IsInf(mn, 1) {
			return nil, false
		}
		mins[k] = mn
		span += mx - mn
		lo += mn
		hi += mx
		abs += math.Abs(mn) + math.Abs(mx)
	}
	big := 2*span + 1
	t.lo, t.hi, t.scale = lo, hi, abs+span
	fill := func(dst []float64, tb *model.Table, mn float64) {
		for a, w := range tb.Log {
			if tb.IsForbidden(a) {
				dst[a] = mn + big
			} else {
				dst[a] = -w
			}
		}
	}
	for i := range p.Unary {
		fill(t.theta[t.uoff[i]:t.uoff[i+1]], &p.Unary[i], mins[i])
	}
	t.potts, t.pottsDiag, t.pottsOff = make([]bool, ne), make([]float64, ne), make([]float64, ne)
	for e := range p.Edges {
		c := t.pair[t.poff[e]:t.poff[e+1]]
		fill(c, &p.Edges[e].Table, mins[n+e])
		t.potts[e], t.pottsDiag[e], t.pottsOff[e] = isPotts(c, p.Card[p.Edges[e].I], p.Card[p.Edges[e].J])
	}

	// Chain structure.
	nOut, nIn := make([]int, n), make([]int, n)
	for e := range p.Edges {
		nOut[p.Edges[e].I]++
		nIn[p.Edges[e].J]++
	}
	t.outStart, t.inStart = make([]int, n+1), make([]int, n+1)
	t.gamma = make([]float64, n)
	for i := 0; i < n; i++ {
		t.outStart[i+1] = t.outStart[i] + nOut[i]
		t.inStart[i+1] = t.inStart[i] + nIn[i]
		t.gamma[i] = 1 / float64(max(nOut[i], nIn[i], 1))
	}
	t.out, t.in = make([]int, ne), make([]int, ne)
	for i := range nOut {
		nOut[i], nIn[i] = t.outStart[i], t.inStart[i]
	}
	for e := range p.Edges {
		i, j := p.Edges[e].I, p.Edges[e].J
		t.out[nOut[i]] = e
		nOut[i]++
		t.in[nIn[j]] = e
		nIn[j]++
	}
	return t, true
}

// stopped checks the context.
func (t *trw) stopped() bool {
	if t.ctx != nil {
		t.stop = solver.StopStatus(t.ctx)
	}
	return t.stop != solver.Unsolved
}

// belief sets t.d[:card[i]] to hat theta_i, the unary cost plus all incoming
// messages.
func (t *trw) belief(i int) []float64 {
	k := t.card[i]
	d := t.d[:k]
	copy(d, t.theta[t.uoff[i]:t.uoff[i+1]])
	for _, e := range t.in[t.inStart[i]:t.inStart[i+1]] {
		addTo(d, t.msg[t.foff[e]:t.foff[e]+k])
	}
	for _, e := range t.out[t.outStart[i]:t.outStart[i+1]] {
		addTo(d, t.msg[t.boff[e]:t.boff[e]+k])
	}
	return d
}

// forward updates the messages to later neighbours for i = 0..n-1; false if
// stopped midway.
func (t *trw) forward() bool {
	for i := 0; i < t.n; i++ {
		if i%checkEvery == checkEvery-1 && t.stopped() {
			return false
		}
		d := t.belief(i)
		ki := len(d)
		h := t.h[:ki]
		g := t.gamma[i]
		for _, e := range t.out[t.outStart[i]:t.outStart[i+1]] {
			kj := t.card[t.p.Edges[e].J]
			rev := t.msg[t.boff[e] : t.boff[e]+ki]
			for a := range h {
				h[a] = g*d[a] - rev[a]
			}
			m := t.msg[t.foff[e] : t.foff[e]+kj]
			if t.potts[e] {
				t.sendPotts(e, h, m)
			} else {
				for b := range m {
					m[b] = math.Inf(1)
				}
				pair := t.pair[t.poff[e]:t.poff[e+1]]
				for a, ha := range h {
					row := pair[a*kj : (a+1)*kj]
					m := m[:len(row)]
					for b, c := range row {
						m[b] = min(m[b], ha+c)
					}
				}
			}
			normalize(m)
		}
	}
	return true
}

// backward updates the messages to earlier neighbours for i = n-1..0 and
// returns the lower bound on the surrogate energy (without Const); false if
// stopped midway.
func (t *trw) backward() (float64, bool) {
	var lb float64
	for i := t.n - 1; i >= 0; i-- {
		if i%checkEvery == 0 && i > 0 && t.stopped() {
			return 0, false
		}
		d := t.belief(i)
		lb += normalize(d)
		ki := len(d)
		h := t.h[:ki]
		g := t.gamma[i]
		for _, e := range t.in[t.inStart[i]:t.inStart[i+1]] {
			kk := t.card[t.p.Edges[e].I]
			rev := t.msg[t.foff[e] : t.foff[e]+ki]
			for b := range h {
				h[b] = g*d[b] - rev[b]
			}
			m := t.msg[t.boff[e] : t.boff[e]+kk]
			if t.potts[e] {
				t.sendPotts(e, h, m)
			} else {
				pair := t.pair[t.poff[e]:t.poff[e+1]]
				for a := range m {
					row := pair[a*ki : (a+1)*ki]
					h := h[:len(row)]
					v := math.Inf(1)
					for b, c := range row {
						v = min(v, h[b]+c)
					}
					m[a] = v
				}
			}
			lb += normalize(m)
		}
	}
	return lb, true
}

// sendPotts sets m(b) = min_a h(a) + theta_e(a, b) for a Potts edge in O(k):
// min(h(b) + diag, min_{a != b} h(a) + off), the latter from the two
// smallest entries of h.
func (t *trw) sendPotts(e int, h, m []float64) {
	h = h[:len(m)]
	lo, lo2, arg := math.Inf(1), math.Inf(1), -1
	for a, v := range h {
		if v < lo {
			lo, lo2, arg = v, lo, a
		} else if v < lo2 {
			lo2 = v
		}
	}
	dg, off := t.pottsDiag[e], t.pottsOff[e]
	for b := range m {
		o := lo
		if b == arg {
			o = lo2
		}
		m[b] = min(h[b]+dg, o+off)
	}
}

// decode sets x sequentially: x_i minimizes, first, the number of forbidden
// entries used with the decoded x_k, k < i, then theta_i(a) + sum_{k < i}
// theta_ki(x_k, a) + sum_{j > i} M_{j->i}(a).
func (t *trw) decode(x []int) {
	p := t.p
	for i := 0; i < t.n; i++ {
		ki := t.card[i]
		d, ban := t.d[:ki], t.ban[:ki]
		copy(d, t.theta[t.uoff[i]:t.uoff[i+1]])
		u := &p.Unary[i]
		for a := range ban {
			ban[a] = 0
			if u.IsForbidden(a) {
				ban[a] = 1
			}
		}
		for _, e := range t.in[t.inStart[i]:t.inStart[i+1]] {
			ed := &p.Edges[e]
			base := x[ed.I] * ki
			addTo(d, t.pair[t.poff[e]+base:t.poff[e]+base+ki])
			if ed.Forbidden != nil {
				for a := range ban {
					if ed.Forbidden[base+a] {
						ban[a]++
					}
				}
			}
		}
		for _, e := range t.out[t.outStart[i]:t.outStart[i+1]] {
			addTo(d, t.msg[t.boff[e]:t.boff[e]+ki])
		}
		best := 0
		for a := 1; a < ki; a++ {
			if ban[a] < ban[best] || (ban[a] == ban[best] && d[a] < d[best]) {
				best = a
			}
		}
		x[i] = best
	}
}

// isPotts reports whether the ki x kj table c is square with equal diagonal
// entries and equal off-diagonal entries, and returns them.
func isPotts(c []float64, ki, kj int) (bool, float64, float64) {
	if ki != kj {
		return false, 0, 0
	}
	dg, off := c[0], c[0]
	if ki > 1 {
		off = c[1]
	}
	for k, v := range c {
		if (k/kj == k%kj && v != dg) || (k/kj != k%kj && v != off) {
			return false, 0, 0
		}
	}
	return true, dg, off
}

func addTo(dst, src []float64) {
	dst = dst[:len(src)]
	for k, v := range src {
		dst[k] += v
	}
}

// normalize subtracts the minimum of v from every entry and returns it.
func normalize(v []float64) float64 {
	mn := v[0]
	for _, x := range v[1:] {
		mn = min(mn, x)
	}
	for k := range v {
		v[k] -= mn
	}
	return mn
}
