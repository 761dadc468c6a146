// Package driver is the SDR driver: it solves the relaxation with any
// relax.Solver, then rounds (argmax and randomized rounding, or the paper's
// iterative rounding), probes the iterates, certifies the complementary dual
// point and polishes the assignments (package local).
package driver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/sdrmap/sdrmap/certify"
	"github.com/sdrmap/sdrmap/mapsolver/icm"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/rounding"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/search/local"
	"github.com/sdrmap/sdrmap/solver"
)

// Roundings of Solve.
const (
	// RoundSample takes the argmax of the marginals and randomized
	// roundings from a factor of Xbar (rounding.Sample).
	RoundSample = "sample"
	// RoundIterative is the paper's iterative rounding (docs/relaxation.md, Iterative rounding): fix the
	// confident variables, re-solve the relaxation of the rest, repeat.
	RoundIterative = "iterative"
)

// Options configure Solve.
type Options struct {
	// The relax.Settings go to the relaxation solver, which gets 1 -
	// SearchShare of the time ctx has left.
	relax.Settings
	Rounding string // RoundSample (also "") or RoundIterative
	NoProbe  bool   // no probes (relax.Settings.Probe): the relaxation runs to its tolerance
	NoPolish bool   // no local search on the rounded assignments
	// Stage, when not nil, is told when the closing certificate and the
	// rounding start (iterations 0) and when the rounding ends, with the
	// stage's best energy and the bound so far (the closing certificate's
	// included once it is done: on two cores it runs beside the rounding).
	Stage func(stage string, iterations int, energy, bound float64)
}

// Outcome is the result of Solve.
type Outcome struct {
	Assignment []int         // in the pairwise model's numbering; nil if none
	Status     solver.Status // of the first relaxation; Interrupted when ctx ended; Infeasible when the SDR is
	Bound      float64       // certified lower bound on the energy (docs/relaxation.md, Certified bound), -Inf if none
	Iterations int           // of all relaxations
	Rounds     int           // relaxations solved
	// Complement reports that Bound is that of a dual point complementary
	// to a rounded assignment (sdr.Problem.Complement), better than the
	// iterates' own.
	Complement bool
	First      *relax.Solution // the first relaxation, over the whole model; nil if none was solved
	Dimension  int             // N of the first relaxation
}

// roundingDraws is the number of assignments drawn from the relaxation:
// the argmax of the marginals and randomized roundings (rounding.Sample).
const roundingDraws = 32

// Solve solves the SDR of p with rel and rounds its solution: by default
// argmax and randomized rounding from a factor of Xbar (rounding.Sample),
// with RoundIterative the paper's iterative rounding (docs/relaxation.md, Iterative rounding,
// iterativeRound). Unless NoPolish, the candidates are polished
// (local.Candidates); the best is kept. The relaxations get 1 - SearchShare of
// the time limit. The bound is the certified energy bound (docs/relaxation.md, Certified bound) of the
// first relaxation, the only one over the whole model: the best of its
// iterates', the solver's best dual point's after certify.Refine
// (closeBound: beside the rounding and the local search when GOMAXPROCS
// allows, else before them), and that of the point complementary to the
// best assignment (from a relaxation within complementTol, when
// complementHopeful). Unless
// NoProbe, probes round the iterate and stop the relaxation when a
// certificate proves the assignment optimal. Under a time limit at the
// default Tol, the first relaxation is asked to go on past its tolerance
// (relax.Settings.Tighten): the time it would leave unused tightens the
// bound.
func Solve(ctx context.Context, p *model.Pairwise, rel relax.Solver, o Options) (*Outcome, error) {
	if o.Rounding != "" && o.Rounding != RoundSample && o.Rounding != RoundIterative {
		return nil, fmt.Errorf("unknown rounding %q (want %s or %s)", o.Rounding, RoundSample, RoundIterative)
	}
	out := &Outcome{Bound: math.Inf(-1)}
	prob, err := sdr.Build(p)
	if errors.Is(err, sdr.ErrInfeasible) {
		out.Status = solver.Infeasible
		return out, nil
	} else if err != nil {
		return nil, err
	}
	out.Dimension = prob.N()
	start := time.Now()
	rctx, cancel := solver.Share(ctx, 1-SearchShare) // the relaxations'
	defer cancel()
	set := o.Settings
	set.Tighten = set.Tighten || set.Tol == 0 && solver.HasDeadline(rctx)
	set.RunDeadline, _ = ctx.Deadline()
	var log io.Writer // the refinement may write beside the rounding
	if o.Log != nil {
		log = &syncWriter{w: o.Log}
	}
	// certifyAt returns the bound of the dual point complementary to x,
	// certified tightly only if it can reach target (see complementBound).
	certifyAt := func(d *relax.Solution, x []int, when string, target float64) float64 {
		if e := p.Energy(x); !complementHopeful(e, d.PrimalObjective-prob.Const) {
			if log != nil {
				fmt.Fprintf(log, "no certificate at an assignment of energy %.9g (%s): the relaxation's objective %.9g is more than %g%% below it\n",
					e, when, d.PrimalObjective-prob.Const, 100*complementSlack)
			}
			return math.Inf(-1)
		}
		t0 := time.Now()
		b := complementBound(ctx, prob, d, x, target)
		if log != nil {
			fmt.Fprintf(log, "certificate at an assignment of energy %.9g (%s): bound %.9g (iterates: %.9g), %v\n",
				p.Energy(x), when, b, d.EnergyBound, time.Since(t0).Round(time.Millisecond))
		}
		return b
	}
	// A probe's bound holds for every assignment, not only its own: the
	// best is kept, and so is the best assignment of the probes.
	var probed, probeBest []int
	probeBound, probeBestE := math.Inf(-1), math.Inf(1)
	if !o.NoProbe {
		set.Probe = func(d *relax.Solution) bool {
			x, e := probeRound(prob, d, o.Seed)
			if x == nil {
				return false
			}
			if e < probeBestE {
				probeBest, probeBestE = x, e
			}
			b := certifyAt(d, x, fmt.Sprintf("probe at iteration %d", d.Iterations), e-solver.GapTol*(1+math.Abs(e)))
			probeBound = max(probeBound, b)
			if solver.Proven(e, b) {
				probed = x
				return true
			}
			return false
		}
	}
	res, err := rel.Relax(rctx, prob, set)
	if err != nil {
		return nil, err
	}
	out.First, out.Status, out.Iterations, out.Rounds = res, res.Status, res.Iterations, 1
	if !math.IsInf(res.EnergyBound, 0) && !math.IsNaN(res.EnergyBound) {
		out.Bound = res.EnergyBound
	}
	out.Complement = probeBound > out.Bound
	out.Bound = max(out.Bound, probeBound)
	if res.Status == solver.Failed {
		return out, nil
	}
	stage := func(name string, iterations int, energy float64) {
		if o.Stage != nil {
			o.Stage(name, iterations, energy, out.Bound)
		}
	}
	// The refinement of the relaxation's bound runs beside the rounding and
	// the local search when there is a core for each; on one core first,
	// with a third of the time left.
	var refined chan float64
	if probed == nil && res.BestY != nil && ctx.Err() == nil {
		stage("certificate", 0, math.Inf(1))
		relaxTime := time.Since(start)
		if runtime.GOMAXPROCS(0) > 1 {
			cctx, cancel := context.WithCancel(ctx) // ended on an early return
			defer cancel()
			refined = make(chan float64, 1)
			go func() { refined <- closeBound(cctx, prob, res, relaxTime, 1, log) }()
		} else if b := closeBound(ctx, prob, res, relaxTime, closeShare, log); b > out.Bound {
			out.Bound, out.Complement = b, false
		}
	}
	stage("rounding", 0, probeBestE)
	roundStart := time.Now()
	var cands [][]int
	switch {
	case probed != nil:
		cands = [][]int{probed}
	case o.Rounding == "" || o.Rounding == RoundSample:
		rng := rand.New(rand.NewPCG(o.Seed, 0x5d12))
		f := res.RowFactor // past the deadline: the argmax only, no eigendecomposition
		if ctx.Err() == nil {
			f = res.FactorOf
		}
		cands = rounding.SampleCtx(ctx, prob, f(), roundingDraws, rng)
	default:
		resolve := func(prob *sdr.Problem, warm *relax.Start) (*relax.Solution, error) {
			set := o.Settings
			set.Log, set.Progress, set.Start = nil, nil, warm
			if rctx.Err() != nil {
				out.Status = solver.StopStatus(rctx)
				return nil, nil
			}
			res, err := rel.Relax(rctx, prob, set)
			if err == nil {
				out.Iterations += res.Iterations
			}
			return res, err
		}
		x, rounds, err := iterativeRound(ctx, prob, res, resolve)
		if err != nil {
			return nil, err
		}
		out.Rounds += rounds
		cands = [][]int{x}
	}
	if probed == nil && probeBest != nil {
		cands = append(cands, probeBest)
	}
	var certifyBest func([]int) float64
	if res.Gap <= complementTol && res.PrimalInfeasibility <= complementTol {
		certifyBest = func(x []int) float64 { return certifyAt(res, x, "rounding", out.Bound) }
	}
	best, bestE, bound := local.Candidates(ctx, p, cands, out.Bound, certifyBest,
		local.Settings{NoPolish: o.NoPolish, Seed: o.Seed})
	if bound > out.Bound {
		out.Bound, out.Complement = bound, true
	}
	if refined != nil {
		if b := <-refined; b > out.Bound {
			out.Bound, out.Complement = b, false
		}
	}
	stage("rounding", out.Rounds, bestE)
	if ctx.Err() != nil && out.Status != solver.Failed {
		out.Status = solver.Interrupted
	}
	if log != nil {
		fmt.Fprintf(log, "rounding (%s): %d candidates, %d relaxations, best energy %.9g, %v\n",
			cmp.Or(o.Rounding, RoundSample), len(cands), out.Rounds, bestE, time.Since(roundStart).Round(time.Millisecond))
	}
	out.Assignment = best
	return out, nil
}

// probeDraws is the number of assignments a probe draws from the
// relaxation's iterate (rounding.Sample).
const probeDraws = 8

// probeRound rounds the iterate d of a probe (relax.Settings.Probe):
// probeDraws draws from its factor (rounding.Sample, seeded by seed and the
// iteration), each polished by ICM. It returns the best with its energy.
func probeRound(prob *sdr.Problem, d *relax.Solution, seed uint64) ([]int, float64) {
	rng := rand.New(rand.NewPCG(seed, uint64(d.Iterations)))
	local := icm.NewLocal(prob.Pairwise)
	var best []int
	bestE := math.Inf(1)
	for _, x := range rounding.Sample(prob, d.FactorOf(), probeDraws, rng) {
		if e := local.Improve(x); e < bestE {
			best, bestE = x, e
		}
	}
	return best, bestE
}

// complementHopeful reports whether the complement certificate of an
// assignment of energy e may prove it optimal, judged by the objective obj
// of the relaxation's iterate (an energy, about the SDR's value): it cannot
// when the SDR's value is below e, and the test allows obj an error of
// complementSlack relative to e. Each such certificate costs seconds at
// N = 10^4 (an eigensolve); on a grid, where the SDR is not tight, none
// proves anything.
func complementHopeful(e, obj float64) bool {
	return e-obj <= complementSlack*(1+math.Abs(e))
}

// complementSlack is complementHopeful's allowance for the error of the
// iterate's objective.
const complementSlack = 1e-2

// complementTol is the largest gap and primal infeasibility (docs/relaxation.md, Protocol) of a
// relaxation whose rounded assignments get the complement certificate, as
// the solvers' probes: from a farther iterate its bound is useless, and at
// large N its eigensolve can run past the time limit.
const complementTol = 0.1

// closeBound returns the bound of the best dual point of res (BestY, BestZ)
// after at most refineRounds rounds of certify.Refine (a bundle method on
// the bound over the dual point, whose eigensolves also carry on the loose
// ones of the run-time certificates: those lose n+1 times the residual),
// or -Inf. The bundle stops by itself when its model promises no gain or
// its rounds stop paying (a count of rounds and their bounds, certify.Refine).
// Without a deadline on ctx (no time limit) its budget is a count, so that
// a seed gives the same bound on any load: as many rounds as the
// relaxation took iterations (each had an eigensolve, as a round has),
// at least minRefineRounds. Under a deadline it gets refineRounds, at most
// as long as the relaxation took (relaxTime, at least minRefineTime) and
// 1/share of the time left (closeShare when the rounding and the local
// search wait for it). After a solver with a dense Xbar, whose iterates'
// bounds come from dense eigenvalues, the refined point is certified so
// too (denseBound), under a deadline with half of that time.
func closeBound(ctx context.Context, prob *sdr.Problem, res *relax.Solution, relaxTime time.Duration, share float64, log io.Writer) float64 {
	rctx, rounds := ctx, min(refineRounds, max(minRefineRounds, res.Iterations))
	if solver.HasDeadline(ctx) {
		rounds = refineRounds
		var cancel context.CancelFunc
		ctx, cancel = solver.Share(ctx, 1/share)
		defer cancel()
		left := max(relaxTime, minRefineTime)
		if dl, ok := ctx.Deadline(); ok {
			left = min(left, time.Until(dl))
		}
		ctx, cancel = context.WithTimeout(ctx, left)
		defer cancel()
		rctx = ctx
		if res.X != nil {
			rctx, cancel = context.WithTimeout(ctx, left/2)
			defer cancel()
		}
	}
	t0 := time.Now()
	ref, err := certify.Refine(rctx, prob, res.BestY, res.BestZ, rounds, certify.DefaultSettings())
	if err != nil {
		return math.Inf(-1)
	}
	bound, how := ref.Certificate.EnergyBound, "an iterative eigensolver"
	if res.X != nil && bound > res.EnergyBound {
		bound, how = denseBound(ctx, prob, ref.Y, ref.Z), "dense eigenvalues"
	}
	if log != nil {
		why := ""
		if ref.Stalled {
			why = ", stalled"
		}
		fmt.Fprintf(log, "best dual iterate refined: bound %.9g by %s (iterates: %.9g), %d of %d rounds%s, %v\n",
			bound, how, res.EnergyBound, ref.Rounds(), rounds, why, time.Since(t0).Round(time.Millisecond))
	}
	return bound
}

// denseBound returns the bound of (y, z) from the dense eigenvalues of its
// slack (sdr.Problem.Certify), or -Inf when ctx ends first: the
// eigendecomposition cannot be stopped, so it is left to finish unobserved.
func denseBound(ctx context.Context, prob *sdr.Problem, y, z []float64) float64 {
	if ctx.Err() != nil {
		return math.Inf(-1)
	}
	done := make(chan float64, 1)
	go func() {
		b := math.Inf(-1)
		if c, err := prob.Certify(y, z); err == nil {
			b = c.EnergyBound
		}
		done <- b
	}()
	select {
	case b := <-done:
		return b
	case <-ctx.Done():
		return math.Inf(-1)
	}
}

// refineRounds caps the rounds of certify.Refine in closeBound, and
// minRefineRounds is the least it gets without a time limit; minRefineTime
// is the least time it gets under one (within the limit).
const (
	refineRounds    = 100
	minRefineRounds = 10
	minRefineTime   = 2 * time.Second
)

// closeShare: closeBound gets at most 1/closeShare of the time left when
// the rounding waits for it.
const closeShare = 3

// syncWriter serializes the writes of the refinement and the rounding to
// the log.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// SearchShare is the share of the time limit kept for rounding and the
// local search after the relaxations (which get the rest); sdrmap's cyclic
// method keeps it too.
const SearchShare = 0.2

// complementBound returns the certified energy bound (docs/relaxation.md, Certified bound) of the dual
// point complementary to the assignment x (sdr.Problem.Complement), made
// from the relaxation's dual point of the best bound and, unless that
// proves x optimal, from its last one: from the dense eigenvalues of the
// slack when the solver formed Xbar, else from LOBPCG on the face
// (certify.Face). When the relaxation is tight at x and the iterate near a
// solution, it proves x optimal long before the iterates' own bounds do. A
// point whose loose eigensolve shows that its bound stays below target (a
// probe: what proves x optimal; after the rounding: the bound so far) is
// not certified to full accuracy, nor past the end of ctx. -Inf when it
// cannot be computed.
func complementBound(ctx context.Context, prob *sdr.Problem, res *relax.Solution, x []int, target float64) float64 {
	bound, e := math.Inf(-1), prob.Pairwise.Energy(x)
	for _, dual := range [][2][]float64{{res.BestY, res.BestZ}, {res.Y, res.Z}} {
		if dual[0] == nil || solver.Proven(e, bound) {
			continue
		}
		y, z, err := prob.Complement(dual[0], dual[1], x)
		if err != nil {
			return bound
		}
		var c sdr.Certificate
		if res.X != nil {
			c, err = prob.Certify(y, z)
		} else if v, perr := prob.Point(x); perr != nil {
			err = perr
		} else {
			c, _, err = certify.Face(ctx, prob, y, z, v, target, certify.DefaultSettings())
		}
		if err == nil {
			bound = max(bound, c.EnergyBound)
		}
	}
	return bound
}

// iterativeRound is the paper's rounding (docs/relaxation.md, Iterative rounding): after each relaxation,
// fix every variable with a marginal above rounding.TMax and the one with
// the largest marginal (rounding.Fix), fold the fixed variables into their
// neighbours (model.Pairwise with evidence, constants kept), solve the
// relaxation of what is left with resolve, warm-started from the last
// solution restricted to the free variables (sdr.Problem.Transfer), and
// repeat until every variable is fixed. When resolve fails, returns nil
// (no time left) or the conditioned model has no feasible relaxation, the
// free variables take the argmax of the last marginals. res is the
// solution of prob; the assignment is in prob.Pairwise's numbering, and
// the count is that of the relaxations solved.
func iterativeRound(ctx context.Context, prob *sdr.Problem, res *relax.Solution, resolve func(*sdr.Problem, *relax.Start) (*relax.Solution, error)) ([]int, int, error) {
	p := prob.Pairwise
	x := make([]int, p.NumVars())
	ids := make([]int, p.NumVars()) // variable of cur -> variable of p
	for i := range ids {
		x[i], ids[i] = -1, i
	}
	cur, marg, rounds := p, res.Marginals, 0
	margIDs := ids // variables of the problem marg belongs to
	for ctx.Err() == nil {
		ev := rounding.Fix(marg, rounding.TMax)
		for _, o := range ev {
			x[ids[o.Var]] = o.Value
		}
		next, err := cur.Model().Pairwise(ev)
		if err != nil {
			break // the fixed values clash: finish by argmax
		}
		nextIDs := make([]int, next.NumVars())
		for j, v := range next.Orig {
			nextIDs[j] = ids[v]
		}
		cur, ids = next, nextIDs
		if cur.NumVars() == 0 {
			return x, rounds, nil
		}
		nextProb, err := sdr.Build(cur)
		if errors.Is(err, sdr.ErrInfeasible) {
			break
		} else if err != nil {
			return nil, rounds, err
		}
		start := &relax.Start{Penalty: res.Penalty}
		start.Y, start.Z, start.Factor = nextProb.Transfer(prob, res.Y, res.Z, res.FactorOf())
		res, err = resolve(nextProb, start)
		if err != nil {
			return nil, rounds, err
		}
		if res == nil || res.Status == solver.Failed {
			break
		}
		prob, marg, margIDs = nextProb, res.Marginals, ids
		rounds++
	}
	for i, v := range margIDs {
		if x[v] < 0 {
			x[v] = rounding.Argmax(marg[i])
		}
	}
	return x, rounds, nil
}
