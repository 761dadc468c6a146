package lns

import (
	"math"
)

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
