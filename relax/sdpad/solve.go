package sdpad

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// ErrTooLarge is Solve's error for a problem of order above
// Settings.MaxOrder.
var ErrTooLarge = errors.New("sdpad: too large for the dense SDPAD")

// Solve runs Algorithm 1 of the paper (SDPAD, docs/relaxation.md, SDPAD) on prob with a dense
// eigendecomposition per iteration (see Projection in the package doc). It
// returns an error only for invalid settings or a problem above
// Settings.MaxOrder (ErrTooLarge); numerical trouble gives status
// Failed, whose result must not be used. Cancelling ctx stops the run with
// status Interrupted, the time limit with OutOfTime; both keep the last
// iterate and the best certified bound so far.
func Solve(ctx context.Context, prob *sdr.Problem, s Settings) (*Result, error) {
	if err := s.check(prob); err != nil {
		return nil, err
	}
	if n := prob.N(); s.MaxOrder > 0 && n > s.MaxOrder {
		return nil, fmt.Errorf("%w: N = %d is above the limit %d (sdpad.Settings.MaxOrder): each iteration would be a dense eigendecomposition of order %d, which is not interrupted, and the matrices would take about %.1f GB; the low-rank SDPAD-LR (--solver sdpad-lr) and the factor ALM (--solver factor) scale",
			ErrTooLarge, n, s.MaxOrder, n-prob.NumVars(), 100*float64(n)*float64(n)/1e9)
	}
	if s.Schedule == Balanced && s.Mu0 <= 0 {
		s.Mu0 = max(s.MuMin, DenseMuShare*ratioMu(prob, 0))
	}
	dn := newDense(prob, s.Face, s.StepLength)
	dn.hurry = func() bool { return ctx.Err() != nil && prob.N() > hurryDenseMax }
	st := newState(prob, s, dn)
	st.gamma = s.StepLength
	st.residualBound = true
	st.acc = newAnderson(s.Anderson, st.stateLen(dn))
	return st.run(ctx, "sdpad (projection: "+eigen.Backend()+")"), nil
}

// run iterates until a stopping rule holds and returns the result.
func (st *state) run(ctx context.Context, name string) *Result {
	s := &st.s
	start := time.Now()
	st.header(name)
	status, probed := solver.Unsolved, false
	tol := s.Tol    // s.Tol falls below it when the run tightens (Settings.TightenTo)
	var met *Result // when it did: the last iterate at which the protocol held
	k := 0
	// Settings.Stall: iterations since the last progress, and the bound
	// and primal infeasibility it is measured against.
	stalled, stallBound, stallPinf := 0, math.Inf(-1), math.Inf(1)
	for status == solver.Unsolved {
		k++
		if !st.step() {
			status = solver.Failed
			break
		}
		it := &st.it
		it.K = k
		it.Time = time.Since(start)
		if st.wantCertificate(k) && !st.certify(k, certRun) {
			status = solver.Failed
			break
		}
		it.Bound = st.bestLow
		if b := st.bestLow; b > stallBound+s.Tol*(1+math.Abs(b)) || it.PrimalInfeasibility < solver.StallShrink*stallPinf {
			stalled, stallBound, stallPinf = 0, max(stallBound, b), min(stallPinf, it.PrimalInfeasibility)
		} else {
			stalled++
		}
		switch {
		case s.StopRule == Protocol && st.converged():
			if m, ok := st.tighten(k); !ok {
				status = solver.Failed
			} else if m == nil {
				status = solver.Solved
			} else {
				met = m
			}
		case s.StopRule == Paper && st.paperStop():
			status = solver.SolvedInaccurate
		case k >= s.MaxIter || s.Stall > 0 && stalled >= s.Stall:
			status = solver.MaxIterations
		case ctx.Err() != nil:
			status = solver.StopStatus(ctx)
		}
		if status == solver.Unsolved && st.probe(k) {
			status, probed = solver.Solved, true
		}
		if s.Monitor != nil {
			s.Monitor(it)
		}
		if s.Verbose != nil && (k%s.VerboseEvery == 0 || it.Time-st.lastRow >= verboseInterval) {
			st.row()
		}
		if status == solver.Unsolved {
			st.adapt(k)
			if s.RestartEvery > 0 {
				st.accumulate()
				if k%s.RestartEvery == 0 {
					st.restart()
				}
			}
			if st.acc != nil {
				st.accelerate()
			}
		}
	}
	s.Tol = tol
	mode := certClose
	if status == solver.OutOfTime || status == solver.Interrupted || probed {
		mode = certHurry
	}
	if status != solver.Failed && (st.lastCert != k || s.Face) && !st.certify(k, mode) {
		status = solver.Failed
	}
	if status != solver.Failed {
		status = st.final(status)
	}
	st.it.Time = time.Since(start)
	if s.Verbose != nil {
		if st.rowK != k {
			st.row()
		}
		accel := ""
		if a := st.acc; a != nil {
			accel = fmt.Sprintf(", %d Anderson steps taken, %d rejected", a.accepted, a.rejected)
		}
		fmt.Fprintf(s.Verbose, "status %v after %d iterations (%d restarts from the average%s), %v; energy bound %.10g\n", status, k, st.avg.restarts, accel, st.it.Time.Round(time.Millisecond), st.bestE)
	}
	if met != nil && status != solver.Solved && status != solver.Failed {
		return st.resume(met, status)
	}
	return st.result(status)
}

// probe calls Settings.Probe at iteration k when it is due.
func (st *state) probe(k int) bool {
	s, it := &st.s, &st.it
	if s.Probe == nil || k%s.ProbeEvery != 0 || max(it.Gap, it.PrimalInfeasibility) > s.ProbeTol {
		return false
	}
	return s.Probe(st.result(solver.Unsolved))
}

// tighten is called when the protocol holds at s.Tol at iteration k. Down
// to Settings.TightenTo it keeps a copy of the iterate, certified as at a
// stop, and divides s.Tol by tightenFactor until the protocol no longer
// holds, and returns the copy; nil when the run stops here, false when
// the certificate failed.
func (st *state) tighten(k int) (*Result, bool) {
	s := &st.s
	if !(s.TightenTo > 0 && s.Tol > s.TightenTo) {
		return nil, true
	}
	if !st.certify(k, certClose) {
		return nil, false
	}
	met := st.result(solver.Solved).detach()
	for s.Tol > s.TightenTo {
		s.Tol = max(s.Tol/tightenFactor, s.TightenTo)
		if !st.converged() {
			if s.Verbose != nil {
				fmt.Fprintf(s.Verbose, "protocol met at iteration %d: going on to %.3g\n", k, s.Tol)
			}
			return met, true
		}
	}
	return nil, true
}

// resume returns met, the last iterate at which the protocol held in a run
// tightened past it that then stopped with status (Settings.TightenTo),
// with the run's best bound and iterations; Solved, or Interrupted when
// the run was cancelled.
func (st *state) resume(met *Result, status solver.Status) *Result {
	last := st.result(status)
	met.Status = solver.Solved
	if status == solver.Interrupted {
		met.Status = status
	}
	met.SDRBound, met.EnergyBound, met.BestY, met.BestZ = last.SDRBound, last.EnergyBound, last.BestY, last.BestZ
	met.Iterations, met.Time, met.Restarts = last.Iterations, last.Time, last.Restarts
	if w := st.s.Verbose; w != nil {
		fmt.Fprintf(w, "returned: the iterate at which the protocol last held (objective %.10g, gap %.2e, pinf %.2e)\n", met.PrimalObjective, met.Gap, met.PrimalInfeasibility)
	}
	return met
}

// tightenFactor divides the tolerance at each step of a continuation
// (Settings.TightenTo).
const tightenFactor = 10

// wantCertificate reports whether iteration k takes a certificate: every
// BoundEvery iterations, on every row of the table, at every adaptation of
// mu, and when the protocol holds but for the dual infeasibility, which
// then needs its exact value (at most every certifyTail iterations).
func (st *state) wantCertificate(k int) bool {
	s, it := &st.s, &st.it
	if k%s.BoundEvery == 0 || (s.Verbose != nil && k%s.VerboseEvery == 0) ||
		(s.Schedule == Balanced && s.balanceDue(k)) {
		return true
	}
	return it.Gap <= s.Tol && it.PrimalInfeasibility <= s.Tol && k-st.lastCert >= certifyTail &&
		(it.DualResidual > s.Tol || !st.residualBound)
}

func (s *Settings) check(prob *sdr.Problem) error {
	if st := s.Start; st != nil {
		if len(st.Y) != prob.Y.Len || len(st.Z) != prob.NumZ || st.Factor == nil {
			return fmt.Errorf("sdpad: warm start has |y| = %d, |z| = %d, want %d, %d and a factor", len(st.Y), len(st.Z), prob.Y.Len, prob.NumZ)
		}
		if r, _ := st.Factor.Dims(); r != prob.N() {
			return fmt.Errorf("sdpad: warm start factor has %d rows, want N = %d", r, prob.N())
		}
		if !(st.Mu >= 0) || math.IsInf(st.Mu, 1) {
			return fmt.Errorf("sdpad: warm start penalty %g is not finite and nonnegative", st.Mu)
		}
	}
	switch {
	case !(s.TightenTo >= 0) || math.IsInf(s.TightenTo, 1):
		return errors.New("sdpad: TightenTo must be finite and nonnegative")
	case s.MaxIter <= 0:
		return errors.New("sdpad: MaxIter must be positive")
	case s.Stall < 0:
		return errors.New("sdpad: Stall must be nonnegative")
	case !(s.Tol > 0) || !(s.TolLoose >= s.Tol):
		return errors.New("sdpad: need 0 < Tol <= TolLoose")
	case !(s.MuMin > 0):
		return errors.New("sdpad: MuMin must be positive")
	case s.Schedule == Geometric && !(s.Rho >= 1):
		return errors.New("sdpad: Rho must be at least 1")
	case s.Schedule == Balanced && (s.BalanceEvery <= 0 || s.BalanceFirst < 0 || !(s.BalanceRatio > 1) || !(s.BalanceFactor > 1) || !(s.BalanceGapRatio == 0 || s.BalanceGapRatio > 1)):
		return errors.New("sdpad: need BalanceEvery > 0, BalanceFirst >= 0, BalanceRatio > 1, BalanceFactor > 1, BalanceGapRatio 0 or above 1")
	case s.StopRule == Paper && !(s.Eps > 0):
		return errors.New("sdpad: Eps must be positive")
	case !(s.StepLength > 0 && s.StepLength < MaxStepLength):
		return fmt.Errorf("sdpad: StepLength %g outside (0, %g)", s.StepLength, MaxStepLength)
	case s.BoundEvery <= 0:
		return errors.New("sdpad: BoundEvery must be positive")
	case s.Probe != nil && s.ProbeEvery <= 0:
		return errors.New("sdpad: ProbeEvery must be positive")
	case s.RestartEvery < 0:
		return errors.New("sdpad: RestartEvery must be nonnegative")
	case s.Rank <= 0 || s.MaxRank < s.Rank || s.RankEvery <= 0 || !(s.RankDelta >= 0):
		return errors.New("sdpad: need 0 < Rank <= MaxRank, RankEvery > 0, RankDelta >= 0")
	case !(s.EigenTol > 0) || !(s.CertifyTol > 0) || s.EigenMaxIter <= 0 || s.CertifyRank <= 0:
		return errors.New("sdpad: need EigenTol, CertifyTol, EigenMaxIter, CertifyRank positive")
	case s.Verbose != nil && s.VerboseEvery <= 0:
		return errors.New("sdpad: VerboseEvery must be positive")
	}
	return nil
}
