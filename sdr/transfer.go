package sdr

import "gonum.org/v1/gonum/mat"

// Transfer maps an iterate of parent (multipliers y, z and a factor f of
// Xbar, N x c) to p, the relaxation of parent's model conditioned on some of
// its variables: p.Pairwise's source variables are parent.Pairwise's, so
// variable i of p is variable p.Pairwise.Orig[i] of parent. Rows of f and
// multipliers of the constraints p shares with parent are copied (row 0,
// E0, and E1, E2, E3 of the free variables, E4 and P of the edges between
// them); what p has and parent has not (a pair forbidden in p only) starts
// at 0. The result is a warm start for p's solvers, not an iterate of p:
// the fixed variables' terms have moved into p's cost.
func (p *Problem) Transfer(parent *Problem, y, z []float64, f *mat.Dense) (py, pz []float64, pf *mat.Dense) {
	// state[i][a]: parent's reduced number of p's reduced state a of i.
	state := make([][]int, len(p.Card))
	for i, st := range p.States {
		v := p.Pairwise.Orig[i]
		inv := make(map[int]int, len(parent.States[v]))
		for pa, s := range parent.States[v] {
			inv[s] = pa
		}
		state[i] = make([]int, len(st))
		for a, s := range st {
			pa, ok := inv[s]
			if !ok {
				pa = -1
			}
			state[i][a] = pa
		}
	}
	py, pz = make([]float64, p.Y.Len), make([]float64, p.NumZ)
	py[0] = y[0]
	_, c := f.Dims()
	pf = mat.NewDense(p.N(), c, nil)
	pf.SetRow(0, f.RawRowView(0))
	for i, m := range p.Card {
		v := p.Pairwise.Orig[i]
		py[p.IndexE1(i)] = y[parent.IndexE1(v)]
		for a, pa := range state[i] {
			if pa < 0 {
				continue
			}
			py[p.IndexE2(i, a)] = y[parent.IndexE2(v, pa)]
			pf.SetRow(p.Offset[i]+a, f.RawRowView(parent.Offset[v]+pa))
			for b := a + 1; b < m; b++ {
				if pb := state[i][b]; pb >= 0 {
					py[p.IndexE3(i, a, b)] = y[parent.IndexE3(v, min(pa, pb), max(pa, pb))]
				}
			}
		}
	}
	edges := make(map[[2]int]int, len(parent.Edges))
	for e := range parent.Edges {
		edges[[2]int{parent.Edges[e].I, parent.Edges[e].J}] = e
	}
	var yAt, zAt []int
	for e := range p.Edges {
		ed := &p.Edges[e]
		vi, vj := p.Pairwise.Orig[ed.I], p.Pairwise.Orig[ed.J]
		pe, ok := edges[[2]int{vi, vj}]
		if !ok {
			continue
		}
		// Positions of the parent edge's entries in y (E4) and z (P).
		par := &parent.Edges[pe]
		pm := parent.Card[vj]
		size := parent.Card[vi] * pm
		yAt, zAt = yAt[:0], zAt[:0]
		ky, kz := par.Y4, par.Z
		for k := range size {
			if par.Forbidden != nil && par.Forbidden[k] {
				yAt, zAt = append(yAt, ky), append(zAt, -1)
				ky++
			} else {
				yAt, zAt = append(yAt, -1), append(zAt, kz)
				kz++
			}
		}
		mj := p.Card[ed.J]
		ky, kz = ed.Y4, ed.Z
		for a, pa := range state[ed.I] {
			for b, pb := range state[ed.J] {
				k := -1
				if pa >= 0 && pb >= 0 {
					k = pa*pm + pb
				}
				if ed.Forbidden != nil && ed.Forbidden[a*mj+b] {
					if k >= 0 && yAt[k] >= 0 {
						py[ky] = y[yAt[k]]
					}
					ky++
				} else {
					if k >= 0 && zAt[k] >= 0 {
						pz[kz] = z[zAt[k]]
					}
					kz++
				}
			}
		}
	}
	return py, pz, pf
}
