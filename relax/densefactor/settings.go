package densefactor

import (
	"fmt"
	"io"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/solver"
)

// Settings controls Solve. Start from DefaultSettings.
type Settings struct {
	Tol      float64 // stop when the gap and both infeasibilities of the protocol (docs/relaxation.md, "Protocol") are at most Tol
	TolLoose float64 // at MaxIter or a limit, status SolvedInaccurate when they are at most TolLoose
	MaxIter  int     // outer iterations (multiplier updates)

	// TightenTo, when positive and below Tol, makes a run that meets Tol go
	// on to Tol/10, Tol/100, ... down to TightenTo while the context
	// allows; stopped short of one, it returns the last iterate that met
	// the one before (status Solved) with the best bound of the run.
	TightenTo float64

	Seed uint64 // seed of the initial factor and of the eigensolver

	// InnerIter caps the L-BFGS iterations of an outer iteration;
	// InnerShort replaces it while the multipliers rather than the factor
	// lag: after an iteration whose primal infeasibility is above 10 Tol
	// or above the dual infeasibility.
	InnerIter, InnerShort int

	// The closing phase (docs/relaxation.md, "Factor ALM"): at most
	// CloseRounds inner solves of at most CloseIter L-BFGS iterations at
	// the final multipliers, each followed by their update and a
	// certificate, while the bound is loose (0 rounds: none).
	CloseIter, CloseRounds int

	// Rank is the initial number of columns of V (0: chosen by the order
	// N, InitialRank); it grows by the certificate's directions of
	// negative curvature, up to MaxRank (0: N).
	Rank, MaxRank int

	Sigma0   float64 // initial penalty, on costs scaled to a largest entry of 1 (0: by the costs' norm, see Solve)
	SigmaMin float64 // smallest penalty
	SigmaMax float64 // largest penalty
	Memory   int     // L-BFGS pairs

	// A certificate computes the CertifyRank smallest eigenpairs of the
	// slack on the minimal face to relative tolerance CertifyTol with at
	// most CertifyMaxIter restarts (thick-restart Lanczos, certify.Partial).
	CertifyRank    int
	CertifyTol     float64
	CertifyMaxIter int

	// MaxOrder is the largest N that Solve takes (0: any); a larger
	// problem gets ErrTooLarge. The solver holds several dense N x N
	// arrays and the certificate's work space (a few hundred N^2 bytes in
	// all), and one pass over them, which is not interrupted, grows as N^2
	// times the rank.
	MaxOrder int

	Start *Start // warm start, nil for none

	// RunDeadline, when later than ctx's deadline, is the whole run's
	// (relax.Settings.RunDeadline): the first dense certificate, which
	// cannot be interrupted, is started when it would end before it
	// (later ones: before ctx's).
	RunDeadline time.Time

	// Probe, when not nil, is called at the first outer iteration whose
	// gap and primal infeasibility are at most ProbeTol, with the result so
	// far (valid during the call only); returning true ends the run with
	// status Solved. While it returns false the next call waits ProbeEvery
	// outer iterations, then twice as many each time, up to 16 ProbeEvery.
	Probe      func(*Result) bool
	ProbeEvery int
	ProbeTol   float64

	Monitor func(*Iterate) // called after every outer iteration, when not nil
	Verbose io.Writer      // iteration table, nil for none
}

// DefaultSettings returns the settings used by sdrmap.
func DefaultSettings() Settings {
	return Settings{
		Tol: 1e-4, TolLoose: 1e-3, MaxIter: 1000, InnerIter: 25, InnerShort: 10,
		CloseIter: 50, CloseRounds: 3,
		SigmaMin: 0.1, SigmaMax: 1e7, Memory: 10,
		CertifyRank: 16, CertifyTol: 1e-6, CertifyMaxIter: 100,
		ProbeEvery: 1, ProbeTol: 0.1, MaxOrder: DefaultMaxOrder,
	}
}

// DefaultMaxOrder is Settings.MaxOrder of DefaultSettings: the largest
// order auto gives this solver.
const DefaultMaxOrder = 6000

func (s *Settings) check() error {
	switch {
	case !(s.TightenTo >= 0) || math.IsInf(s.TightenTo, 1):
		return fmt.Errorf("densefactor: TightenTo must be finite and nonnegative (got %g)", s.TightenTo)
	case !(s.Tol > 0) || !(s.TolLoose >= s.Tol):
		return fmt.Errorf("densefactor: tolerances must satisfy 0 < Tol <= TolLoose (got %g, %g)", s.Tol, s.TolLoose)
	case s.MaxIter < 1 || s.InnerIter < 1 || s.InnerShort < 1:
		return fmt.Errorf("densefactor: MaxIter, InnerIter and InnerShort must be positive (got %d, %d, %d)", s.MaxIter, s.InnerIter, s.InnerShort)
	case s.CloseIter < 0 || s.CloseRounds < 0:
		return fmt.Errorf("densefactor: CloseIter and CloseRounds must be nonnegative (got %d, %d)", s.CloseIter, s.CloseRounds)
	case s.Rank < 0 || s.MaxRank < 0 || s.MaxRank > 0 && s.Rank > s.MaxRank:
		return fmt.Errorf("densefactor: ranks must satisfy 0 <= Rank <= MaxRank (got %d, %d)", s.Rank, s.MaxRank)
	case !(s.SigmaMin > 0) || !(s.Sigma0 == 0 || s.Sigma0 >= s.SigmaMin) || !(s.SigmaMax >= max(s.Sigma0, s.SigmaMin)) || math.IsInf(s.SigmaMax, 0):
		return fmt.Errorf("densefactor: penalties must satisfy 0 < SigmaMin <= Sigma0 <= SigmaMax < Inf, or Sigma0 = 0 (got %g, %g, %g)", s.SigmaMin, s.Sigma0, s.SigmaMax)
	case s.Memory < 1 || s.CertifyRank < 1 || s.CertifyMaxIter < 1 || !(s.CertifyTol > 0):
		return fmt.Errorf("densefactor: Memory, CertifyRank, CertifyMaxIter and CertifyTol must be positive")
	case s.Probe != nil && s.ProbeEvery < 1:
		return fmt.Errorf("densefactor: ProbeEvery must be positive with a Probe")
	}
	return nil
}

// Start is a warm start: a factor of Xbar (N x c, row 0 of norm 1) and the
// multipliers in sdr's layout (nil: zero).
type Start struct {
	Factor *mat.Dense
	Y, Z   []float64
}

// Iterate is the state after one outer iteration, as the table shows it.
type Iterate struct {
	K                   int
	Inner               int     // L-BFGS iterations so far
	PrimalObjective     float64 // <C, V V^T>
	Gap                 float64 // the protocol's, at the shifted dual point (Result.Shift)
	PrimalInfeasibility float64 // the protocol's
	DualInfeasibility   float64 // the protocol's, on the face, at the shifted dual point (NaN: not certified)
	Bound               float64 // best certified lower bound on min <C,Xbar> so far
	Rank                int
	Sigma               float64
	Time                time.Duration
}

// Result is the outcome of Solve, in the minimization form <C,Xbar> of
// package sdr (energy = objective - Const).
type Result struct {
	Status solver.Status

	Factor *mat.Dense // Xbar = Factor Factor^T, N x Rank, row 0 = e_1
	Rank   int
	Y, Z   []float64 // dual point of the last iterate (sdr layout)
	BestY  []float64 // the dual point of SDRBound (nil if none)
	BestZ  []float64

	PrimalObjective     float64
	DualObjective       float64 // -<b, Y>
	Gap                 float64 // at ShiftDual(Y, Shift)
	PrimalInfeasibility float64
	DualInfeasibility   float64 // on the minimal face, at ShiftDual(Y, Shift)
	Shift               float64 // sdr.Problem.BestShift's t (0 when not certified)

	Iterations  int // outer iterations
	Inner       int // L-BFGS iterations
	Evaluations int // evaluations of L and its gradient
	Time        time.Duration

	// SDRBound is the best certified lower bound (docs/relaxation.md, "Certified bound") on min <C,Xbar>;
	// EnergyBound = SDRBound - Const bounds the energy of every assignment.
	SDRBound, EnergyBound float64

	Marginals [][]float64 // Xbar[0,ia] = V[ia,0] per variable, in the Pairwise's numbering
}
