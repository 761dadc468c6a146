package model_test

import (
	"fmt"
	"math"

	"github.com/sdrmap/sdrmap/model"
)

// The energy of an assignment is -sum ln phi over the factors; a forbidden
// entry (phi = 0) makes it +Inf.
func ExampleModel_Energy() {
	t := model.Table{Log: []float64{0, math.Log(3), math.Log(3), 0}}
	t.Forbid(3) // x0 = 1, x1 = 1 is impossible
	m := &model.Model{Card: []int{2, 2}, Factors: []model.Factor{{Scope: []int{0, 1}, Table: t}}}
	fmt.Printf("%.4f\n", m.Energy([]int{0, 1}))
	fmt.Println(m.Energy([]int{1, 1}))
	// Output:
	// -1.0986
	// +Inf
}

// The pairwise view is what the solvers consume: evidence is applied and
// unary and pairwise tables are merged per variable and edge.
func ExampleModel_Pairwise() {
	m := &model.Model{Card: []int{2, 3, 2}, Factors: []model.Factor{
		{Scope: []int{0, 1}, Table: model.Table{Log: make([]float64, 6)}},
		{Scope: []int{1, 2}, Table: model.Table{Log: make([]float64, 6)}},
	}}
	p, err := m.Pairwise(model.Evidence{{Var: 2, Value: 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.NumVars(), "free variables,", len(p.Edges), "edge")
	// Output: 2 free variables, 1 edge
}
