package lns

import (
	"math/rand/v2"

	"github.com/sdrmap/sdrmap/model"
)

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
