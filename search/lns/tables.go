package lns

import (
	"math"
)

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
