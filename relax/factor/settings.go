package factor

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
	Tol      float64 // stop when the gap and both infeasibilities of docs/relaxation.md, Protocol are at most Tol
	TolLoose float64 // at MaxIter or a limit, status SolvedInaccurate when they are at most TolLoose
	MaxIter  int     // outer iterations (multiplier updates)
	// Stall ends the run (as MaxIter does) after that many outer
	// iterations in a row in which the certified bound rose by at most Tol
	// relative and the primal infeasibility did not fall by a tenth
	// (solver.StallShrink); 0: never.
	Stall     int
	InnerIter int    // L-BFGS iterations per outer iteration, at most (3 InnerIter once the primal infeasibility is within Tol)
	Seed      uint64 // seed of the initial factor and of the eigensolver

	// Rank is the initial number of columns of V; the rank grows (at most
	// doubling at a time, up to MaxRank) by the certificate's directions
	// of negative curvature when the inner solve has converged.
	Rank, MaxRank int

	Sigma0   float64 // initial penalty, on costs scaled to a largest entry of 1
	SigmaMax float64 // largest penalty

	// Memory is the number of L-BFGS pairs; 0 chooses by the length of
	// the iteration's point: 10, or 5 from 131,072 entries on, where the
	// two-loop recursion streams its pairs from memory (pairs).
	Memory int

	// A certificate computes the CertifyRank smallest eigenpairs of the
	// compressed slack to relative tolerance CertifyTol with at most
	// CertifyMaxIter times CertifyRank operator applications (Lanczos,
	// certify.Partial; the SDR driver refines the best dual point after the
	// run, certify.Refine).
	CertifyRank    int
	CertifyTol     float64
	CertifyMaxIter int

	// CloseIter caps the closing inner solve (at most as many L-BFGS
	// iterations as the run took; 0: none): when the run ends with the
	// primal side within TolLoose, or by the time limit, and the best
	// bound more than Tol below the objective, the Lagrangian at the last
	// multipliers is minimized further, at a smaller penalty, and its
	// multiplier update certified (see closeDual). Under a time limit the
	// outer iterations leave it a fifth of the time.
	CloseIter int

	// Start, when not nil, warm-starts from its factor and multipliers.
	Start *Start

	// Probe, when not nil, is called every ProbeEvery outer iterations once
	// the gap and the primal infeasibility are at most ProbeTol, with the
	// result so far (valid during the call only); returning true ends the
	// run with status Solved (sdrmap: an assignment proven optimal).
	Probe      func(*Result) bool
	ProbeEvery int
	ProbeTol   float64

	Monitor func(*Iterate) // called after every outer iteration, when not nil
	Verbose io.Writer      // iteration table, nil for none
}

// DefaultSettings returns the settings used by sdrmap.
func DefaultSettings() Settings {
	return Settings{
		Tol: 1e-4, TolLoose: 1e-3, MaxIter: 2500, Stall: 50, InnerIter: 100,
		Rank: 8, MaxRank: 64,
		Sigma0: 10, SigmaMax: 1e7,
		CertifyRank: 8, CertifyTol: 1e-6, CertifyMaxIter: 100, CloseIter: 300,
		ProbeEvery: 1, ProbeTol: 0.1,
	}
}

func (s *Settings) check() error {
	switch {
	case !(s.Tol > 0) || !(s.TolLoose >= s.Tol):
		return fmt.Errorf("factor: tolerances must satisfy 0 < Tol <= TolLoose (got %g, %g)", s.Tol, s.TolLoose)
	case s.Stall < 0:
		return fmt.Errorf("factor: Stall must be nonnegative (got %d)", s.Stall)
	case s.MaxIter < 1 || s.InnerIter < 1:
		return fmt.Errorf("factor: MaxIter and InnerIter must be positive (got %d, %d)", s.MaxIter, s.InnerIter)
	case s.Rank < 1 || s.MaxRank < s.Rank:
		return fmt.Errorf("factor: ranks must satisfy 1 <= Rank <= MaxRank (got %d, %d)", s.Rank, s.MaxRank)
	case !(s.Sigma0 > 0) || !(s.SigmaMax >= s.Sigma0) || math.IsInf(s.Sigma0, 0):
		return fmt.Errorf("factor: penalties must satisfy 0 < Sigma0 <= SigmaMax (got %g, %g)", s.Sigma0, s.SigmaMax)
	case s.Memory < 0 || s.CertifyRank < 1 || s.CertifyMaxIter < 1:
		return fmt.Errorf("factor: CertifyRank and CertifyMaxIter must be positive, Memory not negative")
	case s.CloseIter < 0:
		return fmt.Errorf("factor: CloseIter must be nonnegative (got %d)", s.CloseIter)
	case !(s.CertifyTol > 0):
		return fmt.Errorf("factor: CertifyTol must be positive (got %g)", s.CertifyTol)
	case s.Probe != nil && s.ProbeEvery < 1:
		return fmt.Errorf("factor: ProbeEvery must be positive with a Probe")
	}
	return nil
}

// Start is a warm start: a factor of Xbar (N x c, any row 0 of norm 1) and
// the multipliers in sdr's layout (nil: zero), as a Result of the same
// problem gives them or sdr.Problem.Transfer maps them from a related one.
type Start struct {
	Factor *mat.Dense
	Y, Z   []float64
}

// Iterate is the state after one outer iteration, as the table shows it.
type Iterate struct {
	K                   int
	Inner               int     // L-BFGS iterations so far
	PrimalObjective     float64 // <C, V V^T>
	DualObjective       float64 // -<b, y>
	Gap                 float64 // docs/relaxation.md, Protocol, at the shifted dual point (Result.Shift)
	PrimalInfeasibility float64 // docs/relaxation.md, Protocol
	DualInfeasibility   float64 // docs/relaxation.md, Protocol on the face, at the shifted dual point
	Bound               float64 // best certified lower bound on min <C,Xbar> so far
	Rank                int
	Sigma               float64
	Time                time.Duration
}

// Result is the outcome of Solve. Objectives are in the minimization form
// <C,Xbar> of package sdr (energy = objective - Const).
type Result struct {
	Status solver.Status

	Factor *mat.Dense // Xbar = Factor Factor^T, N x Rank, row 0 = e_1
	Rank   int
	Y      []float64 // dual point of the last iterate (sdr layout)
	Z      []float64
	BestY  []float64 // the dual point of SDRBound, or the closing inner solve's (closeDual, certified or cut short by the time limit); nil if neither
	BestZ  []float64

	PrimalObjective     float64
	DualObjective       float64 // -<b, Y>
	Gap                 float64 // at ShiftDual(Y, Shift), whose dual objective is DualObjective - (n+1) Shift
	PrimalInfeasibility float64
	DualInfeasibility   float64 // on the minimal face, at ShiftDual(Y, Shift)

	// Shift is the t >= 0 at which the protocol (docs/relaxation.md, Protocol) measures the last
	// iterate's dual point: sdr.Problem.ShiftDual(Y, t), whose slack is
	// Y's plus t I (sdr.Problem.BestShift; 0 when not certified).
	Shift float64

	Iterations  int // outer iterations
	Inner       int // L-BFGS iterations
	Closing     int // of which in the closing inner solve (Settings.CloseIter)
	Evaluations int // evaluations of the Lagrangian and its gradient (two passes over the pattern each)
	Time        time.Duration

	// SDRBound is the best certified lower bound (docs/relaxation.md, Certified bound) on min <C,Xbar>;
	// EnergyBound = SDRBound - Const bounds the energy of every assignment.
	SDRBound, EnergyBound float64

	Marginals [][]float64 // Xbar[0,ia] = V[ia,0] per variable, in the Pairwise's numbering
}
