package sdr

import (
	"math/rand/v2"

	"sdrmap/model"
)

// gridModel returns a side x side Potts grid with the given number of
// labels: random normal unaries (log space) and log phi = 1 on equal labels
// of neighbours, 0 otherwise.
func gridModel(r *rand.Rand, side, labels int) *model.Model {
	m := &model.Model{Card: make([]int, side*side)}
	for v := range m.Card {
		m.Card[v] = labels
		f := model.Factor{Scope: []int{v}, Table: model.Table{Log: make([]float64, labels)}}
		for a := range f.Log {
			f.Log[a] = r.NormFloat64()
		}
		m.Factors = append(m.Factors, f)
	}
	potts := func(u, v int) {
		f := model.Factor{Scope: []int{u, v}, Table: model.Table{Log: make([]float64, labels*labels)}}
		for a := range labels {
			f.Log[a*labels+a] = 1
		}
		m.Factors = append(m.Factors, f)
	}
	for i := range side {
		for j := range side {
			if j+1 < side {
				potts(i*side+j, i*side+j+1)
			}
			if i+1 < side {
				potts(i*side+j, (i+1)*side+j)
			}
		}
	}
	return m
}
