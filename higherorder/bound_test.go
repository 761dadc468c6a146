package higherorder

import (
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
)

// TestSizeBound checks the bound against the sizes of the converted models,
// with every encoding, on random higher-order models.
func TestSizeBound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	for trial := range 300 {
		m := randmodel.New(r, randmodel.Options{Vars: 3 + r.IntN(4), MaxCard: 4, Factors: 1 + r.IntN(4), MaxArity: 4, Forbidden: 0.3})
		entries, n := SizeBound(m)
		for _, enc := range []Encoding{EncodeAuto, EncodeJoint, EncodeSplit} {
			conv, _, err := Convert(m, Settings{Encoding: enc})
			if err != nil {
				continue // infeasible
			}
			var got int64
			for _, f := range conv.Factors {
				got += int64(len(f.Log))
			}
			if got > entries || int64(model.SDRDimension(conv.Card)) > n {
				t.Fatalf("trial %d, encoding %v: %d entries, N %d; bound %d, %d", trial, enc, got, model.SDRDimension(conv.Card), entries, n)
			}
		}
	}
}
