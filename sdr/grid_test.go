package sdr

import (
	"math/rand/v2"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/model"
)

// gridModel returns a side x side Potts grid (gen.PottsGrid, coupling 1).
func gridModel(r *rand.Rand, side, labels int) *model.Model {
	return gen.PottsGrid(side, side, labels, 1, r.Uint64())
}
