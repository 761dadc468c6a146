package sdrmap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/rounding"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
	"github.com/sdrmap/sdrmap/solver/icm"
	"github.com/sdrmap/sdrmap/solver/sdpad"
)

// roundingDraws is the number of assignments drawn from the relaxation:
// the argmax of the marginals and randomized roundings (rounding.Sample).
const roundingDraws = 32

func init() {
	methods["sdpad"] = func(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
		return solveSDR(ctx, p, s, r, sdpad.Solve, false)
	}
	methods["sdpad-lr"] = func(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
		return solveSDR(ctx, p, s, r, sdpad.SolveLR, true)
	}
	methods["factor"] = func(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
		return solveSDR(ctx, p, s, r, solveFactor(s), false)
	}
}

// relaxation solves the SDR of prob (sdpad.Solve, sdpad.SolveLR or
// solveFactor's adapter).
type relaxation func(ctx context.Context, prob *sdr.Problem, set sdpad.Settings) (*sdpad.Result, error)

// solveSDR solves the SDR with run (the dense SDPAD, Algorithm 1;
// SDPAD-LR, Algorithm 2, whose best dual iterate is certified again when
// recertify; the factor ALM) and rounds its solution: by default
// argmax and randomized rounding from a factor of Xbar (rounding.Sample),
// with Settings.Rounding "iterative" the paper's iterative rounding (spec
// §7, iterativeRound). Unless Settings.NoPolish, the candidates are
// polished (polishAll); the best is kept. The relaxations get 1 -
// searchShare of the time limit. The bound is the certified energy bound
// (spec §9) of the first relaxation, the only one over the whole model:
// the best of its iterates', after SDPAD-LR that iterate's again to the
// closing tolerance (the run's certificates lose n+1 times the residual of
// a loose eigensolve), and that of the point complementary to the best
// assignment.
func solveSDR(ctx context.Context, p *model.Pairwise, s *Settings, r *Result, run relaxation, recertify bool) ([]int, error) {
	if s.Rounding != "" && s.Rounding != RoundSample && s.Rounding != RoundIterative {
		return nil, fmt.Errorf("unknown rounding %q (want %s or %s)", s.Rounding, RoundSample, RoundIterative)
	}
	prob, err := sdr.Build(p)
	if errors.Is(err, sdr.ErrInfeasible) {
		r.Status = solver.Infeasible
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	start := time.Now()
	relaxLimit := time.Duration(float64(s.TimeLimit) * (1 - searchShare))
	set := sdrSettings(s, r, prob)
	set.TimeLimit = relaxLimit
	// certify returns the bound of the dual point complementary to x,
	// certified tightly only if it can reach target (see complementBound).
	certify := func(d *sdpad.Result, x []int, when string, target float64) float64 {
		t0 := time.Now()
		b := complementBound(prob, d, x, target, set)
		if s.Log != nil {
			fmt.Fprintf(s.Log, "certificate at an assignment of energy %.9g (%s): bound %.9g (iterates: %.9g), %v\n",
				p.Energy(x), when, b, d.EnergyBound, time.Since(t0).Round(time.Millisecond))
		}
		return b
	}
	// A probe's bound holds for every assignment, not only its own: the
	// best is kept, and so is the best assignment of the probes.
	var probed, probeBest []int
	probeBound, probeBestE := math.Inf(-1), math.Inf(1)
	if !s.NoProbe {
		set.Probe = func(d *sdpad.Result) bool {
			x, e := probeRound(prob, d, s.Seed)
			if x == nil {
				return false
			}
			if e < probeBestE {
				probeBest, probeBestE = x, e
			}
			b := certify(d, x, fmt.Sprintf("probe at iteration %d", d.Iterations), e-gapTol*(1+math.Abs(e)))
			if b > probeBound {
				probeBound = b
			}
			if proven(e, b) {
				probed = x
				return true
			}
			return false
		}
	}
	res, err := run(ctx, prob, set)
	if err != nil {
		return nil, err
	}
	r.Status, r.Iterations, r.Rounds = res.Status, res.Iterations, 1
	if !math.IsInf(res.EnergyBound, 0) && !math.IsNaN(res.EnergyBound) {
		r.Bound = res.EnergyBound
	}
	complement := probeBound > r.Bound
	r.Bound = max(r.Bound, probeBound)
	r.SDR = &SDRInfo{
		PrimalObjective: res.PrimalObjective, DualObjective: res.DualObjective, Gap: res.Gap,
		PrimalInfeasibility: res.PrimalInfeasibility, DualInfeasibility: res.FaceDualInfeasibility,
		Dimension: prob.N(), Rank: res.Rank, Restarts: res.Restarts, Complement: complement,
	}
	if res.Status == solver.Failed {
		return nil, nil
	}
	if recertify && probed == nil && res.BestY != nil && ctx.Err() == nil {
		t0 := time.Now()
		c, _, err := sdpad.CertifyFace(prob, res.BestY, res.BestZ, nil, math.Inf(-1), set)
		if err == nil && c.EnergyBound > r.Bound {
			r.Bound, r.SDR.Complement = c.EnergyBound, false
		}
		if s.Log != nil && err == nil {
			fmt.Fprintf(s.Log, "best dual iterate certified to the closing tolerance: bound %.9g (iterates: %.9g), %v\n",
				c.EnergyBound, res.EnergyBound, time.Since(t0).Round(time.Millisecond))
		}
	}
	roundStart := time.Now()
	var cands [][]int
	switch {
	case probed != nil:
		cands = [][]int{probed}
	case s.Rounding == "" || s.Rounding == RoundSample:
		y := res.Factor
		if y == nil {
			y = denseFactor(res.X)
		}
		rng := rand.New(rand.NewPCG(s.Seed, 0x5d12))
		cands = rounding.Sample(prob, y, roundingDraws, rng)
	default:
		resolve := func(prob *sdr.Problem, warm *sdpad.Start) (*sdpad.Result, error) {
			set := sdrSettings(s, r, prob)
			set.Verbose, set.Monitor, set.Start = nil, nil, warm
			if s.TimeLimit > 0 {
				set.TimeLimit = relaxLimit - time.Since(start)
				if set.TimeLimit <= 0 {
					r.Status = solver.TimeLimit
					return nil, nil
				}
			}
			res, err := run(ctx, prob, set)
			if err == nil {
				r.Iterations += res.Iterations
			}
			return res, err
		}
		x, rounds, err := iterativeRound(ctx, prob, res, resolve)
		if err != nil {
			return nil, err
		}
		r.Rounds += rounds
		cands = [][]int{x}
	}
	if probed == nil && probeBest != nil {
		cands = append(cands, probeBest)
	}
	sctx := ctx
	if s.TimeLimit > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadline(ctx, start.Add(s.TimeLimit))
		defer cancel()
	}
	best, bestE, bound := polishAll(sctx, p, cands, r.Bound, func(x []int) float64 { return certify(res, x, "rounding", r.Bound) }, s)
	if bound > r.Bound {
		r.Bound, r.SDR.Complement = bound, true
	}
	if ctx.Err() != nil && r.Status != solver.Failed {
		r.Status = solver.Interrupted
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "rounding (%s): %d candidates, %d relaxations, best energy %.9g, %v\n",
			cmp.Or(s.Rounding, RoundSample), len(cands), r.Rounds, bestE, time.Since(roundStart).Round(time.Millisecond))
	}
	return best, nil
}

// probeDraws is the number of assignments a probe draws from the
// relaxation's iterate (rounding.Sample).
const probeDraws = 8

// probeRound rounds the iterate d of a probe (sdpad.Settings.Probe):
// probeDraws draws from its factor (rounding.Sample, seeded by seed and the
// iteration), each polished by ICM. It returns the best with its energy.
func probeRound(prob *sdr.Problem, d *sdpad.Result, seed uint64) ([]int, float64) {
	y := d.Factor
	if y == nil {
		y = denseFactor(d.X)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(d.Iterations)))
	local := icm.NewLocal(prob.Pairwise)
	var best []int
	bestE := math.Inf(1)
	for _, x := range rounding.Sample(prob, y, probeDraws, rng) {
		if e := local.Improve(x); e < bestE {
			best, bestE = x, e
		}
	}
	return best, bestE
}

// treeCandidates is the number of rounded assignments, the best after ICM,
// that the tree-block search (icm.Trees) polishes further.
const treeCandidates = 4

// searchShare is the share of the time limit kept for rounding and the
// local search after the relaxations (which get the rest).
const searchShare = 0.2

// searchRounds is the number of iterated local searches (each until it
// stalls) when the run has a time limit, which still stops them: a user who
// gives a budget wants it used. They take the treeCandidates best
// assignments in turn, each continuing where it stopped.
const searchRounds = 12

// polishAll polishes every candidate by ICM and the best treeCandidates
// of them by tree-block moves, then runs the iterated local search
// (icm.Trees.Search) from the best until it stalls, or under a time limit
// searchRounds of them, until ctx is done or bound proves the best
// optimal. After each stage that improves the best, certify (nil: none)
// may raise bound with a certificate at the best, first right after ICM. It
// returns the best with its energy and the bound; with s.NoPolish, it
// only picks the best and certifies it.
func polishAll(ctx context.Context, p *model.Pairwise, cands [][]int, bound float64, certify func([]int) float64, s *Settings) ([]int, float64, float64) {
	if len(cands) == 0 {
		return nil, math.Inf(1), bound
	}
	es := make([]float64, len(cands))
	certified := math.Inf(1) // energy of the last assignment certified
	check := func(k int) {
		if certify != nil && es[k] < certified && !proven(es[k], bound) && ctx.Err() == nil {
			certified = es[k]
			bound = max(bound, certify(cands[k]))
		}
	}
	local := icm.NewLocal(p)
	for k, x := range cands {
		if s.NoPolish {
			es[k] = p.Energy(x)
		} else {
			es[k] = local.Improve(x)
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
	trees := icm.NewTrees(p)
	top := order[:min(treeCandidates, len(order))]
	for _, k := range top {
		es[k] = trees.ImproveCtx(ctx, cands[k])
	}
	slices.SortStableFunc(top, func(a, b int) int { return cmp.Compare(es[a], es[b]) })
	rounds := 1
	if s.TimeLimit > 0 {
		rounds = searchRounds
	}
	check(top[0])
	for k := 0; k < rounds && ctx.Err() == nil && !proven(es[top[0]], bound); k++ {
		c := top[k%len(top)]
		es[c] = trees.Search(ctx, cands[c], icm.SearchSettings{Seed: s.Seed + uint64(k)})
		slices.SortStableFunc(top, func(a, b int) int { return cmp.Compare(es[a], es[b]) })
	}
	check(top[0])
	return cands[top[0]], es[top[0]], bound
}

// complementBound returns the certified energy bound (spec §9) of the dual
// point complementary to the assignment x (sdr.Problem.Complement), made
// from the relaxation's dual iterate of the best bound and, unless that
// proves x optimal, from its last one: from the dense eigenvalues of the
// slack after the dense solver, from LOBPCG on the face
// (sdpad.CertifyFace) after the low-rank one. When the relaxation is tight
// at x and the iterate near a solution, it proves x optimal long before
// the iterates' own bounds do. A point whose loose eigensolve shows that
// its bound stays below target (a probe: what proves x optimal; after the
// rounding: the bound so far) is not certified to full accuracy
// (sdpad.CertifyFace). -Inf when it cannot be computed.
func complementBound(prob *sdr.Problem, res *sdpad.Result, x []int, target float64, set sdpad.Settings) float64 {
	bound, e := math.Inf(-1), prob.Pairwise.Energy(x)
	for _, dual := range [][2][]float64{{res.BestY, res.BestZ}, {res.Y, res.Z}} {
		if dual[0] == nil || proven(e, bound) {
			continue
		}
		y, z, err := prob.Complement(dual[0], dual[1], x)
		if err != nil {
			return bound
		}
		var c sdr.Certificate
		if res.X != nil {
			c, err = prob.Certify(y, z)
		} else {
			var v *mat.Dense
			if v, err = prob.Point(x); err == nil {
				c, _, err = sdpad.CertifyFace(prob, y, z, v, target, set)
			}
		}
		if err == nil {
			bound = max(bound, c.EnergyBound)
		}
	}
	return bound
}

// sdrSettings maps the pipeline's settings to those of package sdpad.
func sdrSettings(s *Settings, r *Result, prob *sdr.Problem) sdpad.Settings {
	set := sdpad.DefaultSettings()
	set.TimeLimit = s.TimeLimit
	if s.Tol > 0 {
		set.Tol = s.Tol
		set.TolLoose = max(set.TolLoose, s.Tol)
	}
	if s.MaxIter > 0 {
		set.MaxIter = s.MaxIter
	}
	if s.Rank > 0 {
		set.Rank = s.Rank
		set.MaxRank = max(set.MaxRank, s.Rank)
	}
	if s.MaxRank > 0 {
		set.MaxRank = s.MaxRank
		set.Rank = min(set.Rank, s.MaxRank)
	}
	if s.NoRestart {
		set.RestartEvery = 0
	}
	set.Verbose = s.Log
	if s.Progress != nil {
		set.Monitor = func(it *sdpad.Iterate) {
			s.Progress(Progress{Elapsed: it.Time, Stage: r.Solver, Iteration: it.K, Energy: math.Inf(1),
				Bound: it.Bound - prob.Const, SDPGap: it.Gap})
		}
	}
	return set
}

// iterativeRound is the paper's rounding (spec §7): after each relaxation,
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
func iterativeRound(ctx context.Context, prob *sdr.Problem, res *sdpad.Result, resolve func(*sdr.Problem, *sdpad.Start) (*sdpad.Result, error)) ([]int, int, error) {
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
		next, err := asModel(cur).Pairwise(ev)
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
		f := res.Factor
		if f == nil {
			f = denseFactor(res.X)
		}
		start := &sdpad.Start{Mu: res.Mu}
		start.Y, start.Z, start.Factor = nextProb.Transfer(prob, res.Y, res.Z, f)
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
			x[v] = argmax(marg[i])
		}
	}
	return x, rounds, nil
}

// asModel returns p as a model over its free variables: one factor per
// unary table and per edge, and a constant factor.
func asModel(p *model.Pairwise) *model.Model {
	m := &model.Model{Card: p.Card}
	m.Factors = append(m.Factors, model.Factor{Table: model.Table{Log: []float64{p.Const}}})
	for i, u := range p.Unary {
		m.Factors = append(m.Factors, model.Factor{Scope: []int{i}, Table: u})
	}
	for _, e := range p.Edges {
		m.Factors = append(m.Factors, model.Factor{Scope: []int{e.I, e.J}, Table: e.Table})
	}
	return m
}

func argmax(xs []float64) int {
	best := 0
	for a, v := range xs {
		if v > xs[best] {
			best = a
		}
	}
	return best
}

// denseFactor returns Y with Y Y^T the PSD part of x, from its eigendecomposition.
func denseFactor(x *mat.SymDense) *mat.Dense {
	n := x.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(x, true) {
		y := mat.NewDense(n, 1, nil)
		for i := range n {
			y.Set(i, 0, x.At(0, i)) // the rank-one part along row 0
		}
		return y
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	var keep []int
	for j, v := range vals {
		if v > 1e-9*math.Abs(vals[n-1]) && v > 0 {
			keep = append(keep, j)
		}
	}
	if len(keep) == 0 {
		keep = []int{n - 1}
	}
	y := mat.NewDense(n, len(keep), nil)
	for c, j := range keep {
		sq := math.Sqrt(max(vals[j], 0))
		for i := range n {
			y.Set(i, c, vecs.At(i, j)*sq)
		}
	}
	return y
}
