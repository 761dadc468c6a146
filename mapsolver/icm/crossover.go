package icm

import "github.com/sdrmap/sdrmap/model"

// Crossover gives x the better parts of y (partition crossover): the
// variables where they differ split into connected components, and no edge
// joins two of them (a neighbour outside every component has the same
// state in both), so each component's change to y's states alters the
// energy by its own amount. x takes every component whose change lowers
// (forbidden entries used, energy) in the order of Improve: the best of
// all the 2^k combinations of the k components (package lns recombines
// the same way on the original model). It returns how many it took.
func (t *Trees) Crossover(x, y []int) int {
	n := len(x)
	comp := make([]int32, n) // 0: x and y agree; else the component's number + 1
	var queue []int
	taken := 0
	for s := range n {
		if x[s] == y[s] || comp[s] != 0 {
			continue
		}
		queue = append(queue[:0], s)
		comp[s] = int32(s + 1)
		for h := 0; h < len(queue); h++ {
			for _, nb := range t.adj[queue[h]] {
				if u := nb.Var; x[u] != y[u] && comp[u] == 0 {
					comp[u] = int32(s + 1)
					queue = append(queue, u)
				}
			}
		}
		if dc, dw := t.change(x, y, comp, queue); dc < 0 || dc == 0 && dw < 0 {
			for _, v := range queue {
				x[v] = y[v]
			}
			taken++
		}
	}
	return taken
}

// change returns the change in (forbidden entries, energy) when the
// variables of one component (block, marked in comp) take y's states in x.
func (t *Trees) change(x, y []int, comp []int32, block []int) (int32, float64) {
	p := t.p
	var dc int32
	dw := 0.0
	add := func(tab *model.Table, old, new int) {
		switch fo, fn := tab.IsForbidden(old), tab.IsForbidden(new); {
		case fo && fn:
		case fo:
			dc--
			dw -= tab.Log[new]
		case fn:
			dc++
			dw += tab.Log[old]
		default:
			dw += tab.Log[old] - tab.Log[new]
		}
	}
	id := comp[block[0]]
	for _, v := range block {
		add(&p.Unary[v], x[v], y[v])
		for _, nb := range t.adj[v] {
			u := nb.Var
			yu := x[u]
			if comp[u] == id {
				if u < v {
					continue // counted from u
				}
				yu = y[u]
			}
			ed := &p.Edges[nb.Edge]
			if ed.I == v {
				add(&ed.Table, x[v]*p.Card[ed.J]+x[u], y[v]*p.Card[ed.J]+yu)
			} else {
				add(&ed.Table, x[u]*p.Card[ed.J]+x[v], yu*p.Card[ed.J]+y[v])
			}
		}
	}
	return dc, dw
}
