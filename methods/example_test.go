package methods_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"slices"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/solver"
)

// A new method is one registration: here every variable takes its best
// unary state (no bound). sdrmap.Solve then runs it by its name, with
// presolve, postsolve and the report around it.
func ExampleRegister() {
	methods.Register(methods.New("best-unary", "the best unary state of every variable", false,
		func(_ context.Context, in *methods.Input, _ *methods.Run) (*methods.Outcome, error) {
			x := make([]int, in.Pairwise.NumVars())
			for i, u := range in.Pairwise.Unary {
				x[i] = slices.Index(u.Log, slices.Min(u.Log))
			}
			return &methods.Outcome{Assignment: x, Status: solver.Solved, Bound: math.Inf(-1)}, nil
		}))
	res, err := sdrmap.Solve(context.Background(), gen.PottsGrid(3, 3, 2, 1, 1), sdrmap.Settings{Solver: "best-unary"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Solver, res.Termination, res.Answer, len(res.Assignment))
	// Output: best-unary converged feasible 9
}
