package sdpad

import (
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/sdr"
)

// remark is the example of the paper's remark in section 2.1 (docs/relaxation.md, Small cases) in
// the maximization convention: w1 = -[2,0], w2 = -[-3,0], W12 =
// -[[0,2],[2,0]]. Minimum energy -1; without P the SDR reaches -4/3.
func remark() *model.Pairwise {
	return &model.Pairwise{
		Card:  []int{2, 2},
		Unary: []model.Table{{Log: []float64{-2, 0}}, {Log: []float64{3, 0}}},
		Edges: []model.Edge{{I: 0, J: 1, Table: model.Table{Log: []float64{0, -2, -2, 0}}}},
	}
}

// gridModel returns a side x side Potts grid (gen.PottsGrid, coupling 1).
func gridModel(r *rand.Rand, side, labels int) *model.Model {
	return gen.PottsGrid(side, side, labels, 1, r.Uint64())
}

func gridPW(r *rand.Rand, side, labels int) *model.Pairwise {
	p, err := gridModel(r, side, labels).Pairwise(nil)
	if err != nil {
		panic(err)
	}
	return p
}

// filePairwise reads the UAI file at path as a pairwise model.
func filePairwise(tb testing.TB, path string) *model.Pairwise {
	tb.Helper()
	m, err := uai.ReadModelFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	pw, err := m.Pairwise(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return pw
}

// fileProblem returns the SDR of the UAI file at path.
func fileProblem(tb testing.TB, path string) *sdr.Problem {
	tb.Helper()
	p, err := sdr.Build(filePairwise(tb, path))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
