package lns

import (
	"math"
)

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
