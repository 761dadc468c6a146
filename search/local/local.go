// Package local runs the local searches of the pipeline: the polish of
// rounded candidates (ICM, tree-block moves, iterated search), the polish of
// an assignment of an original model through its pairwise view, and the
// large-neighbourhood search. The moves are those of solver/icm and
// solver/lns.
package local

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/sdrmap/sdrmap/mapsolver/icm"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/search/lns"
	"github.com/sdrmap/sdrmap/solver"
)

// Settings of the searches.
type Settings struct {
	NoPolish bool // Candidates: only pick the best
	Seed     uint64
	Log      io.Writer // LNS: a summary line
	// Progress (LNS), if set, gets the number of improvements and the best
	// energy every progressEvery, from another goroutine.
	Progress func(improvements int, energy float64)
}

// treeCandidates is the number of rounded assignments, the best after ICM,
// that the tree-block search (icm.Trees) polishes further.
const treeCandidates = 4

// searchRounds is the number of iterated local searches (each until it
// stalls) when the run has a time limit, which still stops them: a user who
// gives a budget wants it used. They take the treeCandidates best
// assignments in turn, each continuing where it stopped.
const searchRounds = 12

// Candidates polishes every candidate assignment of p by ICM (only while
// ctx lasts: past a deadline every step is late) and the best
// treeCandidates of them by tree-block moves, gives the best the better
// parts of every other candidate (partition crossover, icm.Trees.Crossover;
// then tree-block moves), then runs the iterated local search
// (icm.Trees.Search) from the best until it stalls; when ctx has a
// deadline (a time limit the user wants used) searchRounds of them, each followed by a crossover of the best with the
// other treeCandidates, until ctx is done or bound proves the best optimal
// (bench/results/2026-11-26/NOTES.md, "Partition crossover of the
// rounded candidates"). After each stage that improves the best,
// certify (nil: none) may raise bound with a certificate at the best, first
// right after ICM. It returns the best with its energy and the bound; with s.NoPolish,
// it only picks the best and certifies it. The candidates are changed in
// place.
func Candidates(ctx context.Context, p *model.Pairwise, cands [][]int, bound float64, certify func([]int) float64, s Settings) ([]int, float64, float64) {
	if len(cands) == 0 {
		return nil, math.Inf(1), bound
	}
	es := make([]float64, len(cands))
	certified := math.Inf(1) // energy of the last assignment certified
	check := func(k int) {
		if certify != nil && es[k] < certified && !solver.Proven(es[k], bound) && ctx.Err() == nil {
			certified = es[k]
			bound = max(bound, certify(cands[k]))
		}
	}
	ls := icm.NewLocal(p)
	for k, x := range cands {
		if s.NoPolish || ctx.Err() != nil {
			es[k] = p.Energy(x)
		} else {
			es[k] = ls.Improve(x)
		}
	}
	order := make([]int, len(cands))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(es[a], es[b]) })
	check(order[0])
	if s.NoPolish {
		return cands[order[0]], es[order[0]], bound
	}
	trees := icm.NewTreesCtx(ctx, p)
	top := order[:min(treeCandidates, len(order))]
	for _, k := range top {
		es[k] = trees.ImproveCtx(ctx, cands[k])
	}
	slices.SortStableFunc(top, func(a, b int) int { return cmp.Compare(es[a], es[b]) })
	rounds := 1
	if solver.HasDeadline(ctx) {
		rounds = searchRounds
	}
	// cross gives the best the better parts of others and polishes it.
	cross := func(others []int) {
		b, took := top[0], 0
		for _, k := range others {
			if k != b {
				took += trees.Crossover(cands[b], cands[k])
			}
		}
		if took > 0 {
			es[b] = trees.ImproveCtx(ctx, cands[b])
		}
	}
	cross(order)
	check(top[0])
	for k := 0; k < rounds && ctx.Err() == nil && !solver.Proven(es[top[0]], bound); k++ {
		c := top[k%len(top)]
		es[c] = trees.Search(ctx, cands[c], icm.SearchSettings{Seed: s.Seed + uint64(k)})
		slices.SortStableFunc(top, func(a, b int) int { return cmp.Compare(es[a], es[b]) })
		cross(top)
	}
	check(top[0])
	return cands[top[0]], es[top[0]], bound
}

// Polish alternates single-variable moves on the original model m
// (icm.ImproveModel) and tree-block moves on its pairwise view p (icm.Trees,
// reached through forth and back) until neither lowers the energy of x. x,
// a full assignment of m of finite energy, is changed in place; Polish
// returns m.Energy(x).
func Polish(ctx context.Context, m *model.Model, p *model.Pairwise, clamp []int, back, forth func([]int) []int, x []int) float64 {
	e := icm.ImproveModel(m, x, clamp)
	trees := icm.NewTreesCtx(ctx, p)
	for ctx.Err() == nil {
		y := p.Restrict(forth(x))
		trees.ImproveCtx(ctx, y)
		z := back(p.Expand(y))
		ez := icm.ImproveModel(m, z, clamp)
		if !(ez < e) {
			break
		}
		copy(x, z)
		e = ez
	}
	return e
}

// LNS runs the large-neighbourhood search with exact block moves (package
// lns) on x, of energy e: when pctx has a deadline until it ends or
// bound proves x optimal, else until it stalls. It returns the energy of x.
// s.Progress, if set, is called every progressEvery from another goroutine.
func LNS(pctx context.Context, m *model.Model, clamp, x []int, e, bound float64, s Settings) float64 {
	if pctx.Err() != nil || solver.Proven(e, bound) {
		return e
	}
	ctx, cancel := context.WithCancel(pctx)
	defer cancel()
	var mu sync.Mutex
	best, gains := e, 0
	set := lns.Settings{Seed: s.Seed, OnImprove: func(e float64) {
		mu.Lock()
		best, gains = e, gains+1
		mu.Unlock()
		if solver.Proven(e, bound) {
			cancel()
		}
	}}
	if solver.HasDeadline(pctx) {
		set.MaxStall = -1
	}
	var wg sync.WaitGroup
	if s.Progress != nil {
		wg.Go(func() {
			tick := time.NewTicker(progressEvery)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					mu.Lock()
					g, b := gains, best
					mu.Unlock()
					s.Progress(g, b)
				}
			}
		})
	}
	t0, e0 := time.Now(), e
	e = lns.Improve(ctx, m, x, clamp, set)
	cancel()
	wg.Wait()
	if s.Log != nil {
		fmt.Fprintf(s.Log, "large-neighbourhood search: energy %.9g -> %.9g in %v, %d improvements\n", e0, e, time.Since(t0).Round(time.Millisecond), gains)
	}
	return e
}

// progressEvery is the interval of the progress calls of the
// large-neighbourhood search.
const progressEvery = 250 * time.Millisecond
