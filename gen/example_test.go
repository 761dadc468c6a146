package gen_test

import (
	"fmt"

	"github.com/sdrmap/sdrmap/gen"
)

// Generate an ORIENT instance (Z_m synchronization on a random graph) with
// its planted assignment.
func ExampleOrient() {
	m, planted := gen.Orient(20, 4, 3, 0, 1)
	fmt.Println(m.NumVars(), "variables,", len(m.Card), "of 4 states:", m.Card[0] == 4)
	fmt.Println("planted assignment of", len(planted), "values, shift invariant:", m.ShiftInvariant())
	// Output:
	// 20 variables, 20 of 4 states: true
	// planted assignment of 20 values, shift invariant: true
}

// Generate a 3-label Potts grid: unary terms and one factor per grid edge.
func ExamplePottsGrid() {
	m := gen.PottsGrid(4, 5, 3, 1, 1)
	st := m.Stats()
	fmt.Println(st.Variables, "variables,", st.Edges, "edges")
	// Output: 20 variables, 31 edges
}
