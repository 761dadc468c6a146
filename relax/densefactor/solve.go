package densefactor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/certify"
	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/internal/lbfgs"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// Penalty schedule (residual balancing, as in SCS and OSQP): at a
// certified iteration sigma grows by sigmaGrowth when the primal
// infeasibility is above sigmaBalance times the dual one (by its square
// above sigmaBalance squared times), and falls by it (not below SigmaMin)
// when the primal infeasibility is within the tolerance and the dual one
// above sigmaBalance times it; at others it grows when a converged inner
// solve reduced the largest violation by less than sigmaProgress (as
// relax/factor's). The fall waits for the primal side: while the rank is
// too low, dinf stays large whatever sigma.
//
// With Sigma0 = 0 the penalty starts at sigmaPerNorm (1 + ||C||_F) on the
// scaled costs (within [SigmaMin, SigmaMax]): the balanced penalty grows
// with the costs' norm, and starting near it saves the outer iterations
// of its growth.
const (
	sigmaPerNorm  = 2
	sigmaGrowth   = 2
	sigmaProgress = 0.25
	sigmaBalance  = 3
)

// certPerPass estimates the first dense certificate, which has no
// duration to go by, at certPerPass N/r passes (evaluations of L and its
// gradient at rank r, timed so far, the set-up included): measured 0.9 to
// 1.1 N/r passes on one core from N = 601 to 2,001 (BenchmarkCertify,
// BenchmarkEval), 1.7 on two cores at N = 5,001, where the
// eigendecomposition splits less well over the cores than the passes.
const certPerPass = 1.5

// maxProbeWait caps the wait between probes, in ProbeEvery. A probe (a
// rounding and a dense certificate at its assignment) costs about as much
// as an outer iteration (N = 601: 0.2 s against 0.33 s on one core); one
// at every iteration took 40% of a 60 s run on giraffe_0200 and proved
// nothing.
const maxProbeWait = 16

// Outer iterations are certified when the primal infeasibility is within
// certifyFrom times the tolerance, every certifyEvery iterations before,
// and at the iteration limit.
const (
	certifyFrom  = 10
	certifyEvery = 5
)

var errNotCertified = errors.New("densefactor: not certified at this iteration")

// InitialRank is the default initial rank for a problem of order n: a
// third of n, at least 16 and at most maxInitialRank or n/8, whichever is
// larger (and at most n). At N = 5,001 a rank of 320 left the exact dinf
// stalled while the primal side converged, and the rank grew only after
// it (bench/results/2026-11-27b/NOTES-blas.md, "Part 2").
func InitialRank(n int) int { return min(n, max(16, min(n/3, max(maxInitialRank, n/8)))) }

// maxInitialRank caps the default initial rank: a pass costs 3 N^2 r
// flops.
const maxInitialRank = 320

// ErrTooLarge is Solve's error for a problem of order above
// Settings.MaxOrder.
var ErrTooLarge = errors.New("densefactor: too large for the dense factor ALM")

// Solve solves the SDR of prob by the augmented Lagrangian on a dense
// factor (see the package doc). It returns an error only for invalid
// settings or a problem above Settings.MaxOrder (ErrTooLarge); cancelling
// ctx stops the run with status Interrupted, ctx's deadline (the time
// limit) with OutOfTime, with the last factor and the best bound so far.
func Solve(ctx context.Context, prob *sdr.Problem, s Settings) (*Result, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if n := prob.N(); s.MaxOrder > 0 && n > s.MaxOrder {
		return nil, fmt.Errorf("%w: N = %d is above the limit %d (densefactor.Settings.MaxOrder): its dense arrays and certificates would take about %.0f GB; the factor ALM (--solver factor) and SDPAD-LR (--solver sdpad-lr) scale",
			ErrTooLarge, n, s.MaxOrder, 270*float64(n)*float64(n)/1e9)
	}
	t0 := time.Now()
	// Under a deadline the outer iterations end closingReserve of the time
	// before it (lctx), which is the closing rounds'.
	lctx := ctx
	if s.CloseRounds > 0 {
		var lcancel context.CancelFunc
		lctx, lcancel = solver.Share(ctx, 1-closingReserve)
		defer lcancel()
	}
	stop := solver.Done(lctx)
	n := prob.N()
	if s.MaxRank == 0 {
		s.MaxRank = n
	}
	if s.Rank == 0 {
		s.Rank = min(InitialRank(n), s.MaxRank)
	}
	a := newALM(prob, s.Sigma0)
	if s.Sigma0 == 0 {
		a.sigma = min(max(sigmaPerNorm*a.cnorm, s.SigmaMin), s.SigmaMax)
	}
	v := start(prob, a, &s)
	in := newInner(a, v, s.Memory)
	cf := newCertifier(prob, s.CertifyRank)
	cf.deadline, _ = ctx.Deadline()
	cf.first = cf.deadline
	if !cf.deadline.IsZero() && s.RunDeadline.After(cf.deadline) {
		cf.first = s.RunDeadline
	}
	res := &Result{Status: solver.Unsolved, SDRBound: math.Inf(-1), EnergyBound: math.Inf(-1)}
	ax, px := make([]float64, prob.Y.Len), make([]float64, prob.NumZ)
	innerTol, prevViol := 1e-1, math.Inf(1)
	rankSince := 0 // the iteration of the last rank change
	if s.Verbose != nil {
		tighten := ""
		if s.TightenTo > 0 && s.TightenTo < s.Tol {
			tighten = fmt.Sprintf(" then down to %.0e", s.TightenTo)
		}
		fmt.Fprintf(s.Verbose, "dense factor ALM: N = %d, n = %d, %d nonnegative products, rank %d, tol %.0e%s; objective and bound are energies, gap and dinf at the shifted dual point\n",
			n, prob.NumVars(), prob.NumZ, v.RawMatrix().Cols, s.Tol, tighten)
		fmt.Fprintf(s.Verbose, "%5s %7s %6s %4s %8s %17s %17s %9s %9s %9s %8s\n",
			"iter", "inner", "evals", "rank", "sigma", "objective", "bound", "gap", "pinf", "dinf", "time")
	}
	iters, proven := s.InnerShort, false // proven: a probe ended the run
	// The working tolerance: Tol, then with TightenTo a tenth of it each
	// time an iterate meets it, down to TightenTo; kept is the last
	// iterate that met keptTol, the last one met, its factor copied.
	tol, floor := s.Tol, s.Tol
	if s.TightenTo > 0 {
		floor = min(floor, s.TightenTo)
	}
	var kept *Result
	keptTol := 0.0
	nextProbe, probeWait := 1, s.ProbeEvery // a probe that fails doubles the wait for the next
	for k := 1; ; k++ {
		res.Inner += in.minimize(a, innerTol*a.cnorm, iters, stop)
		converged := in.GradNorm() <= innerTol*a.cnorm
		eq, neg := a.update()
		viol := max(eq, neg)
		v = in.v()
		y, z := a.dual(v)
		xs := a.xSym()
		res.Iterations, res.Y, res.Z = k, y, z
		res.PrimalObjective = prob.PrimalObjective(xs)
		res.DualObjective = prob.DualObjective(y)
		res.Gap = sdr.Gap(res.PrimalObjective, res.DualObjective)
		res.PrimalInfeasibility = prob.PrimalInfeasibility(xs, ax, px)
		res.DualInfeasibility, res.Shift = math.NaN(), 0
		var cert sdr.Certificate
		var vals []float64
		err := errNotCertified
		if cf.took == 0 && a.evals > 0 {
			cf.took = time.Duration(certPerPass * float64(n) / float64(v.RawMatrix().Cols) * float64(time.Since(t0)) / float64(a.evals))
		}
		if !stop() && (cf.proj != nil || res.PrimalInfeasibility <= certifyFrom*tol || k%certifyEvery == 0 || k >= s.MaxIter) {
			cert, vals, err = cf.certify(y, z, s.CertifyTol, s.CertifyMaxIter, s.Seed+uint64(k), stop)
		}
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
		if s.Verbose != nil {
			fmt.Fprintf(s.Verbose, "%5d %7d %6d %4d %8.1e %17.9g %17.9g %9.2e %9.2e %9.2e %7.1fs\n",
				k, res.Inner, a.evals, res.Rank, a.sigma, res.PrimalObjective-prob.Const, res.EnergyBound,
				res.Gap, res.PrimalInfeasibility, res.DualInfeasibility, res.Time.Seconds())
		}
		if s.Monitor != nil {
			s.Monitor(&Iterate{K: k, Inner: res.Inner, PrimalObjective: res.PrimalObjective, Gap: res.Gap,
				PrimalInfeasibility: res.PrimalInfeasibility, DualInfeasibility: res.DualInfeasibility,
				Bound: res.SDRBound, Rank: res.Rank, Sigma: a.sigma, Time: res.Time})
		}
		ok := func(r *Result, tol float64) bool {
			return r.Gap <= tol && r.PrimalInfeasibility <= tol && r.DualInfeasibility <= tol
		}
		if kept != nil && ok(res, keptTol) || tol > floor && ok(res, tol) {
			kept = new(Result)
			*kept = *res
			kept.Factor = mat.DenseCopyOf(v)
			for tol > floor && ok(res, tol) {
				keptTol, tol = tol, max(tol/10, floor)
				if s.Verbose != nil {
					fmt.Fprintf(s.Verbose, "tolerance %.0e met at iteration %d: going on to %.0e\n", keptTol, k, tol)
				}
			}
		}
		switch {
		case ok(res, tol):
			res.Status = solver.Solved
		case s.Probe != nil && k >= nextProbe && gap0 <= s.ProbeTol && res.PrimalInfeasibility <= s.ProbeTol:
			res.Marginals = prob.Marginals(column0(v))
			if s.Probe(res) {
				res.Status, proven = solver.Solved, true
			}
			nextProbe, probeWait = k+probeWait, min(2*probeWait, maxProbeWait*s.ProbeEvery)
		}
		if res.Status == solver.Unsolved {
			if res.Status = solver.StopStatus(lctx); res.Status == solver.Unsolved && k >= s.MaxIter {
				res.Status = solver.MaxIterations
			}
			if res.Status != solver.Unsolved && kept != nil && !ok(res, keptTol) {
				keep(res, kept)
			}
			switch {
			case res.Status == solver.Unsolved:
			case kept != nil && res.Status != solver.Interrupted:
				res.Status = solver.Solved // it met Tol before it tightened
			case ok(res, s.TolLoose):
				res.Status = solver.SolvedInaccurate
			}
		}
		if res.Status != solver.Unsolved {
			break
		}
		grow := 0
		primalDone := converged && res.PrimalInfeasibility <= 10*tol || res.PrimalInfeasibility <= tol
		if (primalDone || k-rankSince >= rankPatience) && err == nil && res.Rank < s.MaxRank && numRank(v) == res.Rank {
			for _, l := range vals {
				if l < -tol*a.scale {
					grow++
				}
			}
			grow = min(grow, res.Rank, s.MaxRank-res.Rank)
		}
		iters = s.InnerIter
		if res.PrimalInfeasibility > certifyFrom*tol || err == nil && res.PrimalInfeasibility > dinf0 {
			iters = s.InnerShort
		}
		switch {
		case err == nil && res.PrimalInfeasibility > sigmaBalance*sigmaBalance*dinf0:
			a.sigma = min(a.sigma*sigmaGrowth*sigmaGrowth, s.SigmaMax)
		case err == nil && res.PrimalInfeasibility > sigmaBalance*dinf0:
			a.sigma = min(a.sigma*sigmaGrowth, s.SigmaMax)
		case err == nil && res.PrimalInfeasibility <= tol && dinf0 > sigmaBalance*res.PrimalInfeasibility:
			a.sigma = max(a.sigma/sigmaGrowth, s.SigmaMin)
		case err != nil && converged && viol > sigmaProgress*prevViol:
			a.sigma = min(a.sigma*sigmaGrowth, s.SigmaMax)
		}
		prevViol = viol
		innerTol = min(innerTol, viol)
		if err == nil {
			innerTol = min(innerTol, 0.1*dinf0)
		}
		innerTol = max(1e-3*tol, innerTol)
		var dirs *mat.Dense
		if grow > 0 {
			dirs = cf.vectors(grow)
		}
		if dirs != nil {
			in = newInner(a, widen(prob, v, dirs, dirs.RawMatrix().Cols), s.Memory)
			prevViol, rankSince = math.Inf(1), k
		} else {
			in.F = in.fn.Eval(in.X, in.G)
		}
	}
	if ctx.Err() == nil && !proven && (res.PrimalInfeasibility <= s.TolLoose || res.Status == solver.OutOfTime) {
		if res.Factor == v {
			res.Factor = mat.DenseCopyOf(v) // the L-BFGS reuses the memory under in.v()
		}
		closeDual(a, in, cf, res, &s, floor, solver.Done(ctx))
	}
	res.Marginals = prob.Marginals(column0(res.Factor))
	res.Evaluations, res.Time = a.evals, time.Since(t0)
	if s.Verbose != nil {
		fmt.Fprintf(s.Verbose, "dense factor ALM: %s after %d iterations (%d L-BFGS, %d evaluations), rank %d (numerically %d), bound %.9g, %v\n",
			res.Status, res.Iterations, res.Inner, res.Evaluations, res.Rank, numRank(v), res.EnergyBound, res.Time.Round(time.Millisecond))
	}
	return res, nil
}

// keep sets the primal side and the dual point of res to kept's: a run
// that met a working tolerance and then stopped short of the next
// (Settings.TightenTo) returns the iterate that met it, with the best bound
// of the whole run.
func keep(res, kept *Result) {
	res.Factor, res.Rank, res.Y, res.Z = kept.Factor, kept.Rank, kept.Y, kept.Z
	res.PrimalObjective, res.DualObjective, res.Gap = kept.PrimalObjective, kept.DualObjective, kept.Gap
	res.PrimalInfeasibility, res.DualInfeasibility, res.Shift = kept.PrimalInfeasibility, kept.DualInfeasibility, kept.Shift
}

// lagrangian adapts the ALM to lbfgs.Func on V flattened row by row.
type lagrangian struct {
	a          *alm
	rows, cols int
}

func (l lagrangian) dense(x []float64) *mat.Dense { return mat.NewDense(l.rows, l.cols, x) }
func (l lagrangian) Eval(x, g []float64) float64  { return l.a.eval(l.dense(x), l.dense(g)) }
func (l lagrangian) Tangent(_, d []float64)       { project(l.a.prob, l.dense(d)) }
func (l lagrangian) Retract(x []float64)          { onAffine(l.a.prob, l.dense(x)) }

// inner is the L-BFGS state with the preconditioner's diagonal and the
// scratch of its computation.
type inner struct {
	*lbfgs.Minimizer
	fn  lagrangian
	pre *mat.Dense
	w   []float64
}

// newInner evaluates a at v, which the state keeps (v must be contiguous).
func newInner(a *alm, v *mat.Dense, mem int) *inner {
	r, c := v.Dims()
	fn := lagrangian{a: a, rows: r, cols: c}
	return &inner{Minimizer: lbfgs.New(fn, v.RawMatrix().Data, mem), fn: fn}
}

func (in *inner) v() *mat.Dense { return in.fn.dense(in.X) }

// minimize runs the L-BFGS, preconditioned by the Hessian diagonal at the
// start point (alm.precond).
func (in *inner) minimize(a *alm, tol float64, iters int, stop func() bool) int {
	if in.pre == nil {
		in.pre = mat.NewDense(in.fn.rows, in.fn.cols, nil)
		in.w = make([]float64, a.n*a.n)
	}
	a.precond(in.v(), in.pre, in.w)
	in.Mem.Pre = in.pre.RawMatrix().Data
	return in.Minimize(in.fn, tol, iters, stop)
}

// denseCertify is the largest face order whose certificates take every
// eigenvalue densely (eigen.Projector.Values: LAPACK's with the tag
// openblas, else gonum's tridiagonal reduction on internal/parblas), up
// to DefaultMaxOrder. Lanczos's few eigenvalues overstate dinf while many
// are negative (certify.Partial bounds each uncomputed one by the largest
// computed), which stalls the penalty's residual balancing and the
// protocol's test, give at most CertifyRank directions to grow the rank,
// and cost more than the dense eigenvalues at these orders; the dense
// certificate is exact and gives them all, but cannot be interrupted, so
// under a deadline it is not started when the last one took longer than
// the time left (certifier.took).
const denseCertify = DefaultMaxOrder

// certifier computes certificates on the minimal face from the dense
// compressed slack U^T S' U (sdr.Face.Compress of S' = C + A*(y) - P*(z),
// formed by sdr.Problem.DualSlack): every eigenvalue by a dense
// eigensolver up to order denseCertify (sdr.Problem.CertifyEigen: the
// exact dual infeasibility), beyond it the k smallest by thick-restart
// Lanczos on that matrix (certify.Partial).
type certifier struct {
	prob *sdr.Problem
	face *sdr.Face
	s    *sdr.Sym
	full *mat.SymDense // S', N x N
	comp *mat.SymDense // U^T S' U
	proj *eigen.Projector
	k    int
	warm *mat.Dense

	// deadline (zero for none) and took, the last dense eigendecomposition's
	// duration (before the first, Solve's estimate, certPerPass): a dense
	// certificate is not started when it would end past the deadline, since
	// it cannot be interrupted; the first one, which gives the first bound,
	// when it would end past first (Settings.RunDeadline).
	deadline, first time.Time
	took            time.Duration
	certified       bool
}

func newCertifier(prob *sdr.Problem, k int) *certifier {
	face := prob.Face()
	d := face.Dim()
	cf := &certifier{prob: prob, face: face, s: sdr.NewSym(prob), full: mat.NewSymDense(prob.N(), nil),
		comp: mat.NewSymDense(d, nil), k: max(1, min(k, d))}
	if d <= denseCertify {
		cf.proj = eigen.NewProjector(d)
	}
	return cf
}

// certify returns the certificate of (y, z) and the smallest eigenvalue
// estimates of the compressed slack, ascending (all of them on the dense
// path). vectors then returns the matching eigenvectors in Xbar's
// coordinates.
func (cf *certifier) certify(y, z []float64, tol float64, iters int, seed uint64, stop func() bool) (sdr.Certificate, []float64, error) {
	cf.prob.DualSlack(cf.s, y, z)
	raw := cf.full.RawSymmetric()
	clear(raw.Data)
	cf.s.AddTo(cf.full, 1)
	cf.face.Compress(cf.comp, cf.full)
	if cf.proj != nil {
		if !cf.fits() {
			return sdr.Certificate{}, nil, errNotCertified
		}
		t0 := time.Now()
		vals, ok := cf.proj.Values(cf.comp)
		cf.took, cf.certified = time.Since(t0), true
		if !ok {
			return sdr.Certificate{}, nil, errNotCertified
		}
		vals = append([]float64(nil), vals...)
		c, err := cf.prob.CertifyEigen(y, z, nil, vals)
		return c, vals, err
	}
	c, vecs, _, err := certify.Partial(cf.prob, eigen.SymOp{SymDense: cf.comp}, y, z, true, cf.k, cf.warm,
		eigen.Settings{Tol: tol, MaxIter: iters, Seed: seed, Stop: stop, Lanczos: true})
	if err != nil {
		return sdr.Certificate{}, nil, err
	}
	if math.IsInf(c.LowerBound, -1) {
		return c, nil, errNotCertified
	}
	cf.warm = vecs
	d, k := vecs.Dims()
	sv := mat.NewDense(d, k, nil)
	sv.Mul(cf.comp, vecs)
	vals := make([]float64, k)
	for j := range k {
		vals[j] = mat.Dot(vecs.ColView(j), sv.ColView(j)) / mat.Dot(vecs.ColView(j), vecs.ColView(j))
	}
	return c, vals, nil
}

// fits reports whether a dense certificate started now would end before
// the deadline (the first one: before first), by the last one's duration
// or the estimate.
func (cf *certifier) fits() bool {
	d := cf.deadline
	if !cf.certified {
		d = cf.first
	}
	return cf.proj == nil || d.IsZero() || time.Until(d) >= cf.took
}

// vectors returns the k smallest eigenvectors of the last certificate's
// compressed slack, in Xbar's coordinates (N x k).
func (cf *certifier) vectors(k int) *mat.Dense {
	d := cf.face.Dim()
	k = min(k, d)
	var vecs *mat.Dense
	if cf.proj != nil {
		vecs = mat.NewDense(d, k, nil)
		if _, ok := cf.proj.Smallest(cf.comp, k, vecs); !ok {
			return nil
		}
	} else {
		vecs = cf.warm.Slice(0, d, 0, min(k, cf.warm.RawMatrix().Cols)).(*mat.Dense)
		_, k = vecs.Dims()
	}
	lifted := mat.NewDense(cf.prob.N(), k, nil)
	cf.face.Lift(lifted, vecs)
	return lifted
}

// The rank grows when the certificate finds negative curvature at a
// factor of full rank once the primal side has converged, or
// rankPatience iterations after the last change without that (with the
// penalty balanced against a dual infeasibility that a low rank keeps
// large, the primal side may never converge there).
const rankPatience = 20

// rankGap is the ratio of the smallest to the largest eigenvalue of V^T V
// below which V counts as rank deficient.
const rankGap = 1e-3

// numRank is the number of eigenvalues of V^T V above rankGap times the
// largest: V's numerical rank. A rank deficient minimizer with negative
// curvature in the certificate means unconverged multipliers, not a rank
// too small.
func numRank(v *mat.Dense) int {
	var g mat.SymDense
	g.SymOuterK(1, v.T())
	var eig mat.EigenSym
	if !eig.Factorize(&g, false) {
		return 0
	}
	ev := eig.Values(nil)
	k := 0
	for _, l := range ev {
		if l > rankGap*ev[len(ev)-1] {
			k++
		}
	}
	return k
}

// column0 returns column 0 of v: row 0 of Xbar = V V^T.
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
	return w
}

// start returns the initial factor, of s.Rank columns: s.Start's (its row
// 0 rotated to e_1, small random columns added up to s.Rank, moved onto
// the affine set) with its multipliers, or the uniform point e_1/m_i per
// variable plus a random part of about half its norm.
func start(p *sdr.Problem, a *alm, s *Settings) *mat.Dense {
	n := p.N()
	rng := rand.New(rand.NewPCG(s.Seed, 0xde45e))
	if s.Start == nil || s.Start.Factor == nil {
		v := mat.NewDense(n, s.Rank, nil)
		for i, mi := range p.Card {
			sd := 0.5 / math.Sqrt(float64(mi*s.Rank)) // rows of norm about 1/(2 sqrt(m_i))
			for k := p.Offset[i]; k < p.Offset[i]+mi; k++ {
				for c := 1; c < s.Rank; c++ {
					v.Set(k, c, sd*rng.NormFloat64())
				}
			}
		}
		project(p, v)
		v.Set(0, 0, 1)
		for i, mi := range p.Card {
			for u := range mi {
				v.Set(p.Offset[i]+u, 0, 1/float64(mi))
			}
		}
		return v
	}
	a.setMultipliers(s.Start.Y, s.Start.Z)
	f := s.Start.Factor
	_, c := f.Dims()
	r := min(max(c, s.Rank), s.MaxRank)
	v := mat.NewDense(n, r, nil)
	v.Slice(0, n, 0, min(c, r)).(*mat.Dense).Copy(f)
	w := mat.Row(nil, 0, v) // Householder reflection taking row 0 to e_1
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
	for i := 1; i < n; i++ {
		for col := c; col < r; col++ {
			v.Set(i, col, 1e-3*rng.NormFloat64())
		}
	}
	onAffine(p, v)
	return v
}

// closeDual is the closing phase (docs/relaxation.md, "Factor ALM"): at
// most CloseRounds rounds, each an inner solve of at most CloseIter
// L-BFGS iterations (and as many as the run took) at the last
// multipliers and a smaller penalty, their update and a certificate,
// while the certified bound is more than closeTarget tol (the run's
// tightest tolerance: Tol, or TightenTo) below the primal
// objective (relative, as sdr.Gap) and the last round closed at least
// closeGain of that gap. A longer inner solve leaves a smaller gradient,
// and so a slack M = C + A*(y) - P*(z) with smaller negative eigenvalues,
// than the outer iterations' (the ALM is convex in X = V V^T, so at its
// exact minimizer the updated multipliers' slack is PSD on the face). Its
// bounds count when better; the factor and the objectives stay the run's.
func closeDual(a *alm, in *inner, cf *certifier, res *Result, s *Settings, tol float64, stop func() bool) {
	a.sigma = max(a.sigma/closeSigma, s.SigmaMin)
	iters := min(s.CloseIter, res.Inner)
	for round := 1; round <= s.CloseRounds && !stop() && cf.fits(); round++ {
		gap := res.PrimalObjective - res.SDRBound
		if gap <= closeTarget*tol*(1+math.Abs(res.PrimalObjective)+math.Abs(res.SDRBound)) {
			return
		}
		in.F = in.fn.Eval(in.X, in.G) // at the updated multipliers
		k := in.minimize(a, 1e-3*tol*a.cnorm, iters, stop)
		res.Inner += k
		a.update()
		y, z := a.dual(in.v())
		cert, _, err := cf.certify(y, z, s.CertifyTol, s.CertifyMaxIter, s.Seed+uint64(res.Iterations+round), stop)
		if err != nil {
			return
		}
		if cert.LowerBound > res.SDRBound {
			res.SDRBound, res.EnergyBound, res.BestY, res.BestZ = cert.LowerBound, cert.EnergyBound, y, z
		}
		if s.Verbose != nil {
			fmt.Fprintf(s.Verbose, "closing round %d: %d L-BFGS at sigma %.1e, bound %.9g (best %.9g)\n",
				round, k, a.sigma, cert.EnergyBound, res.EnergyBound)
		}
		if res.PrimalObjective-res.SDRBound > (1-closeGain)*gap {
			return
		}
	}
}

// The closing rounds run at the penalty divided by closeSigma (not below
// SigmaMin), whose inner solves converge further in CloseIter iterations,
// while the bound is more than closeTarget times Tol below the primal
// objective (relative, as sdr.Gap) and each closes at least closeGain of
// that gap.
//
// Under a time limit the outer iterations leave closingReserve of it to
// the closing rounds.
const (
	closingReserve = 0.2
	closeSigma     = 4
	closeTarget    = 0.25
	closeGain      = 0.2
)
