package icm

import (
	"context"
	"math/rand/v2"

	"github.com/sdrmap/sdrmap/model"
)

// MaxBlock is the largest block that Search reassigns at random. Smaller
// blocks gave lower energies on the grids more often than not
// (bench/results/2026-11-26/NOTES.md, "Smaller blocks in the iterated
// search"): a large random block mostly lands where Improve cannot recover.
const MaxBlock = 64

// SearchSettings controls Search.
type SearchSettings struct {
	// MaxStall ends the search after that many tries in a row without a
	// lower energy; 0 means DefaultMaxStall(n).
	MaxStall int
	Seed     uint64
}

// DefaultMaxStall returns the default stall limit of Search on n
// variables: 2 n + 1000 tries.
func DefaultMaxStall(n int) int { return 2*n + 1000 }

// Search is an iterated local search around Improve: each try gives a
// connected block of variables (a breadth-first ball around a random
// variable, of size uniform in 1..min(n, MaxBlock)) random states, runs
// Improve, and keeps the result when it is better in the order of Improve
// (fewer forbidden entries, or as many and a lower energy). It stops after
// s.MaxStall tries in a row without progress or when ctx is done, and
// returns p.Energy(x) for x, changed in place, never worse than the input.
// The tries depend on s.Seed only: with the same stall limit, the same
// result.
func (t *Trees) Search(ctx context.Context, x []int, s SearchSettings) float64 {
	n := len(x)
	stall := s.MaxStall
	if stall <= 0 {
		stall = DefaultMaxStall(n)
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x11e5))
	y := make([]int, n)
	ball := make([]int, 0, MaxBlock)
	mark := make([]int, n)
	t.ImproveCtx(ctx, x)
	c, w := t.pair(x)
	for try, since := 1, 0; since < stall && ctx.Err() == nil && n > 0; try++ {
		copy(y, x)
		ball = growBall(ball[:0], t.adj, mark, rng.IntN(n), 1+rng.IntN(min(n, MaxBlock)), try)
		for _, v := range ball {
			y[v] = rng.IntN(t.p.Card[v])
		}
		t.ImproveCtx(ctx, y)
		if c1, w1 := t.pair(y); better(c1, w1, c, w) {
			copy(x, y)
			c, w, since = c1, w1, 0
		} else {
			since++
		}
	}
	return t.p.Energy(x)
}

// growBall appends to ball the first size variables of a breadth-first
// search from v (fewer if v's component is smaller), marking them with
// stamp in mark.
func growBall(ball []int, adj [][]model.Neighbor, mark []int, v, size, stamp int) []int {
	ball = append(ball, v)
	mark[v] = stamp
	for h := 0; h < len(ball) && len(ball) < size; h++ {
		for _, nb := range adj[ball[h]] {
			if mark[nb.Var] != stamp && len(ball) < size {
				mark[nb.Var] = stamp
				ball = append(ball, nb.Var)
			}
		}
	}
	return ball
}
