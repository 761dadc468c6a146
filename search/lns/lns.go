// Package lns improves a feasible assignment of a discrete model of any
// arity by large-neighbourhood search with exact block moves.
//
// A move picks a random free variable, grows a connected block B of up to k
// variables around it (each step adds a random variable of the frontier;
// variables that share a factor are neighbours) and minimizes the energy
// over x_B with the other variables fixed, exactly, by depth-first branch
// and bound:
//
//   - bound: for every factor touching B, a table built once per move gives
//     its least energy over the entries consistent with the outside
//     variables and with any subset of the block variables assigned (an
//     unassigned variable is one more digit; size prod(c_i + 1), linear in
//     the factor's sub-table for small arity; a factor of high arity keeps
//     its sub-table and counts its minimum until it is complete). A
//     forbidden entry is +Inf. The bound of a node is the sum over the
//     factors; each unassigned variable keeps the row of bound increases of
//     its values, refreshed when a neighbour is assigned (forward checking);
//   - branching: the unassigned variable with the fewest values whose bound
//     stays below the incumbent (fail first: forced and dead variables come
//     first), ties by a static order that completes factors early; values
//     by increasing bound;
//   - incumbent: the current x_B, so a move never worsens; a node limit
//     stops the search with the best block assignment found.
//
// A strictly better block is accepted. Otherwise, with probability
// walkProb, a walk move takes the first block assignment found (values in
// random order) whose energy stays within walkSlack of the best energy of
// the search, which lets it cross plateaus and low ridges. The block size
// starts at DefaultMinBlock and grows by half after about two sweeps
// without a new best, up to Settings.MaxBlock, then starts again.
//
// Improve runs a population of such searches from the input, round robin.
// After each round, and whenever a search gets below it, the best
// assignment x takes the better parts of a search (partition crossover):
// each connected component of the variables where they differ is an
// independent change, copied if it lowers the energy, else used as the
// block of an exact move (where two good assignments disagree is where
// improvements hide). A search without a new best of its own for
// restartAfter moves restarts from the input, for diversity.
//
// A move costs time linear in the tables of the block's factors plus the
// search; a recombination is linear in the model.
//
// sdrmap.Solve runs it on the original model after a conversion from higher
// order or a feasibility repair. Its defaults were tuned on tb2_pedigree9
// alone (TestMeasure, LNS_MEASURE=1), where it reached the optimum 282.997
// in 8 of 9 seeds within 60 s on one core. A block search checks the time
// limit every stopEvery+1 nodes: one search on a dense model can take
// seconds.
package lns

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/sdrmap/sdrmap/model"
)

// Defaults used for the zero fields of Settings.
const (
	DefaultMaxBlock   = 60     // largest block size
	DefaultMinBlock   = 8      // first (and smallest) block size
	DefaultMaxNodes   = 20_000 // node limit of one block search
	DefaultPopulation = 4      // searches run side by side
)

// Tuning constants, set on tb2_pedigree9 (see lns_test.go, TestMeasure).
const (
	walkProb     = 0.2    // probability of a walk move after a failed move
	walkSlack    = 1.0    // energy a walk may lose relative to the search's best
	roundMoves   = 1000   // moves of each search between recombinations
	restartAfter = 30_000 // moves without a new best of a search before it restarts
	maxExtRatio  = 64     // largest size of a bound table relative to its sub-table
	stopEvery    = 255    // a block search checks the time limit when nodes&stopEvery == 0
)

// Settings controls Improve. The zero value is usable.
type Settings struct {
	// Seed drives every random choice; a run is deterministic for a given
	// model, start, clamp and seed (up to the time limit and ctx).
	Seed uint64
	// MaxBlock is the largest block size; 0 means DefaultMaxBlock.
	MaxBlock int
	// MaxNodes is the node limit of one block's branch and bound; 0 means
	// DefaultMaxNodes.
	MaxNodes int
	// MaxStall stops the search after this many moves (all searches
	// together) without improving x; 0 means 2n+1000 (n: number of
	// variables), a negative value means no limit.
	MaxStall int
	// TimeLimit stops the search; 0 means none.
	TimeLimit time.Duration
	// Population is the number of searches run side by side and recombined;
	// 0 means DefaultPopulation.
	Population int
	// OnImprove, if not nil, is called with the new energy whenever x
	// improves (kept by adding differences: it may differ from m.Energy(x)
	// by rounding). x holds the improved assignment during the call and
	// must not be changed.
	OnImprove func(energy float64)
}

// Improve lowers m.Energy(x) by exact block moves. x is a full assignment in
// m's numbering, of finite energy, and is changed in place; a variable v with
// clamp[v] >= 0 is never changed (clamp nil: none). It returns m.Energy(x),
// never above the energy of the input; an input of infinite energy is
// returned unchanged. It stops when ctx is done, at the time limit, or after
// Settings.MaxStall moves without improvement.
func Improve(ctx context.Context, m *model.Model, x []int, clamp []int, s Settings) float64 {
	e0 := m.Energy(x)
	if math.IsInf(e0, 1) || ctx.Err() != nil {
		return e0
	}
	var deadline time.Time
	if s.TimeLimit > 0 {
		deadline = time.Now().Add(s.TimeLimit)
	}
	maxStall := s.MaxStall
	if maxStall == 0 {
		maxStall = 2*m.NumVars() + 1000
	}
	pop := s.Population
	if pop <= 0 {
		pop = DefaultPopulation
	}
	stop := func() bool {
		return ctx.Err() != nil || !deadline.IsZero() && time.Now().After(deadline)
	}
	x0 := append([]int(nil), x...)
	elite := newBlocker(m, x, clamp, s, 0, nil) // recombines into x
	if len(elite.free) == 0 {
		return e0
	}
	elite.stop = stop
	var ss []*search
	for i := range pop {
		b := newBlocker(m, append([]int(nil), x...), clamp, s, uint64(i)+1, elite)
		b.stop = stop
		ss = append(ss, &search{b: b, energy: e0, best: e0, k: min(DefaultMinBlock, b.maxBlock)})
	}
	bestE := e0
	stall, moves := 0, 0 // stall: moves since x last improved
	// take recombines y into x.
	take := func(y []int) {
		if d := elite.recombine(y); d < 0 {
			bestE += d
			stall = 0
			if s.OnImprove != nil {
				s.OnImprove(bestE)
			}
		}
	}
loop:
	for {
		for _, sr := range ss {
			for range roundMoves {
				if maxStall >= 0 && stall >= maxStall {
					break loop
				}
				if stop() {
					break loop
				}
				moves++
				stall++
				sr.step()
				if sr.energy < bestE-tol(bestE) { // ahead of x
					take(sr.b.x)
				}
			}
		}
		for _, sr := range ss {
			take(sr.b.x)
			if sr.stall >= restartAfter {
				copy(sr.b.x, x0)
				sr.energy, sr.best, sr.stall, sr.stallK = e0, e0, 0, 0
				sr.k = min(DefaultMinBlock, sr.b.maxBlock)
			}
		}
	}
	e := m.Energy(x)
	if e > e0 { // rounding could only make a tie look like a gain
		copy(x, x0)
		return e0
	}
	return e
}

// search is one local search of the population.
type search struct {
	b            *blocker
	energy, best float64 // energy of b.x, and the best it has had
	k            int     // block size
	stallK       int     // moves without a new best at this block size
	stall        int     // moves without a new best
}

// step makes one move.
func (sr *search) step() {
	b := sr.b
	slack := -1.0
	if b.rng.Float64() < walkProb {
		slack = max(0, sr.best+walkSlack-sr.energy)
	}
	sr.energy += b.move(sr.k, slack)
	sr.stall++
	if sr.energy < sr.best-tol(sr.best) {
		sr.best = sr.energy
		sr.stallK, sr.stall = 0, 0
		return
	}
	// Grow k after about two sweeps of the free variables in vain.
	if sr.stallK++; sr.stallK >= max(20, 2*len(b.free)/sr.k) {
		sr.stallK = 0
		if sr.k == b.maxBlock {
			sr.k = min(DefaultMinBlock, b.maxBlock)
		} else {
			sr.k = min(b.maxBlock, sr.k+(sr.k+1)/2)
		}
	}
}

// blocker holds the model's adjacency, one assignment x and the scratch of
// the block moves on it.
type blocker struct {
	m        *model.Model
	x        []int
	clamp    []int
	rng      *rand.Rand
	maxBlock int
	maxNodes int
	stop     func() bool // ends block searches early (with the best found) when true; nil: never

	byVar  [][]int32 // factors of each variable
	stride [][]int   // per factor and scope position: the table stride
	free   []int32   // variables that may change

	// Marks: x[i] == epoch (or cgen) means set in the current generation.
	epoch uint32
	vmark []uint32 // v seen by the block growth
	inB   []uint32 // v in the block, at position pos[v]
	pos   []int32
	fmark []uint32 // factor collected by prepare or recombine
	omark []uint32 // fleft[f] set by order
	fleft []int32  // per factor: its block variables not yet ordered
	cgen  uint32
	cmark []uint32 // v in a component of recombine

	// The block and its search.
	block []int32   // block variables, by position
	front []int32   // growth frontier; factor list of recombine
	comp  []int32   // component of recombine
	score []int32   // order: per position
	done  []bool    // order: per position
	tmpB  []int32   // order: the block before
	facs  []bfac    // the factors touching the block
	tab   []float64 // their bound tables
	occ   [][]occ   // per position: its factors
	row   [][]float64
	set   []bool  // per position: assigned in the search
	unset []int32 // the unassigned positions
	at    []int32 // per position: its index in unset
	stack []frame
	lb    []float64 // per depth: the bound
	best  []int32   // per position: the best block assignment found
	val   []int32   // per position: the search's current value
	dig   []int
	old   []int32
	walk  bool // search: random value order
}

// bfac is a factor touching the block, with the table that bounds it.
//
// Normally the table has one entry per joint state of the factor's block
// variables in which each may also be "unassigned" (digit c for a variable
// of cardinality c): the least energy of the factor over its entries
// consistent with the outside variables and the assigned block variables
// (+Inf for a forbidden entry, or when every completion is forbidden). When
// that table would exceed maxExtRatio times the factor's sub-table (high
// arity), the factor is flat: it keeps its sub-table and bounds itself by
// the sub-table's minimum until all its block variables are assigned.
type bfac struct {
	vars []int32 // block positions of its block variables, in scope order
	st   []int   // their strides in the table
	off  int     // offset of the table in tab
	idx  int     // current index (flat: unassigned variables count as 0)
	flat bool
	left int     // flat: unassigned block variables
	min  float64 // flat: least entry
}

// occ is a factor of a block variable: its slot in facs and the variable's
// stride in the factor's table.
type occ struct {
	s  int32
	st int32
}

// frame is a depth of the search: the variable branched on, the value
// being tried, the candidate values and the next one to try.
type frame struct {
	p    int32
	a    int32
	next int
	cand []int32
}

// newBlocker prepares moves on x; stream selects the random stream of the
// seed. The adjacency is built once and shared with like (nil: none).
func newBlocker(m *model.Model, x, clamp []int, s Settings, stream uint64, like *blocker) *blocker {
	n := m.NumVars()
	b := &blocker{
		m: m, x: x, clamp: clamp,
		rng:      rand.New(rand.NewPCG(s.Seed, 0x6c6e735f6c6e73+stream)),
		maxBlock: s.MaxBlock,
		maxNodes: s.MaxNodes,
		vmark:    make([]uint32, n),
		inB:      make([]uint32, n),
		pos:      make([]int32, n),
		fmark:    make([]uint32, len(m.Factors)),
		omark:    make([]uint32, len(m.Factors)),
		fleft:    make([]int32, len(m.Factors)),
		cmark:    make([]uint32, n),
	}
	if b.maxBlock <= 0 {
		b.maxBlock = DefaultMaxBlock
	}
	if b.maxNodes <= 0 {
		b.maxNodes = DefaultMaxNodes
	}
	if like != nil {
		b.byVar, b.stride, b.free = like.byVar, like.stride, like.free
		return b
	}
	b.byVar = make([][]int32, n)
	b.stride = make([][]int, len(m.Factors))
	for fi := range m.Factors {
		f := &m.Factors[fi]
		st := make([]int, len(f.Scope))
		w := 1
		for p := len(f.Scope) - 1; p >= 0; p-- {
			st[p] = w
			w *= m.Card[f.Scope[p]]
			b.byVar[f.Scope[p]] = append(b.byVar[f.Scope[p]], int32(fi))
		}
		b.stride[fi] = st
	}
	for v := range n {
		if b.movable(v) {
			b.free = append(b.free, int32(v))
		}
	}
	return b
}

// movable reports whether v may change: not clamped, more than one state.
func (b *blocker) movable(v int) bool {
	return (b.clamp == nil || b.clamp[v] < 0) && b.m.Card[v] > 1
}

// nextEpoch starts a new generation of the marks vmark, inB, fmark, omark.
func (b *blocker) nextEpoch() {
	if b.epoch++; b.epoch == 0 { // wrapped: clear the marks
		clear(b.vmark)
		clear(b.inB)
		clear(b.fmark)
		clear(b.omark)
		b.epoch = 1
	}
}

// setBlock makes vars (distinct movable variables) the block.
func (b *blocker) setBlock(vars []int32) {
	b.nextEpoch()
	b.block = append(b.block[:0], vars...)
	for i, v := range b.block {
		b.inB[v] = b.epoch
		b.pos[v] = int32(i)
	}
}

// grow makes the block up to k connected movable variables around a random
// free one: each step adds a random variable of the frontier.
func (b *blocker) grow(k int) {
	b.nextEpoch()
	ep := b.epoch
	b.block = b.block[:0]
	v0 := b.free[b.rng.IntN(len(b.free))]
	b.vmark[v0] = ep
	b.front = append(b.front[:0], v0)
	for len(b.block) < k && len(b.front) > 0 {
		i := b.rng.IntN(len(b.front))
		v := b.front[i]
		b.front[i] = b.front[len(b.front)-1]
		b.front = b.front[:len(b.front)-1]
		b.inB[v] = ep
		b.pos[v] = int32(len(b.block))
		b.block = append(b.block, v)
		for _, fi := range b.byVar[v] {
			for _, u := range b.m.Factors[fi].Scope {
				if b.vmark[u] != ep && b.movable(u) {
					b.vmark[u] = ep
					b.front = append(b.front, int32(u))
				}
			}
		}
	}
}

// order sorts the block greedily (the static order that breaks the ties of
// the branching): first block[0], then always the variable that completes
// the most factors (all their block variables ordered), ties broken by the
// number of factors it shares with the ordered variables, then by position.
func (b *blocker) order() {
	ep := b.epoch
	nb := len(b.block)
	if cap(b.score) < nb {
		b.score = make([]int32, nb)
		b.done = make([]bool, nb)
	}
	score, done := b.score[:nb], b.done[:nb]
	clear(score)
	clear(done)
	for _, v := range b.block {
		for _, fi := range b.byVar[v] {
			if b.omark[fi] != ep {
				b.omark[fi] = ep
				b.fleft[fi] = 0
			}
			b.fleft[fi]++
		}
	}
	const complete = 1 << 16
	out := b.tmpB[:0]
	next := 0
	for {
		v := b.block[next]
		done[next] = true
		out = append(out, v)
		if len(out) == nb {
			break
		}
		for _, fi := range b.byVar[v] {
			b.fleft[fi]--
			left := b.fleft[fi]
			for _, u := range b.m.Factors[fi].Scope {
				if b.inB[u] != ep || done[b.pos[u]] {
					continue
				}
				score[b.pos[u]]++
				if left == 1 {
					score[b.pos[u]] += complete
				}
			}
		}
		next = -1
		for i := range nb {
			if !done[i] && (next < 0 || score[i] > score[next]) {
				next = i
			}
		}
	}
	b.tmpB = b.block
	b.block = out
	for i, v := range out {
		b.pos[v] = int32(i)
	}
}

// prepare collects the factors touching the block and builds their bound
// tables, the rows of the block variables and the unassigned list.
func (b *blocker) prepare() {
	m, ep := b.m, b.epoch
	nb := len(b.block)
	b.facs = b.facs[:0]
	b.tab = b.tab[:0]
	for len(b.occ) < nb {
		b.occ = append(b.occ, nil)
		b.row = append(b.row, nil)
	}
	for p := range nb {
		b.occ[p] = b.occ[p][:0]
	}
	for _, v := range b.block {
		for _, fi := range b.byVar[v] {
			if b.fmark[fi] == ep {
				continue
			}
			b.fmark[fi] = ep
			b.addFactor(int(fi))
		}
	}
	if cap(b.set) < nb {
		b.set = make([]bool, nb)
		b.at = make([]int32, nb)
		b.best = make([]int32, nb)
		b.val = make([]int32, nb)
		b.lb = make([]float64, nb+1)
		b.stack = make([]frame, nb)
	}
	b.set = b.set[:nb]
	b.unset = b.unset[:0]
	for p := range nb {
		b.set[p] = false
		b.at[p] = int32(p)
		b.unset = append(b.unset, int32(p))
		c := m.Card[b.block[p]]
		if cap(b.row[p]) < c {
			b.row[p] = make([]float64, c)
		}
		b.row[p] = b.row[p][:c]
		b.computeRow(int32(p))
	}
}

// addFactor appends factor fi to facs with its bound table.
func (b *blocker) addFactor(fi int) {
	m, ep := b.m, b.epoch
	f := &m.Factors[fi]
	ms := b.stride[fi]
	slot := int32(len(b.facs))
	if len(b.facs) < cap(b.facs) { // reuse the slices of an earlier move
		b.facs = b.facs[:len(b.facs)+1]
	} else {
		b.facs = append(b.facs, bfac{})
	}
	bf := &b.facs[slot]
	*bf = bfac{vars: bf.vars[:0], st: bf.st[:0], off: len(b.tab)}
	base := 0
	sub, ext := 1, 1
	for p, u := range f.Scope {
		if b.inB[u] == ep {
			bf.vars = append(bf.vars, b.pos[u])
			sub *= m.Card[u]
			ext *= m.Card[u] + 1
		} else {
			base += ms[p] * b.x[u]
		}
	}
	r := len(bf.vars)
	bf.flat = ext > maxExtRatio*sub
	radix := func(i int) int {
		c := m.Card[b.block[bf.vars[i]]]
		if bf.flat {
			return c
		}
		return c + 1
	}
	size := sub
	if !bf.flat {
		size = ext
	}
	bf.st = append(bf.st, make([]int, r)...)
	w := 1
	for i := r - 1; i >= 0; i-- {
		bf.st[i] = w
		w *= radix(i)
	}
	// The model strides of the block variables.
	bms := b.dig[:0]
	for p, u := range f.Scope {
		if b.inB[u] == ep {
			bms = append(bms, ms[p])
		}
	}
	dig := append(bms, make([]int, r)...) // dig[r:]: the current digits
	b.dig = dig
	d := dig[r:]
	for range size {
		b.tab = append(b.tab, 0)
	}
	t := b.tab[bf.off:]
	for e := range size {
		// Entry e: with an "unassigned" digit j, it is the minimum over
		// the values of digit j, entries of smaller index.
		j := -1
		k := base
		for i := range r {
			if c := m.Card[b.block[bf.vars[i]]]; d[i] == c {
				j = i
			} else {
				k += d[i] * bms[i]
			}
		}
		if j < 0 {
			if f.IsForbidden(k) {
				t[e] = math.Inf(1)
			} else {
				t[e] = -f.Log[k]
			}
		} else {
			c := d[j]
			mn := math.Inf(1)
			for a := range c {
				mn = min(mn, t[e-(c-a)*bf.st[j]])
			}
			t[e] = mn
		}
		for i := r - 1; i >= 0; i-- {
			if d[i]++; d[i] < radix(i) {
				break
			}
			d[i] = 0
		}
	}
	if bf.flat {
		bf.left = r
		bf.min = math.Inf(1)
		for _, v := range t[:size] {
			bf.min = min(bf.min, v)
		}
	} else {
		for i, p := range bf.vars { // all unassigned
			bf.idx += m.Card[b.block[p]] * bf.st[i]
		}
	}
	for i, p := range bf.vars {
		b.occ[p] = append(b.occ[p], occ{slot, int32(bf.st[i])})
	}
}

// value is the current bound of a factor.
func (b *blocker) value(bf *bfac) float64 {
	if bf.flat && bf.left > 0 {
		return bf.min
	}
	return b.tab[bf.off+bf.idx]
}

// computeRow sets row[p][a] to the bound increase of assigning a to the
// unassigned block position p.
func (b *blocker) computeRow(p int32) {
	row := b.row[p]
	clear(row)
	c := len(row)
	for _, o := range b.occ[p] {
		bf := &b.facs[o.s]
		st := int(o.st)
		if bf.flat {
			if bf.left == 1 {
				t := b.tab[bf.off+bf.idx:]
				for a := range c {
					row[a] += t[a*st] - bf.min
				}
			}
			continue
		}
		t := b.tab[bf.off:]
		cur := t[bf.idx]
		at := bf.idx - c*st // the entry of value 0
		for a := range c {
			row[a] += t[at+a*st] - cur
		}
	}
}

// assign sets (sign 1) or clears (sign -1) x_p = a in the factors' indices
// and refreshes the rows of the unassigned neighbours of p.
func (b *blocker) assign(p, a int32, sign int) {
	c := len(b.row[p])
	if sign > 0 {
		b.set[p] = true
		i := b.at[p] // swap-remove from unset
		last := b.unset[len(b.unset)-1]
		b.unset[i], b.at[last] = last, i
		b.unset = b.unset[:len(b.unset)-1]
	} else {
		b.set[p] = false
		b.at[p] = int32(len(b.unset))
		b.unset = append(b.unset, p)
	}
	for _, o := range b.occ[p] {
		bf := &b.facs[o.s]
		st := int(o.st)
		if bf.flat {
			bf.idx += sign * int(a) * st
			bf.left -= sign
		} else {
			bf.idx += sign * (int(a) - c) * st
		}
	}
	for _, o := range b.occ[p] {
		for _, q := range b.facs[o.s].vars {
			if !b.set[q] {
				b.computeRow(q)
			}
		}
	}
}

// choose picks the branching variable of depth d: the unassigned variable
// with the fewest values whose bound stays below thr (fail first), ties
// broken by block position; its candidates sorted by bound increase. It
// returns false if some variable has no such value.
func (b *blocker) choose(d int, thr float64) bool {
	lim := thr - b.lb[d]
	best, bestN := int32(-1), 0
	for _, q := range b.unset {
		n := 0
		for _, r := range b.row[q] {
			if r < lim {
				n++
			}
		}
		if n == 0 {
			return false
		}
		if best < 0 || n < bestN || n == bestN && q < best {
			best, bestN = q, n
		}
	}
	fr := &b.stack[d]
	fr.p, fr.next = best, 0
	row := b.row[best]
	cand := fr.cand[:0]
	for a, r := range row {
		if r < lim {
			cand = append(cand, int32(a))
		}
	}
	if b.walk {
		b.rng.Shuffle(len(cand), func(i, j int) { cand[i], cand[j] = cand[j], cand[i] })
	} else if len(cand) > 1 { // random order among ties
		rotate(cand, b.rng.IntN(len(cand)))
		for i := 1; i < len(cand); i++ {
			for j := i; j > 0 && row[cand[j]] < row[cand[j-1]]; j-- {
				cand[j], cand[j-1] = cand[j-1], cand[j]
			}
		}
	}
	fr.cand = cand
	return true
}

// move makes one block move of size up to k on x and returns the energy
// change (<= 0 unless slack > 0); see solve.
func (b *blocker) move(k int, slack float64) float64 {
	b.grow(k)
	return b.solve(slack)
}

// solve minimizes the energy over the block with the rest of x fixed and
// returns the energy change. It first looks for the best block assignment
// below the current one; if there is none and slack >= 0, it takes the
// first other block assignment found (values in random order) whose energy
// exceeds the current one by at most slack (a walk move; slack 0: a plateau
// move), if any.
func (b *blocker) solve(slack float64) float64 {
	b.order()
	b.prepare()
	cur := b.blockEnergy()
	found := b.search(cur-tol(cur), false)
	walk := !found && slack >= 0
	if walk {
		b.walk = true
		found = b.search(cur+max(slack, tol(cur)), true)
		b.walk = false
	}
	if !found {
		return 0
	}
	// Check the change with the same summation as cur, then keep it or undo.
	old := b.old[:0]
	for i, v := range b.block {
		old = append(old, int32(b.x[v]))
		b.x[v] = int(b.best[i])
	}
	b.old = old
	nw := b.blockEnergy()
	if nw < cur-tol(cur) || walk && nw <= cur+slack {
		return nw - cur
	}
	for i, v := range b.block {
		b.x[v] = int(old[i])
	}
	return 0
}

// search runs the branch and bound over the block from the state left by
// prepare: it prunes the nodes whose bound reaches thr and leaves its answer
// in b.best. Normally it looks for the least energy below thr; with first,
// it stops at the first block assignment other than the current one. It
// reports whether it found one, and leaves the state as it found it.
func (b *blocker) search(thr float64, first bool) bool {
	nb := len(b.block)
	lb := 0.0
	for i := range b.facs {
		lb += b.value(&b.facs[i])
	}
	b.lb[0] = lb
	if lb >= thr || !b.choose(0, thr) {
		return false
	}
	found := false
	nodes := 0
	d := 0
	for d >= 0 {
		fr := &b.stack[d]
		if fr.next == len(fr.cand) { // backtrack
			if d--; d >= 0 {
				b.assign(b.stack[d].p, b.stack[d].a, -1)
			}
			continue
		}
		a := fr.cand[fr.next]
		fr.next++
		nlb := b.lb[d] + b.row[fr.p][a]
		if nlb >= thr {
			if !b.walk { // candidates are sorted: the rest is no better
				fr.next = len(fr.cand)
			}
			continue
		}
		nodes++
		fr.a = a
		b.val[fr.p] = a
		b.lb[d+1] = nlb
		if d+1 == nb { // a leaf: nlb is its energy
			if !first {
				thr = nlb - tol(nlb)
				copy(b.best[:nb], b.val[:nb])
				found = true
			} else if !b.isCurrent(b.val[:nb]) {
				copy(b.best[:nb], b.val[:nb])
				found = true
				break
			}
		} else {
			b.assign(fr.p, a, 1)
			if b.choose(d+1, thr) {
				d++
			} else {
				b.assign(fr.p, a, -1)
			}
		}
		if nodes >= b.maxNodes || nodes&stopEvery == 0 && b.stop != nil && b.stop() {
			break
		}
	}
	for d--; d >= 0; d-- { // undo the assignments of the frames above
		b.assign(b.stack[d].p, b.stack[d].a, -1)
	}
	return found
}

// isCurrent reports whether val is the current assignment of the block.
func (b *blocker) isCurrent(val []int32) bool {
	for i, v := range b.block {
		if b.x[v] != int(val[i]) {
			return false
		}
	}
	return true
}

// tol is the least gain counted as an improvement of an energy e.
func tol(e float64) float64 { return 1e-9 * (1 + math.Abs(e)) }

// blockEnergy sums the energies of the block's factors at x (+Inf if one
// is at a forbidden entry), from their tables.
func (b *blocker) blockEnergy() float64 {
	e := 0.0
	for i := range b.facs {
		bf := &b.facs[i]
		k := 0
		for j, p := range bf.vars {
			k += b.x[b.block[p]] * bf.st[j]
		}
		e += b.tab[bf.off+k]
	}
	return e
}

// recombine copies into x the better parts of y (an assignment of the same
// model and clamps). Every connected component, in the factor graph, of the
// variables where x and y differ is an independent change: it is taken if
// it lowers the energy of its factors; otherwise the component becomes the
// block of an exact move. It returns the energy change (<= 0) and costs time
// linear in the model plus the moves.
func (b *blocker) recombine(y []int) float64 {
	m, x := b.m, b.x
	if b.cgen++; b.cgen == 0 {
		clear(b.cmark)
		b.cgen = 1
	}
	gen := b.cgen
	total := 0.0
	for v := range x {
		if x[v] == y[v] || b.cmark[v] == gen {
			continue
		}
		comp := append(b.comp[:0], int32(v))
		b.cmark[v] = gen
		for i := 0; i < len(comp); i++ {
			for _, fi := range b.byVar[comp[i]] {
				for _, u := range m.Factors[fi].Scope {
					if x[u] != y[u] && b.cmark[u] != gen {
						b.cmark[u] = gen
						comp = append(comp, int32(u))
					}
				}
			}
		}
		b.comp = comp
		b.nextEpoch()
		facs := b.front[:0]
		for _, u := range comp {
			for _, fi := range b.byVar[u] {
				if b.fmark[fi] != b.epoch {
					b.fmark[fi] = b.epoch
					facs = append(facs, fi)
				}
			}
		}
		b.front = facs
		before := b.factorsEnergy(facs)
		old := b.old[:0]
		for _, u := range comp {
			old = append(old, int32(x[u]))
			x[u] = y[u]
		}
		b.old = old
		if after := b.factorsEnergy(facs); after < before-tol(before) {
			total += after - before
			continue
		}
		for i, u := range comp {
			x[u] = int(old[i])
		}
		if len(comp) > 1 {
			b.setBlock(comp)
			total += b.solve(-1)
		}
	}
	return total
}

// factorsEnergy sums the energies of the factors at x (+Inf if one is at a
// forbidden entry).
func (b *blocker) factorsEnergy(facs []int32) float64 {
	e := 0.0
	for _, fi := range facs {
		f := &b.m.Factors[fi]
		k := b.m.Index(f, b.x)
		if f.IsForbidden(k) {
			return math.Inf(1)
		}
		e -= f.Log[k]
	}
	return e
}

// rotate moves the first r elements of s to its end.
func rotate(s []int32, r int) {
	if r == 0 {
		return
	}
	reverse(s[:r])
	reverse(s[r:])
	reverse(s)
}

func reverse(s []int32) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}
