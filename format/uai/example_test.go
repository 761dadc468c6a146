package uai_test

import (
	"fmt"
	"log"
	"os"

	"github.com/sdrmap/sdrmap/format/uai"
)

// Read a UAI model (compressed files are read as they are) and print its
// sizes.
func ExampleReadModelFile() {
	m, err := uai.ReadModelFile("../../testdata/uai2008_pdb1akg.uai.xz")
	if err != nil {
		log.Fatal(err)
	}
	st := m.Stats()
	fmt.Printf("%d variables, %d factors, cardinalities %d-%d, SDR dimension N = %d\n",
		st.Variables, st.Factors, st.MinCardinality, st.MaxCardinality, st.SDRDimension)
	// Output: 14 variables, 25 factors, cardinalities 2-18, SDR dimension N = 76
}

// Write an assignment in the UAI result format.
func ExampleWriteResult() {
	if err := uai.WriteResult(os.Stdout, []int{2, 0, 1}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// MAP
	// 3 2 0 1
}
