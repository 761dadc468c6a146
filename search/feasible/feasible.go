// Package feasible finds an assignment of a model that uses no forbidden
// (zero-probability) entry, i.e. one of finite energy. It does not optimize
// the energy: it only looks for a feasible point, preferring the states of a
// hint, for another component to improve.
//
// The forbidden entries are read as a constraint satisfaction problem: a
// factor with at least one forbidden entry is a table constraint whose
// allowed tuples are its non-forbidden entries; a factor without forbidden
// entries constrains nothing and is ignored. The search is
//
//   - backtracking with binary branching (x_v = a, then x_v != a), domains
//     kept as bitsets with a trail for undo;
//   - generalized arc consistency (GAC-3 on the allowed-tuple lists) after
//     every decision, so every remaining value of every variable has, in
//     every constraint, a support among the current domains;
//   - variable ordering dom/wdeg (Boussemart et al. 2004): least
//     domain size / sum of the weights of the constraints that still have
//     another unfixed variable; the weight of a constraint grows by one each
//     time its revision wipes out a domain. Ties are broken at random from
//     Settings.Seed;
//   - value ordering: the hint's value first, then the others by increasing
//     "unary-ish" cost (the sum, over the factors holding the variable, of
//     the least energy of an allowed entry with that value);
//   - restarts after Luby(i) * RestartBase decisions; the weights persist
//     across restarts, and so do the refutations made at the root.
//
// Completeness. A value is removed at the root only when its refutation is
// proven (propagation or an exhausted left branch), so Infeasible is sound
// whatever the restarts. The Luby cutoffs grow without bound, so the run
// whose cutoff exceeds the size of the search tree is exhaustive; moreover,
// when the next cutoff would reach the remaining node budget
// (Settings.MaxNodes), that last run is made unbounded (limited only by the
// budget itself). Hence, given enough nodes and time, Search always ends with
// Solved or Infeasible. Settings.NoRestarts gives a single plain run.
//
// The search is deterministic for a given model, hint, clamp and seed
// (a time limit or a cancelled context can of course stop it earlier).
package feasible

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// DefaultMaxNodes is the node budget used when Settings.MaxNodes is 0.
const DefaultMaxNodes = 10_000_000

// DefaultRestartBase is the restart unit used when Settings.RestartBase is 0.
const DefaultRestartBase = 256

// Settings controls a search. The zero value is usable.
type Settings struct {
	// MaxNodes bounds the number of decisions (status MaxIterations); 0 means
	// DefaultMaxNodes, a negative value means no limit.
	MaxNodes int64
	// Seed drives the random tie-breaking of the variable ordering.
	Seed uint64
	// RestartBase is the number of decisions of a Luby unit; 0 means
	// DefaultRestartBase.
	RestartBase int64
	// NoRestarts runs a single search without restarts.
	NoRestarts bool
}

// Result is the outcome of a search.
type Result struct {
	// Status is Solved when a feasible assignment was found, Infeasible when
	// none exists (proven), else OutOfTime, Interrupted or MaxIterations.
	Status     solver.Status
	Assignment []int   // the feasible assignment (Solved only), else nil
	Energy     float64 // m.Energy(Assignment); +Inf when there is none
	Nodes      int64   // decisions (left branches) taken
	Fails      int64   // dead ends met (propagation wiped out a domain)
	Restarts   int     // restarts done
	Time       time.Duration
}

// constraint is a factor with forbidden entries, seen as a table constraint.
type constraint struct {
	scope  []int32 // variables
	soff   []int32 // offset of each position's words in the support scratch
	tuples []int32 // allowed tuples, arity values each, flat
}

// trailEntry records one domain word before a change.
type trailEntry struct {
	word    int32  // index in dom
	v       int32  // its variable
	size    int32  // size of dom(v) before the change
	oldWord uint64 // the word before the change
}

// frame is a left branch x_v = a of the search, with the trail position to
// undo it.
type frame struct {
	v, a int32
	mark int
}

type engine struct {
	m     *model.Model
	n     int
	off   []int32 // first word of dom(v)
	nw    []int32 // number of words of dom(v)
	dom   []uint64
	size  []int32
	trail []trailEntry

	cons    []constraint
	varCons [][]int32 // constraints holding v
	weight  []int64   // dom/wdeg weights
	future  []int32   // per constraint: scope variables with domain size > 1
	queue   []int32
	inQueue []bool
	supp    []uint64 // revise scratch

	order [][]int32 // per variable, values by increasing unary-ish cost
	hint  []int
	rng   *rand.Rand

	fails int64
}

// Search finds an assignment of m with no forbidden entry, preferring the
// states of hint.
//
// hint (nil: none) is a full assignment whose values are tried first; a
// negative entry means no preference for that variable. clamp (nil: none)
// fixes variable v to clamp[v] when clamp[v] >= 0, as model.Evidence.Clamps
// returns it. If hint is feasible and agrees with clamp, it is returned
// unchanged (the search follows it without a dead end).
func Search(ctx context.Context, m *model.Model, hint []int, clamp []int, s Settings) (*Result, error) {
	start := time.Now()
	n := m.NumVars()
	if hint != nil {
		if len(hint) != n {
			return nil, fmt.Errorf("feasible: hint has %d values, model has %d variables", len(hint), n)
		}
		for v, a := range hint {
			if a >= m.Card[v] {
				return nil, fmt.Errorf("feasible: hint value %d of variable %d outside 0..%d", a, v, m.Card[v]-1)
			}
		}
	}
	if clamp != nil {
		if len(clamp) != n {
			return nil, fmt.Errorf("feasible: clamp has %d values, model has %d variables", len(clamp), n)
		}
		for v, a := range clamp {
			if a >= m.Card[v] {
				return nil, fmt.Errorf("feasible: clamp value %d of variable %d outside 0..%d", a, v, m.Card[v]-1)
			}
		}
	}
	for v, c := range m.Card {
		if c < 1 {
			return nil, fmt.Errorf("feasible: variable %d has cardinality %d", v, c)
		}
	}
	for fi := range m.Factors {
		f := &m.Factors[fi]
		sz := 1
		for _, v := range f.Scope {
			if v < 0 || v >= n {
				return nil, fmt.Errorf("feasible: factor %d has variable %d, model has %d", fi, v, n)
			}
			sz *= m.Card[v]
		}
		if len(f.Log) != sz || (f.Forbidden != nil && len(f.Forbidden) != sz) {
			return nil, fmt.Errorf("feasible: factor %d has a table of %d entries, scope needs %d", fi, len(f.Log), sz)
		}
	}

	res := &Result{Energy: math.Inf(1)}
	finish := func(st solver.Status, nodes int64, e *engine, x []int) (*Result, error) {
		res.Status = st
		res.Nodes = nodes
		if e != nil {
			res.Fails = e.fails
		}
		if x != nil {
			res.Assignment = x
			res.Energy = m.Energy(x)
			if math.IsInf(res.Energy, 1) {
				return nil, fmt.Errorf("feasible: internal error: the assignment found uses a forbidden entry")
			}
		}
		res.Time = time.Since(start)
		return res, nil
	}
	if ctx.Err() != nil {
		return finish(solver.StopStatus(ctx), 0, nil, nil)
	}

	e := newEngine(m, hint, s.Seed)
	// Root: clamps, then full propagation.
	for v := range n {
		if clamp != nil && clamp[v] >= 0 {
			e.assign(int32(v), int32(clamp[v]))
		}
	}
	for c := range e.cons {
		e.push(int32(c))
	}
	for fi := range m.Factors { // a forbidden empty-scope factor
		if f := &m.Factors[fi]; len(f.Scope) == 0 && f.IsForbidden(0) {
			return finish(solver.Infeasible, 0, e, nil)
		}
	}
	if !e.propagate() {
		return finish(solver.Infeasible, 0, e, nil)
	}

	maxNodes := s.MaxNodes
	if maxNodes == 0 {
		maxNodes = DefaultMaxNodes
	}
	base := s.RestartBase
	if base <= 0 {
		base = DefaultRestartBase
	}
	var nodes, runNodes int64
	lubyIndex := 1
	nextCutoff := func() int64 {
		if s.NoRestarts {
			return math.MaxInt64
		}
		c := base * luby(lubyIndex)
		lubyIndex++
		if c <= 0 || (maxNodes > 0 && nodes+c >= maxNodes) {
			return math.MaxInt64 // last run: unbounded but for the budget
		}
		return c
	}
	cutoff := nextCutoff()
	var frames []frame
	for {
		if nodes&63 == 0 {
			if ctx.Err() != nil {
				return finish(solver.StopStatus(ctx), nodes, e, nil)
			}
		}
		if maxNodes > 0 && nodes >= maxNodes {
			return finish(solver.MaxIterations, nodes, e, nil)
		}
		if runNodes >= cutoff {
			if len(frames) > 0 {
				e.undo(frames[0].mark)
				frames = frames[:0]
			}
			res.Restarts++
			runNodes = 0
			cutoff = nextCutoff()
		}
		v := e.selectVar()
		if v < 0 {
			return finish(solver.Solved, nodes, e, e.solution())
		}
		a := e.selectValue(v)
		frames = append(frames, frame{v, a, len(e.trail)})
		nodes++
		runNodes++
		e.assign(v, a)
		e.pushVar(v, -1)
		ok := e.propagate()
		for !ok {
			if len(frames) == 0 {
				return finish(solver.Infeasible, nodes, e, nil)
			}
			fr := frames[len(frames)-1]
			frames = frames[:len(frames)-1]
			e.undo(fr.mark)
			// Right branch: x_v != a, a deduction at the parent's level.
			e.remove(fr.v, fr.a)
			e.pushVar(fr.v, -1)
			ok = e.propagate()
		}
	}
}

// luby returns the i-th term (i >= 1) of the Luby sequence 1 1 2 1 1 2 4 ...
func luby(i int) int64 {
	for {
		k := bits.Len(uint(i)) // 2^(k-1) <= i < 2^k
		if i == 1<<k-1 {
			return 1 << (k - 1)
		}
		i -= 1<<(k-1) - 1
	}
}

func newEngine(m *model.Model, hint []int, seed uint64) *engine {
	n := m.NumVars()
	e := &engine{m: m, n: n, hint: hint, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	e.off = make([]int32, n)
	e.nw = make([]int32, n)
	e.size = make([]int32, n)
	words := 0
	for v, c := range m.Card {
		e.off[v] = int32(words)
		e.nw[v] = int32((c + 63) / 64)
		e.size[v] = int32(c)
		words += int(e.nw[v])
	}
	e.dom = make([]uint64, words)
	for v, c := range m.Card {
		for a := range c {
			e.dom[int(e.off[v])+a>>6] |= 1 << (a & 63)
		}
	}

	// Unary-ish cost and the constraints.
	cost := make([][]float64, n)
	for v, c := range m.Card {
		cost[v] = make([]float64, c)
	}
	e.varCons = make([][]int32, n)
	digits := make([]int, 0, 8)
	minE := make([][]float64, 0, 8)
	maxSupp := 0
	for fi := range m.Factors {
		f := &m.Factors[fi]
		r := len(f.Scope)
		if r == 0 {
			continue
		}
		digits = digits[:0]
		minE = minE[:0]
		for _, v := range f.Scope {
			digits = append(digits, 0)
			row := make([]float64, m.Card[v])
			for a := range row {
				row[a] = math.Inf(1)
			}
			minE = append(minE, row)
		}
		hasForbidden := f.ForbiddenCount() > 0
		var c constraint
		if hasForbidden {
			c.scope = make([]int32, r)
			c.soff = make([]int32, r)
			ns := 0
			for p, v := range f.Scope {
				c.scope[p] = int32(v)
				c.soff[p] = int32(ns)
				ns += int(e.nw[v])
			}
			maxSupp = max(maxSupp, ns)
		}
		for k := range f.Log {
			if !f.IsForbidden(k) {
				en := -f.Log[k]
				for p := range r {
					if en < minE[p][digits[p]] {
						minE[p][digits[p]] = en
					}
					if hasForbidden {
						c.tuples = append(c.tuples, int32(digits[p]))
					}
				}
			}
			// Next index: last scope variable fastest.
			for p := r - 1; p >= 0; p-- {
				digits[p]++
				if digits[p] < m.Card[f.Scope[p]] {
					break
				}
				digits[p] = 0
			}
		}
		for p, v := range f.Scope {
			for a := range m.Card[v] {
				cost[v][a] += minE[p][a]
			}
		}
		if hasForbidden {
			ci := int32(len(e.cons))
			e.cons = append(e.cons, c)
			for _, v := range f.Scope {
				e.varCons[v] = append(e.varCons[v], ci)
			}
		}
	}
	e.supp = make([]uint64, maxSupp)
	e.weight = make([]int64, len(e.cons))
	e.future = make([]int32, len(e.cons))
	e.inQueue = make([]bool, len(e.cons))
	for ci := range e.cons {
		e.weight[ci] = 1
		for _, v := range e.cons[ci].scope {
			if e.size[v] > 1 {
				e.future[ci]++
			}
		}
	}
	e.order = make([][]int32, n)
	for v, c := range m.Card {
		o := make([]int32, c)
		for a := range o {
			o[a] = int32(a)
		}
		cv := cost[v]
		slices.SortStableFunc(o, func(a, b int32) int {
			switch {
			case cv[a] < cv[b]:
				return -1
			case cv[a] > cv[b]:
				return 1
			}
			return 0
		})
		e.order[v] = o
	}
	return e
}

// setWord sets word w of dom(v) to x, recording the change on the trail.
func (e *engine) setWord(v int32, w int32, x uint64) {
	old := e.dom[w]
	if old == x {
		return
	}
	e.trail = append(e.trail, trailEntry{word: w, v: v, size: e.size[v], oldWord: old})
	e.dom[w] = x
	ns := e.size[v] - int32(bits.OnesCount64(old)) + int32(bits.OnesCount64(x))
	if e.size[v] > 1 && ns <= 1 {
		for _, c := range e.varCons[v] {
			e.future[c]--
		}
	}
	e.size[v] = ns
}

// undo restores the domains to the trail position mark.
func (e *engine) undo(mark int) {
	for i := len(e.trail) - 1; i >= mark; i-- {
		t := e.trail[i]
		e.dom[t.word] = t.oldWord
		if e.size[t.v] <= 1 && t.size > 1 {
			for _, c := range e.varCons[t.v] {
				e.future[c]++
			}
		}
		e.size[t.v] = t.size
	}
	e.trail = e.trail[:mark]
}

func (e *engine) has(v, a int32) bool {
	return e.dom[e.off[v]+a>>6]&(1<<(a&63)) != 0
}

// assign reduces dom(v) to {a} (possibly empty if a was not in it).
func (e *engine) assign(v, a int32) {
	for w := range e.nw[v] {
		var x uint64
		if w == a>>6 {
			x = e.dom[e.off[v]+w] & (1 << (a & 63))
		}
		e.setWord(v, e.off[v]+w, x)
	}
}

// remove deletes a from dom(v).
func (e *engine) remove(v, a int32) {
	w := e.off[v] + a>>6
	e.setWord(v, w, e.dom[w]&^(1<<(a&63)))
}

func (e *engine) push(c int32) {
	if !e.inQueue[c] {
		e.inQueue[c] = true
		e.queue = append(e.queue, c)
	}
}

// pushVar queues the constraints of v but skip.
func (e *engine) pushVar(v int32, skip int32) {
	for _, c := range e.varCons[v] {
		if c != skip {
			e.push(c)
		}
	}
}

// propagate runs GAC over the queued constraints; false on a wipe-out (the
// queue is then emptied and the failing constraint's weight bumped).
func (e *engine) propagate() bool {
	for len(e.queue) > 0 {
		c := e.queue[len(e.queue)-1]
		e.queue = e.queue[:len(e.queue)-1]
		e.inQueue[c] = false
		if !e.revise(c) {
			e.weight[c]++
			e.fails++
			for _, q := range e.queue {
				e.inQueue[q] = false
			}
			e.queue = e.queue[:0]
			return false
		}
	}
	return true
}

// revise makes constraint ci generalized arc consistent: it removes every
// value without a valid allowed tuple. It returns false if a domain empties.
func (e *engine) revise(ci int32) bool {
	c := &e.cons[ci]
	r := len(c.scope)
	supp := e.supp
	for p, v := range c.scope {
		clear(supp[c.soff[p] : c.soff[p]+e.nw[v]])
	}
	dom, off := e.dom, e.off
	tup := c.tuples
	for i := 0; i < len(tup); i += r {
		t := tup[i : i+r]
		valid := true
		for p, a := range t {
			if dom[off[c.scope[p]]+a>>6]&(1<<(a&63)) == 0 {
				valid = false
				break
			}
		}
		if valid {
			for p, a := range t {
				supp[c.soff[p]+a>>6] |= 1 << (a & 63)
			}
		}
	}
	for p, v := range c.scope {
		changed := false
		for w := range e.nw[v] {
			old := dom[off[v]+w]
			x := old & supp[c.soff[p]+w]
			if x != old {
				e.setWord(v, off[v]+w, x)
				changed = true
			}
		}
		if changed {
			if e.size[v] == 0 {
				return false
			}
			e.pushVar(v, ci)
		}
	}
	return true
}

// selectVar returns the variable of least dom/wdeg among those with a
// domain of size > 1 in a constraint with another such variable, ties
// broken at random; -1 if there is none (then any choice within the
// domains is feasible, by GAC).
func (e *engine) selectVar() int32 {
	best := int32(-1)
	var bs, bw int64
	ties := 0
	for v := range int32(e.n) {
		sz := int64(e.size[v])
		if sz <= 1 {
			continue
		}
		var w int64
		for _, c := range e.varCons[v] {
			if e.future[c] > 1 {
				w += e.weight[c]
			}
		}
		if w == 0 {
			continue
		}
		if best >= 0 {
			// compare sz/w with bs/bw
			l, r := sz*bw, bs*w
			if l > r {
				continue
			}
			if l == r {
				ties++
				if e.rng.IntN(ties) != 0 {
					continue
				}
			} else {
				ties = 1
			}
		} else {
			ties = 1
		}
		best, bs, bw = v, sz, w
	}
	return best
}

// selectValue returns the hint's value of v if it is in the domain, else the
// cheapest remaining value.
func (e *engine) selectValue(v int32) int32 {
	if e.hint != nil {
		if a := e.hint[v]; a >= 0 && e.has(v, int32(a)) {
			return int32(a)
		}
	}
	for _, a := range e.order[v] {
		if e.has(v, a) {
			return a
		}
	}
	panic("feasible: empty domain in selectValue")
}

// solution completes the current state: a variable of domain size 1 takes
// its value, any other its preferred value.
func (e *engine) solution() []int {
	x := make([]int, e.n)
	for v := range int32(e.n) {
		x[v] = int(e.selectValue(v))
	}
	return x
}
