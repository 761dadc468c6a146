package factor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// Penalty schedule: sigma grows by sigmaGrowth when an outer iteration
// reduces the largest violation by less than sigmaProgress.
const (
	sigmaGrowth   = 4
	sigmaProgress = 0.25
)

// Once the primal infeasibility is within the tolerance and below
// sigmaBalance times the dual infeasibility, sigma falls by sigmaGrowth (not
// below Sigma0): the multipliers, not the violations, then need the work,
// and a smaller sigma conditions the inner problem better (residual
// balancing, as in SCS and OSQP).
const sigmaBalance = 0.3

// A certificate costs an eigensolve: outer iterations are certified when
// the primal infeasibility is within the tolerance (a stop or a rank step
// may follow), every certifyEvery once it is at most certifyFrom times the
// tolerance (the bound's progress), and at the iteration limit; never
// past the time limit.
const (
	certifyFrom  = 100
	certifyEvery = 5
)

// The inner tolerance is at most tailDual times the last certified dual
// infeasibility, and once the primal infeasibility is within the tolerance
// an inner solve may take tailInner times InnerIter iterations (why: the
// package doc, "The iteration").
const (
	tailDual  = 0.1
	tailInner = 3
)

var errNotCertified = errors.New("factor: not certified at this iteration")

// Solve solves the SDR of prob by the augmented Lagrangian on a factor
// Xbar = V V^T (see the package doc). It returns an error only for invalid
// settings; cancelling ctx stops the run with status Interrupted, ctx's
// deadline (the time limit) with OutOfTime (the inner iterations and the
// certificates' eigensolver check it), all with the last factor and the
// best bound so far.
func Solve(ctx context.Context, prob *sdr.Problem, s Settings) (*Result, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	// Under a deadline the outer iterations end closingReserve of the time
	// before it (lctx), which is the closing inner solve's.
	lctx := ctx
	if s.CloseIter > 0 {
		var lcancel context.CancelFunc
		lctx, lcancel = solver.Share(ctx, 1-closingReserve)
		defer lcancel()
	}
	stop := solver.Done(lctx)

	a := newALM(prob, s.Sigma0)
	v := start(prob, a, &s)
	in := newInner(a, a.point(v), s.Memory)
	cf := newCertifier(prob, s.CertifyRank)
	res := &Result{Status: solver.Unsolved, SDRBound: math.Inf(-1), EnergyBound: math.Inf(-1)}
	ax, px := make([]float64, prob.Y.Len), make([]float64, prob.NumZ)
	innerTol, prevViol := 1e-1, math.Inf(1)
	proven := false // by the probe
	// Settings.Stall: outer iterations since the last progress, and the
	// bound and primal infeasibility it is measured against.
	stalled, stallBound, stallPinf := 0, math.Inf(-1), math.Inf(1)
	if s.Verbose != nil {
		fmt.Fprintf(s.Verbose, "factor ALM: N = %d, n = %d, %d nonnegative products, rank %d, tol %.0e; objective and bound are energies, gap and dinf at the shifted dual point\n",
			prob.N(), prob.NumVars(), prob.NumZ, v.RawMatrix().Cols, s.Tol)
		fmt.Fprintf(s.Verbose, "%5s %7s %4s %8s %17s %17s %9s %9s %9s %8s\n",
			"iter", "inner", "rank", "sigma", "objective", "bound", "gap", "pinf", "dinf", "time")
	}
	for k := 1; ; k++ {
		iters := s.InnerIter
		if k > 1 && res.PrimalInfeasibility <= s.Tol {
			iters *= tailInner
		}
		res.Inner += in.minimize(a, innerTol*a.cnorm, iters, stop)
		converged := in.GradNorm() <= innerTol*a.cnorm
		eq, neg := a.update()
		viol := max(eq, neg)
		v = a.factor(in.v())
		y, z := a.dual(v)
		res.Iterations, res.Y, res.Z = k, y, z
		res.PrimalObjective = prob.PrimalObjective(a.x)
		res.DualObjective = prob.DualObjective(y)
		res.Gap = sdr.Gap(res.PrimalObjective, res.DualObjective)
		res.PrimalInfeasibility = prob.PrimalInfeasibility(a.x, ax, px)
		res.DualInfeasibility, res.Shift = math.NaN(), 0
		var cert sdr.Certificate
		var vecs *mat.Dense
		var vals []float64
		err := errNotCertified
		if !stop() && (res.PrimalInfeasibility <= s.Tol || res.PrimalInfeasibility <= certifyFrom*s.Tol && k%certifyEvery == 0 || k >= s.MaxIter || s.Stall > 0 && stalled >= s.Stall-1) {
			cert, vecs, vals, err = cf.certify(y, z, s.CertifyTol, s.CertifyMaxIter, s.Seed+uint64(k), stop)
		}
		// The multipliers' own gap and dinf steer sigma, the inner tolerance
		// and the probes; the protocol measures a shift of them (the package
		// doc, "Certificates").
		gap0, dinf0 := res.Gap, math.NaN()
		if err == nil {
			dinf0 = cert.FaceDualInfeasibility
			if cert.LowerBound > res.SDRBound {
				res.SDRBound, res.EnergyBound, res.BestY, res.BestZ = cert.LowerBound, cert.EnergyBound, y, z
			}
			res.Shift, res.Gap, res.DualInfeasibility = prob.BestShift(res.PrimalObjective, res.DualObjective, vals, true)
		}
		res.Factor, res.Rank = v, v.RawMatrix().Cols
		res.Evaluations, res.Time = a.evals, time.Since(t0)
		it := Iterate{K: k, Inner: res.Inner, PrimalObjective: res.PrimalObjective, DualObjective: res.DualObjective,
			Gap: res.Gap, PrimalInfeasibility: res.PrimalInfeasibility, DualInfeasibility: res.DualInfeasibility,
			Bound: res.SDRBound, Rank: res.Rank, Sigma: a.sigma, Time: res.Time}
		if s.Verbose != nil {
			fmt.Fprintf(s.Verbose, "%5d %7d %4d %8.1e %17.9g %17.9g %9.2e %9.2e %9.2e %7.1fs\n",
				k, res.Inner, res.Rank, a.sigma, res.PrimalObjective-prob.Const, res.EnergyBound,
				res.Gap, res.PrimalInfeasibility, res.DualInfeasibility, res.Time.Seconds())
		}
		if s.Monitor != nil {
			s.Monitor(&it)
		}
		ok := func(tol float64) bool {
			return res.Gap <= tol && res.PrimalInfeasibility <= tol && res.DualInfeasibility <= tol
		}
		switch {
		case ok(s.Tol):
			res.Status = solver.Solved
		case s.Probe != nil && k%s.ProbeEvery == 0 && gap0 <= s.ProbeTol && res.PrimalInfeasibility <= s.ProbeTol:
			res.Marginals = prob.Marginals(column0(v))
			if proven = s.Probe(res); proven {
				res.Status = solver.Solved
			}
		}
		if b := res.EnergyBound; b > stallBound+s.Tol*(1+math.Abs(b)) || res.PrimalInfeasibility < solver.StallShrink*stallPinf {
			stalled, stallBound, stallPinf = 0, max(stallBound, b), min(stallPinf, res.PrimalInfeasibility)
		} else {
			stalled++
		}
		if res.Status == solver.Unsolved {
			if res.Status = solver.StopStatus(lctx); res.Status == solver.Unsolved && (k >= s.MaxIter || s.Stall > 0 && stalled >= s.Stall) {
				res.Status = solver.MaxIterations
			}
			if res.Status != solver.Unsolved && ok(s.TolLoose) {
				res.Status = solver.SolvedInaccurate
			}
		}
		if res.Status != solver.Unsolved {
			break
		}
		grow := 0
		primalDone := converged && res.PrimalInfeasibility <= 10*s.Tol || res.PrimalInfeasibility <= s.Tol
		if primalDone && err == nil && res.Rank < s.MaxRank && fullRank(v) {
			for _, l := range vals {
				if l < -s.Tol*a.scale {
					grow++
				}
			}
			grow = min(grow, res.Rank, s.MaxRank-res.Rank)
		}
		// The penalty grows when a converged inner solve reduced the
		// violation too little (after an unconverged one the multipliers
		// are not yet what sigma should be judged by), and falls when the
		// primal side is ahead of the dual (sigmaBalance).
		if converged && viol > sigmaProgress*prevViol {
			a.sigma = min(a.sigma*sigmaGrowth, s.SigmaMax)
		} else if res.PrimalInfeasibility <= s.Tol && res.PrimalInfeasibility < sigmaBalance*dinf0 {
			a.sigma = max(a.sigma/sigmaGrowth, s.Sigma0)
		}
		prevViol = viol
		innerTol = min(innerTol, viol)
		if err == nil {
			innerTol = min(innerTol, tailDual*dinf0)
		}
		innerTol = max(1e-3*s.Tol, innerTol)
		if grow > 0 {
			in = newInner(a, a.point(widen(prob, v, vecs, grow)), s.Memory)
			prevViol = math.Inf(1)
		} else {
			in.F = in.fn.Eval(in.X, in.G)
		}
	}
	res.Marginals = prob.Marginals(column0(v))
	if ctx.Err() == nil && !proven && s.CloseIter > 0 && (res.PrimalInfeasibility <= s.TolLoose || res.Status == solver.OutOfTime) &&
		!(sdr.Gap(res.PrimalObjective, res.SDRBound) <= s.Tol) {
		closeDual(ctx, a, in.v(), cf, res, &s)
	}
	res.Evaluations, res.Time = a.evals, time.Since(t0)
	if s.Verbose != nil {
		fmt.Fprintf(s.Verbose, "factor ALM: %s after %d iterations (%d L-BFGS, %d evaluations), rank %d, bound %.9g, %v\n",
			res.Status, res.Iterations, res.Inner, res.Evaluations, res.Rank, res.EnergyBound, res.Time.Round(time.Millisecond))
	}
	return res, nil
}

// closingSigma divides the penalty of the closing inner solve (closeDual);
// closingReserve is the share of a time limit kept for it.
const (
	closingSigma   = 8
	closingReserve = 0.2
)

// closeDual is the closing inner solve: it minimizes the Lagrangian at the
// last multipliers further, from a copy of the iteration's point x (V, or
// U: alm.point), at the penalty sigma/closingSigma (not below Sigma0), by
// at most CloseIter L-BFGS iterations and as many as the run took (under a
// deadline: in half of the time left, the certificate in the rest; the
// outer iterations leave it closingReserve of the time limit), then
// certifies the multiplier update there (why: the package doc,
// "Certificates"). Its bound counts when better, and its point becomes
// res.BestY, BestZ either way, the start of certify.Refine: an outlier
// eigenvalue can put its own bound below the iterates', but the
// refinement removes it first, and so when the time limit cuts its
// certificate short (bench/results/2026-11-26/NOTES.md, "The closing inner
// solve").
// res's factor and objectives stay the run's.
func closeDual(ctx context.Context, a *alm, x *mat.Dense, cf *certifier, res *Result, s *Settings) {
	t0 := time.Now()
	stop := solver.Done(ctx)
	mctx, cancel := solver.Share(ctx, 0.5) // the L-BFGS gets half of the time left, the certificate the rest
	defer cancel()
	a.sigma = max(a.sigma/closingSigma, s.Sigma0)
	in := newInner(a, mat.DenseCopyOf(x), s.Memory)
	k := in.minimize(a, 1e-3*s.Tol*a.cnorm, min(s.CloseIter, res.Inner), solver.Done(mctx))
	res.Inner += k
	res.Closing = k
	a.update()
	y, z := a.dual(a.factor(in.v()))
	cert, _, _, err := cf.certify(y, z, s.CertifyTol, s.CertifyMaxIter, s.Seed, stop)
	if err == nil {
		res.BestY, res.BestZ = y, z
		if cert.LowerBound > res.SDRBound {
			res.SDRBound, res.EnergyBound = cert.LowerBound, cert.EnergyBound
		}
	}
	if s.Verbose != nil {
		b := math.Inf(-1)
		if err == nil {
			b = cert.EnergyBound
		}
		fmt.Fprintf(s.Verbose, "closing inner solve: %d L-BFGS at sigma %.1e, bound %.9g, %v\n",
			k, a.sigma, b, time.Since(t0).Round(time.Millisecond))
	}
}

// rankGap is the ratio of the smallest to the largest eigenvalue of V^T V
// below which V counts as rank deficient.
const rankGap = 1e-3

// fullRank reports whether V has numerically full column rank. A rank
// deficient local minimum of the ALM in V is a minimum in X (see dual), so
// negative curvature in the certificate there means unconverged
// multipliers, not a rank too small.
func fullRank(v *mat.Dense) bool {
	var g mat.SymDense
	g.SymOuterK(1, v.T())
	var eig mat.EigenSym
	if !eig.Factorize(&g, false) {
		return false
	}
	ev := eig.Values(nil)
	return ev[0] > rankGap*ev[len(ev)-1]
}

// column0 returns column 0 of v: row 0 of Xbar = V V^T, since row 0 of V is e_1.
func column0(v *mat.Dense) []float64 {
	n, _ := v.Dims()
	c := make([]float64, n)
	mat.Col(c, 0, v)
	return c
}

// widen returns v with grow more columns: the first grow directions of
// negative curvature (columns of dirs, Xbar's coordinates) moved to the
// tangent space of the affine set and scaled to a small norm.
func widen(p *sdr.Problem, v, dirs *mat.Dense, grow int) *mat.Dense {
	n, r := v.Dims()
	w := mat.NewDense(n, r+grow, nil)
	w.Slice(0, n, 0, r).(*mat.Dense).Copy(v)
	d := mat.DenseCopyOf(dirs.Slice(0, n, 0, grow))
	project(p, d)
	for c := range grow {
		col := mat.Col(nil, c, d)
		if nrm := floats.Norm(col, 2); nrm > 0 {
			floats.Scale(1e-2*math.Sqrt(float64(p.NumVars()))/nrm, col)
		}
		w.SetCol(r+c, col)
	}
	retract(p, w)
	return w
}

// start returns the initial factor: s.Start's, moved onto the affine set,
// or the default one (initial). It sets the ALM's multipliers from s.Start.
func start(p *sdr.Problem, a *alm, s *Settings) *mat.Dense {
	if s.Start == nil || s.Start.Factor == nil {
		return initial(p, s.Rank, s.Seed)
	}
	for k, y := range s.Start.Y {
		if k >= p.Y.E3 {
			a.lam[k] = y / a.scale
		}
	}
	for k, z := range s.Start.Z {
		a.mu[k] = max(0, z) / a.scale
	}
	f := s.Start.Factor
	n, c := f.Dims()
	r := min(max(c, s.Rank), s.MaxRank)
	v := mat.NewDense(n, r, nil)
	v.Slice(0, n, 0, min(c, r)).(*mat.Dense).Copy(f)
	// Householder reflection taking row 0 to e_1.
	w := mat.Row(nil, 0, v)
	if nrm := floats.Norm(w, 2); nrm > 0 {
		floats.Scale(1/nrm, w)
	}
	w[0]--
	if ww := floats.Dot(w, w); ww > 1e-30 {
		for i := range n {
			row := v.RawRowView(i)
			floats.AddScaled(row, -2*floats.Dot(row, w)/ww, w)
		}
	}
	// Random small columns beyond the start's, so that they can grow.
	rng := rand.New(rand.NewPCG(s.Seed, 0xfac7))
	for i := 1; i < n; i++ {
		for col := c; col < r; col++ {
			v.Set(i, col, 1e-3*rng.NormFloat64())
		}
	}
	// The affine set: row 0 = e_1, each variable's rows sum to it.
	clear(v.RawRowView(0))
	v.Set(0, 0, 1)
	for i, mi := range p.Card {
		for col := range r {
			sum := 0.0
			for b := range mi {
				sum += v.At(p.Offset[i]+b, col)
			}
			want := 0.0
			if col == 0 {
				want = 1
			}
			for b := range mi {
				v.Set(p.Offset[i]+b, col, v.At(p.Offset[i]+b, col)+(want-sum)/float64(mi))
			}
		}
	}
	retract(p, v)
	return v
}
