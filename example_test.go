package sdrmap_test

import (
	"context"
	"fmt"
	"log"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/format/uai"
)

// Solve a UAI model with the low-rank SDR solver: the certified bound shows
// that the assignment found is optimal to within the gap.
func ExampleSolve() {
	m, err := uai.ReadModelFile("testdata/uai2008_pdb1akg.uai.xz")
	if err != nil {
		log.Fatal(err)
	}
	res, err := sdrmap.Solve(context.Background(), m, sdrmap.Settings{Solver: "sdpad-lr", Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("answer %v (stopped: %v), energy %.6f, gap below 1e-4: %v\n", res.Answer, res.Termination, res.Energy, res.Gap < 1e-4)
	// Output: answer optimal (stopped: converged), energy 6.048465, gap below 1e-4: true
}
