package icm

import (
	"context"
	"math"

	"github.com/sdrmap/sdrmap/internal/fsum"
	"github.com/sdrmap/sdrmap/model"
)

// Trees is a block coordinate descent on induced forests ("block ICM"), set
// up once for one model and reused. Its move takes a tree T of one of its
// forests and sets x on T's variables to the exact minimizer of the energy
//
//	E(x) = -(Const + sum_i w_i(x_i) + sum_E W_ij(x_i, x_j))
//
// given the other variables: edges from T to the rest become unary terms,
// and min-sum dynamic programming on T (leaves to root, then back along the
// argmin pointers) finds the minimizer in O(sum over T's edges of
// Card_i*Card_j).
//
// The forests are induced: every edge of the model between two variables of
// a forest is one of the forest's edges, so the conditioned problem on a tree
// is exactly a tree and the move is exact. (A spanning forest of a grid
// would not do: the edges it leaves out join two variables that both move,
// and they cannot be made unary terms.) The forests are built greedily (see
// NewTrees) and together cover every edge; the trees of one forest share no
// edge, so their moves are independent.
//
// Forbidden entries are handled exactly, as in ICM: the dynamic programming
// runs over pairs (number of forbidden entries used, finite part of the
// energy) ordered lexicographically, which is exact because adding pairs
// preserves that order. A move is made only when it lowers the current pair
// of T's terms: fewer forbidden entries, or as many and a finite energy
// lower by the relative margin relEps. So the energy never increases, a
// finite-energy assignment never becomes infinite, and from an infeasible
// one a move reaches a feasible assignment whenever one exists with the
// variables outside T unchanged.
//
// A Trees is not safe for concurrent use.
type Trees struct {
	// MaxSweeps bounds the rounds of Improve (one round: every forest move,
	// then one ICM sweep); 0 means no limit (the search always terminates).
	MaxSweeps int

	p       *model.Pairwise
	adj     [][]model.Neighbor
	local   *Local
	forests []forest

	// Scratch buffers, sized for the largest forest.
	cnt  []int32   // forbidden entries used, per (vertex position, state)
	en   []float64 // finite energy, per (vertex position, state)
	bp   []int32   // argmin state of a child, per (child position, parent state)
	best []float64 // per parent state
	xr   []int     // x at the start of a round
}

// forest is an induced forest in breadth-first order: its trees one after
// the other, each with its root first, so that a parent always precedes its
// children.
type forest struct {
	verts []int32 // variables
	par   []int32 // position of the parent in verts, -1 for a root
	pedge []int32 // edge to the parent (unused for a root)
	first []bool  // verts[k] is pedge[k]'s endpoint I
	trees []int32 // trees[t]..trees[t+1] are the positions of tree t
	off   []int32 // off[k]: start of verts[k]'s states in Trees.cnt and Trees.en
	bpOff []int32 // bpOff[k]: start of the parent's states in Trees.bp
	extAt []int32 // ext[extAt[k]:extAt[k+1]]: edges of verts[k] leaving the forest
	ext   []model.Neighbor
}

// NewTrees prepares the tree moves on p. The forests are built greedily: a
// forest starts empty and the uncovered edges are visited in order; an edge
// is added with its endpoints when the variable set stays an induced forest
// (each new variable's neighbours inside lie in distinct trees, checked by
// union-find); then every other variable with an edge is added when it
// keeps the set an induced forest. The edges inside are marked covered, and
// forests are built until every edge is covered; each forest covers at least
// the first uncovered edge. A 4-connected grid gets six forests of about
// 500-600 variables each (three would do: the variables off every third
// anti-diagonal), the 21-label Segmentation_11 instance ten. Trees of a
// single variable are dropped: ICM covers them. Set-up is O(forests *
// (variables + edges)), noticeable on dense models.
func NewTrees(p *model.Pairwise) *Trees { return NewTreesCtx(context.Background(), p) }

// NewTreesCtx is NewTrees that stops adding forests when ctx ends: the
// moves then cover only some of the edges (none when ctx has ended
// already: Improve is then ICM).
func NewTreesCtx(ctx context.Context, p *model.Pairwise) *Trees {
	n := p.NumVars()
	adj := p.Adjacency()
	t := &Trees{p: p, adj: adj, local: NewLocal(p), xr: make([]int, n)}

	covered := make([]bool, len(p.Edges))
	left := len(p.Edges)
	in := make([]int32, n) // forest stamp: variable in the current forest
	uf := make([]int32, n)
	seen := make([]int, n)  // stamp: union-find root already met
	pos := make([]int32, n) // scratch for buildForest
	stampSeen := 0
	find := func(v int32) int32 {
		for uf[v] != v {
			uf[v] = uf[uf[v]]
			v = uf[v]
		}
		return v
	}
	for stamp := int32(1); left > 0 && ctx.Err() == nil; stamp++ {
		for v := range uf {
			uf[v] = int32(v)
		}
		// add puts v into the forest if its neighbours inside lie in
		// distinct trees, and reports whether it did.
		add := func(v int) bool {
			if in[v] == stamp {
				return true
			}
			stampSeen++
			for _, nb := range adj[v] {
				if in[nb.Var] != stamp {
					continue
				}
				r := find(int32(nb.Var))
				if seen[r] == stampSeen {
					return false
				}
				seen[r] = stampSeen
			}
			in[v] = stamp
			for _, nb := range adj[v] {
				if in[nb.Var] == stamp {
					uf[find(int32(nb.Var))] = find(int32(v))
				}
			}
			return true
		}
		for e := range p.Edges {
			if !covered[e] && add(p.Edges[e].I) {
				add(p.Edges[e].J)
			}
		}
		for v := range adj {
			if len(adj[v]) > 0 {
				add(v)
			}
		}
		f := buildForest(p, adj, in, stamp, pos)
		for e := range p.Edges {
			ed := &p.Edges[e]
			if !covered[e] && in[ed.I] == stamp && in[ed.J] == stamp {
				covered[e] = true
				left--
			}
		}
		t.forests = append(t.forests, f)
	}

	var ncnt, nbp int32
	for i := range t.forests {
		f := &t.forests[i]
		ncnt = max(ncnt, f.off[len(f.verts)])
		nbp = max(nbp, f.bpOff[len(f.verts)])
	}
	t.cnt = make([]int32, ncnt)
	t.en = make([]float64, ncnt)
	t.bp = make([]int32, nbp)
	mc := 0
	for _, c := range p.Card {
		mc = max(mc, c)
	}
	t.best = make([]float64, mc)
	return t
}

// buildForest lays out the forest of the variables v with in[v] == stamp in
// breadth-first order, dropping single-variable trees.
func buildForest(p *model.Pairwise, adj [][]model.Neighbor, in []int32, stamp int32, pos []int32) forest {
	size := 0
	for v := range pos {
		pos[v] = -1
		if in[v] == stamp {
			size++
		}
	}
	f := forest{
		verts: make([]int32, 0, size),
		par:   make([]int32, 0, size),
		pedge: make([]int32, 0, size),
		first: make([]bool, 0, size),
		trees: []int32{0},
	}
	for root := range adj {
		if in[root] != stamp {
			continue
		}
		if pos[root] >= 0 {
			continue
		}
		start := int32(len(f.verts))
		pos[root] = start
		f.verts = append(f.verts, int32(root))
		f.par = append(f.par, -1)
		f.pedge = append(f.pedge, -1)
		f.first = append(f.first, false)
		for k := start; k < int32(len(f.verts)); k++ {
			v := int(f.verts[k])
			for _, nb := range adj[v] {
				if in[nb.Var] != stamp {
					continue
				}
				if pos[nb.Var] >= 0 {
					continue // the parent: the forest is induced and acyclic
				}
				pos[nb.Var] = int32(len(f.verts))
				f.verts = append(f.verts, int32(nb.Var))
				f.par = append(f.par, k)
				f.pedge = append(f.pedge, int32(nb.Edge))
				f.first = append(f.first, !nb.First) // nb is seen from v, the parent
			}
		}
		if int32(len(f.verts)) == start+1 {
			f.verts, f.par, f.pedge, f.first = f.verts[:start], f.par[:start], f.pedge[:start], f.first[:start]
			continue
		}
		f.trees = append(f.trees, int32(len(f.verts)))
	}
	m := len(f.verts)
	f.off = make([]int32, m+1)
	f.bpOff = make([]int32, m+1)
	f.extAt = make([]int32, m+1)
	for k, v := range f.verts {
		f.off[k+1] = f.off[k] + int32(p.Card[v])
		f.bpOff[k+1] = f.bpOff[k]
		if f.par[k] >= 0 {
			f.bpOff[k+1] += int32(p.Card[f.verts[f.par[k]]])
		}
		for _, nb := range adj[v] {
			if in[nb.Var] != stamp {
				f.ext = append(f.ext, nb)
			}
		}
		f.extAt[k+1] = int32(len(f.ext))
	}
	return f
}

// Improve runs the tree moves and ICM on x (of length p.NumVars()) in place,
// in rounds (every tree of every forest, then an ICM sweep), until a round
// makes no move: then no tree move and no single-variable move lowers the
// energy (lexicographically in (forbidden entries used, finite energy), by
// the margin relEps). It returns p.Energy(x), never larger than at the start,
// and finite if the start is.
//
// Each round must lower (forbidden entries, energy) of the whole x, summed
// with compensation as p.Energy does; it always does in exact arithmetic, and
// if rounding in a huge tree ever made it fail, the round is undone and the
// search stops. So Improve terminates whatever the rounding.
func (t *Trees) Improve(x []int) float64 { return t.ImproveCtx(context.Background(), x) }

// ImproveCtx is Improve that stops early, with the current assignment, when
// ctx is cancelled; ctx is checked before each forest's moves and each ICM
// sweep. A nil ctx never cancels.
func (t *Trees) ImproveCtx(ctx context.Context, x []int) float64 {
	cancelled := func() bool { return ctx != nil && ctx.Err() != nil }
	c, w := t.pair(x)
	for round := 0; t.MaxSweeps == 0 || round < t.MaxSweeps; round++ {
		copy(t.xr, x)
		moves, stopped := 0, false
		for i := range t.forests {
			if stopped = cancelled(); stopped {
				break
			}
			moves += t.forestMoves(&t.forests[i], x)
		}
		if !stopped {
			if stopped = cancelled(); !stopped {
				moves += t.local.Sweep(x)
			}
		}
		if moves == 0 {
			break
		}
		c1, w1 := t.pair(x)
		if !better(c1, w1, c, w) {
			copy(x, t.xr) // only rounding can get here
			break
		}
		c, w = c1, w1
		if stopped {
			break
		}
	}
	return t.p.Energy(x)
}

// pair returns the number of forbidden entries x uses and the finite part of
// its energy, summed as in p.Energy: equal to p.Energy(x) when the count is 0.
func (t *Trees) pair(x []int) (int32, float64) {
	p := t.p
	var c int32
	var s fsum.Sum
	s.Add(p.Const)
	for i, a := range x {
		if p.Unary[i].IsForbidden(a) {
			c++
		} else {
			s.Add(p.Unary[i].Log[a])
		}
	}
	for e := range p.Edges {
		ed := &p.Edges[e]
		if k := x[ed.I]*p.Card[ed.J] + x[ed.J]; ed.IsForbidden(k) {
			c++
		} else {
			s.Add(ed.Log[k])
		}
	}
	return c, -s.Value()
}

// NumForests returns the number of forests, which together cover every edge.
func (t *Trees) NumForests() int { return len(t.forests) }

// forestMoves makes the move on every tree of f where it helps and returns
// the number of moves. The trees of an induced forest share no edge, so
// their moves are independent.
func (t *Trees) forestMoves(f *forest, x []int) int {
	moves := 0
	for k := 0; k+1 < len(f.trees); k++ {
		if t.treeMove(f, int(f.trees[k]), int(f.trees[k+1]), x) {
			moves++
		}
	}
	return moves
}

// better reports whether (c1, e1) is lexicographically below (c2, e2).
func better(c1 int32, e1 float64, c2 int32, e2 float64) bool {
	return c1 < c2 || (c1 == c2 && e1 < e2)
}

// uniform reports whether every count in c is the same.
func uniform(c []int32) bool {
	for _, v := range c {
		if v != c[0] {
			return false
		}
	}
	return true
}

// treeMove sets x on the tree at positions s..e-1 of f to its best states
// given the rest, if that is a strict improvement, and reports whether it
// moved.
func (t *Trees) treeMove(f *forest, s, e int, x []int) bool {
	p := t.p
	cnt, en, bp := t.cnt, t.en, t.bp

	// Conditioned unary pairs, and the pair of the current states.
	var curC int32
	var curE float64
	for k := s; k < e; k++ {
		v := int(f.verts[k])
		o := int(f.off[k])
		c, w := cnt[o:o+p.Card[v]], en[o:o+p.Card[v]]
		u := &p.Unary[v]
		if u.Forbidden == nil {
			for a := range c {
				c[a], w[a] = 0, -u.Log[a]
			}
		} else {
			for a := range c {
				if u.Forbidden[a] {
					c[a], w[a] = 1, 0
				} else {
					c[a], w[a] = 0, -u.Log[a]
				}
			}
		}
		for _, nb := range f.ext[f.extAt[k]:f.extAt[k+1]] {
			ed := &p.Edges[nb.Edge]
			// Entry for state a of v: base + a*stride.
			base, stride := x[nb.Var]*p.Card[ed.J], 1 // v is J: x_I*Card[J] + a
			if nb.First {
				base, stride = x[nb.Var], p.Card[ed.J] // v is I: a*Card[J] + x_J
			}
			if ed.Forbidden == nil {
				for a := range w {
					w[a] -= ed.Log[base+a*stride]
				}
			} else {
				for a := range w {
					if q := base + a*stride; ed.Forbidden[q] {
						c[a]++
					} else {
						w[a] -= ed.Log[q]
					}
				}
			}
		}
		curC += c[x[v]]
		curE += w[x[v]]
		if f.par[k] >= 0 {
			ed := &p.Edges[f.pedge[k]]
			q := x[ed.I]*p.Card[ed.J] + x[ed.J]
			if ed.IsForbidden(q) {
				curC++
			} else {
				curE -= ed.Log[q]
			}
		}
	}

	// Leaves to root: fold each child's pairs into its parent's.
	for k := e - 1; k > s; k-- {
		v := int(f.verts[k])
		pk := int(f.par[k])
		kv, kp := p.Card[v], p.Card[f.verts[pk]]
		co, po := int(f.off[k]), int(f.off[pk])
		cc, cw := cnt[co:co+kv], en[co:co+kv]
		pc, pw := cnt[po:po+kp], en[po:po+kp]
		b := bp[f.bpOff[k] : int(f.bpOff[k])+kp]
		ed := &p.Edges[f.pedge[k]]
		if c0 := cc[0]; ed.Forbidden == nil && uniform(cc) {
			// Fast path: only energies to compare.
			if !f.first[k] {
				// Child is J: row pb of the table runs over the child's states.
				for pb := 0; pb < kp; pb++ {
					bestE, bestA := math.Inf(1), 0
					for a, l := range ed.Log[pb*kv : pb*kv+kv] {
						if w := cw[a] - l; w < bestE {
							bestE, bestA = w, a
						}
					}
					pc[pb] += c0
					pw[pb] += bestE
					b[pb] = int32(bestA)
				}
			} else {
				// Child is I: row a of the table runs over the parent's states.
				best := t.best[:kp]
				for pb := range best {
					best[pb], b[pb] = math.Inf(1), 0
				}
				for a := 0; a < kv; a++ {
					wa := cw[a]
					for pb, l := range ed.Log[a*kp : a*kp+kp] {
						if w := wa - l; w < best[pb] {
							best[pb], b[pb] = w, int32(a)
						}
					}
				}
				for pb, w := range best {
					pc[pb] += c0
					pw[pb] += w
				}
			}
			continue
		}
		for pb := 0; pb < kp; pb++ {
			// Entry for child state a, parent state pb: base + a*stride.
			base, stride := pb*kv, 1 // child is J
			if f.first[k] {
				base, stride = pb, kp // child is I, parent is J
			}
			bestC, bestE, bestA := int32(math.MaxInt32), math.Inf(1), int32(0)
			if ed.Forbidden == nil {
				for a := 0; a < kv; a++ {
					c, w := cc[a], cw[a]-ed.Log[base+a*stride]
					if better(c, w, bestC, bestE) {
						bestC, bestE, bestA = c, w, int32(a)
					}
				}
			} else {
				for a := 0; a < kv; a++ {
					c, w := cc[a], cw[a]
					if q := base + a*stride; ed.Forbidden[q] {
						c++
					} else {
						w -= ed.Log[q]
					}
					if better(c, w, bestC, bestE) {
						bestC, bestE, bestA = c, w, int32(a)
					}
				}
			}
			pc[pb] += bestC
			pw[pb] += bestE
			b[pb] = bestA
		}
	}

	// Root: best state, and the test against the current pair.
	root := int(f.verts[s])
	ro := int(f.off[s])
	optC, optE, optA := int32(math.MaxInt32), math.Inf(1), 0
	for a := 0; a < p.Card[root]; a++ {
		if better(cnt[ro+a], en[ro+a], optC, optE) {
			optC, optE, optA = cnt[ro+a], en[ro+a], a
		}
	}
	if optC > curC || (optC == curC && !(optE < curE-relEps*(1+math.Abs(curE)))) {
		return false
	}
	// Root to leaves along the argmin pointers.
	x[root] = optA
	for k := s + 1; k < e; k++ {
		x[f.verts[k]] = int(bp[int(f.bpOff[k])+x[f.verts[f.par[k]]]])
	}
	return true
}
