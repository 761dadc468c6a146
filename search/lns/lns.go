// Package lns improves a feasible assignment of a discrete model of any
// arity by large-neighbourhood search with exact block moves.
//
// A move picks a random free variable, grows a connected block B of up to k
// variables around it (each step adds a random variable of the frontier;
// variables that share a factor are neighbours) and minimizes the energy
// over x_B with the other variables fixed, exactly, by depth-first branch
// and bound:
//
//   - bound: for every factor touching B, a table built once per move gives
//     its least energy over the entries consistent with the outside
//     variables and with any subset of the block variables assigned (an
//     unassigned variable is one more digit; size prod(c_i + 1), linear in
//     the factor's sub-table for small arity; a factor of high arity keeps
//     its sub-table and counts its minimum until it is complete). A
//     forbidden entry is +Inf. The bound of a node is the sum over the
//     factors; each unassigned variable keeps the row of bound increases of
//     its values, refreshed when a neighbour is assigned (forward checking);
//   - branching: the unassigned variable with the fewest values whose bound
//     stays below the incumbent (fail first: forced and dead variables come
//     first), ties by a static order that completes factors early; values
//     by increasing bound;
//   - incumbent: the current x_B, so a move never worsens; a node limit
//     stops the search with the best block assignment found.
//
// A strictly better block is accepted. Otherwise, with probability
// walkProb, a walk move takes the first block assignment found (values in
// random order) whose energy stays within walkSlack of the best energy of
// the search, which lets it cross plateaus and low ridges. The block size
// starts at DefaultMinBlock and grows by half after about two sweeps
// without a new best, up to Settings.MaxBlock, then starts again.
//
// Improve runs a population of such searches from the input, round robin.
// After each round, and whenever a search gets below it, the best
// assignment x takes the better parts of a search (partition crossover):
// each connected component of the variables where they differ is an
// independent change, copied if it lowers the energy, else used as the
// block of an exact move (where two good assignments disagree is where
// improvements hide). A search without a new best of its own for
// restartAfter moves restarts from the input, for diversity.
//
// A move costs time linear in the tables of the block's factors plus the
// search; a recombination is linear in the model.
//
// sdrmap.Solve runs it on the original model after a conversion from higher
// order or a feasibility repair. Its defaults were tuned on tb2_pedigree9
// alone (TestMeasure, LNS_MEASURE=1; bench/results/2026-11-23/NOTES.md).
// A block search checks the time
// limit every stopEvery+1 nodes: one search on a dense model can take
// seconds.
package lns

import (
	"context"
	"math"

	"github.com/sdrmap/sdrmap/model"
)

// Defaults used for the zero fields of Settings.
const (
	DefaultMaxBlock   = 60     // largest block size
	DefaultMinBlock   = 8      // first (and smallest) block size
	DefaultMaxNodes   = 20_000 // node limit of one block search
	DefaultPopulation = 4      // searches run side by side
)

// Tuning constants, set on tb2_pedigree9 (see lns_test.go, TestMeasure).
const (
	walkProb     = 0.2    // probability of a walk move after a failed move
	walkSlack    = 1.0    // energy a walk may lose relative to the search's best
	roundMoves   = 1000   // moves of each search between recombinations
	restartAfter = 30_000 // moves without a new best of a search before it restarts
	maxExtRatio  = 64     // largest size of a bound table relative to its sub-table
	stopEvery    = 255    // a block search checks the time limit when nodes&stopEvery == 0
)

// Settings controls Improve. The zero value is usable.
type Settings struct {
	// Seed drives every random choice; a run is deterministic for a given
	// model, start, clamp and seed (up to the time limit and ctx).
	Seed uint64
	// MaxBlock is the largest block size; 0 means DefaultMaxBlock.
	MaxBlock int
	// MaxNodes is the node limit of one block's branch and bound; 0 means
	// DefaultMaxNodes.
	MaxNodes int
	// MaxStall stops the search after this many moves (all searches
	// together) without improving x; 0 means 2n+1000 (n: number of
	// variables), a negative value means no limit.
	MaxStall int
	// Population is the number of searches run side by side and recombined;
	// 0 means DefaultPopulation.
	Population int
	// OnImprove, if not nil, is called with the new energy whenever x
	// improves (kept by adding differences: it may differ from m.Energy(x)
	// by rounding). x holds the improved assignment during the call and
	// must not be changed.
	OnImprove func(energy float64)
}

// Improve lowers m.Energy(x) by exact block moves. x is a full assignment in
// m's numbering, of finite energy, and is changed in place; a variable v with
// clamp[v] >= 0 is never changed (clamp nil: none). It returns m.Energy(x),
// never above the energy of the input; an input of infinite energy is
// returned unchanged. It stops when ctx is done (its deadline is the time
// limit) or after Settings.MaxStall moves without improvement.
func Improve(ctx context.Context, m *model.Model, x []int, clamp []int, s Settings) float64 {
	e0 := m.Energy(x)
	if math.IsInf(e0, 1) || ctx.Err() != nil {
		return e0
	}
	maxStall := s.MaxStall
	if maxStall == 0 {
		maxStall = 2*m.NumVars() + 1000
	}
	pop := s.Population
	if pop <= 0 {
		pop = DefaultPopulation
	}
	stop := func() bool {
		return ctx.Err() != nil
	}
	x0 := append([]int(nil), x...)
	elite := newBlocker(m, x, clamp, s, 0, nil) // recombines into x
	if len(elite.free) == 0 {
		return e0
	}
	elite.stop = stop
	var ss []*search
	for i := range pop {
		b := newBlocker(m, append([]int(nil), x...), clamp, s, uint64(i)+1, elite)
		b.stop = stop
		ss = append(ss, &search{b: b, energy: e0, best: e0, k: min(DefaultMinBlock, b.maxBlock)})
	}
	bestE := e0
	stall, moves := 0, 0 // stall: moves since x last improved
	// take recombines y into x.
	take := func(y []int) {
		if d := elite.recombine(y); d < 0 {
			bestE += d
			stall = 0
			if s.OnImprove != nil {
				s.OnImprove(bestE)
			}
		}
	}
loop:
	for {
		for _, sr := range ss {
			for range roundMoves {
				if maxStall >= 0 && stall >= maxStall {
					break loop
				}
				if stop() {
					break loop
				}
				moves++
				stall++
				sr.step()
				if sr.energy < bestE-tol(bestE) { // ahead of x
					take(sr.b.x)
				}
			}
		}
		for _, sr := range ss {
			take(sr.b.x)
			if sr.stall >= restartAfter {
				copy(sr.b.x, x0)
				sr.energy, sr.best, sr.stall, sr.stallK = e0, e0, 0, 0
				sr.k = min(DefaultMinBlock, sr.b.maxBlock)
			}
		}
	}
	e := m.Energy(x)
	if e > e0 { // rounding could only make a tie look like a gain
		copy(x, x0)
		return e0
	}
	return e
}

// search is one local search of the population.
type search struct {
	b            *blocker
	energy, best float64 // energy of b.x, and the best it has had
	k            int     // block size
	stallK       int     // moves without a new best at this block size
	stall        int     // moves without a new best
}

// step makes one move.
func (sr *search) step() {
	b := sr.b
	slack := -1.0
	if b.rng.Float64() < walkProb {
		slack = max(0, sr.best+walkSlack-sr.energy)
	}
	sr.energy += b.move(sr.k, slack)
	sr.stall++
	if sr.energy < sr.best-tol(sr.best) {
		sr.best = sr.energy
		sr.stallK, sr.stall = 0, 0
		return
	}
	// Grow k after about two sweeps of the free variables in vain.
	if sr.stallK++; sr.stallK >= max(20, 2*len(b.free)/sr.k) {
		sr.stallK = 0
		if sr.k == b.maxBlock {
			sr.k = min(DefaultMinBlock, b.maxBlock)
		} else {
			sr.k = min(b.maxBlock, sr.k+(sr.k+1)/2)
		}
	}
}
