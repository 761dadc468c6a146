package sdrmap

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"sdrmap/model"
	"sdrmap/rounding"
	"sdrmap/sdr"
	"sdrmap/solver"
	"sdrmap/solver/icm"
	"sdrmap/solver/sdpad"
)

// roundingDraws is the number of assignments drawn from the relaxation:
// the argmax of the marginals and randomized roundings (rounding.Sample).
const roundingDraws = 32

func init() {
	methods["sdpad"] = func(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
		return solveSDR(ctx, p, s, r, false)
	}
	methods["sdpad-lr"] = func(ctx context.Context, p *model.Pairwise, s *Settings, r *Result) ([]int, error) {
		return solveSDR(ctx, p, s, r, true)
	}
}

// solveSDR solves the SDR with the dense SDPAD (Algorithm 1) or with
// SDPAD-LR (lowRank, Algorithm 2), rounds its solution (argmax and
// randomized rounding from a factor of Xbar), polishes every candidate with
// ICM and keeps the best. The bound is the solver's certified energy bound
// (spec §9). The paper's iterative rounding, which re-solves reduced
// relaxations, is not done here yet.
func solveSDR(ctx context.Context, p *model.Pairwise, s *Settings, r *Result, lowRank bool) ([]int, error) {
	prob, err := sdr.Build(p)
	if errors.Is(err, sdr.ErrInfeasible) {
		r.Status = solver.Infeasible
		return nil, nil
	} else if err != nil {
		return nil, err
	}
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
	set.Verbose = s.Log
	if s.Progress != nil {
		set.Monitor = func(it *sdpad.Iterate) {
			s.Progress(Progress{Elapsed: it.Time, Stage: r.Solver, Iteration: it.K, Energy: math.Inf(1),
				Bound: it.Bound - prob.Const, SDPGap: it.Gap})
		}
	}
	run := sdpad.Solve
	if lowRank {
		run = sdpad.SolveLR
	}
	res, err := run(ctx, prob, set)
	if err != nil {
		return nil, err
	}
	r.Status, r.Iterations, r.Rounds = res.Status, res.Iterations, 1
	if !math.IsInf(res.EnergyBound, 0) && !math.IsNaN(res.EnergyBound) {
		r.Bound = res.EnergyBound
	}
	r.SDR = &SDRInfo{
		PrimalObjective: res.PrimalObjective, DualObjective: res.DualObjective, Gap: res.Gap,
		PrimalInfeasibility: res.PrimalInfeasibility, DualInfeasibility: res.FaceDualInfeasibility,
		Dimension: prob.N(), Rank: res.Rank,
	}
	if res.Status == solver.Failed {
		return nil, nil
	}
	start := time.Now()
	rng := rand.New(rand.NewPCG(s.Seed, 0x5d12))
	y := res.Factor
	if y == nil {
		y = factor(res.X)
	}
	cands := rounding.Sample(prob, y, roundingDraws, rng)
	var best []int
	bestE := math.Inf(1)
	local := icm.NewLocal(p)
	for _, x := range cands {
		if e := local.Improve(x); best == nil || e < bestE {
			best, bestE = x, e
		}
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "rounding: %d candidates, best energy %.9g, %v\n", len(cands), bestE, time.Since(start).Round(time.Millisecond))
	}
	return best, nil
}

// factor returns Y with Y Y^T the PSD part of x, from its eigendecomposition.
func factor(x *mat.SymDense) *mat.Dense {
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
