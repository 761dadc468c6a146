package sdpad

import (
	"math/rand/v2"

	"sdrmap/model"
)

// remark is the example of the paper's remark in section 2.1 (spec §10) in
// the maximization convention: w1 = -[2,0], w2 = -[-3,0], W12 =
// -[[0,2],[2,0]]. Minimum energy -1; without P the SDR reaches -4/3.
func remark() *model.Pairwise {
	return &model.Pairwise{
		Card:  []int{2, 2},
		Unary: []model.Table{{Log: []float64{-2, 0}}, {Log: []float64{3, 0}}},
		Edges: []model.Edge{{I: 0, J: 1, Table: model.Table{Log: []float64{0, -2, -2, 0}}}},
	}
}

// gridModel returns a side x side Potts grid: random normal unaries (log
// space) and log phi = 1 on equal labels of neighbours, 0 otherwise.
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

func gridPW(r *rand.Rand, side, labels int) *model.Pairwise {
	p, err := gridModel(r, side, labels).Pairwise(nil)
	if err != nil {
		panic(err)
	}
	return p
}
