package sdpad

import (
	"io"

	"gonum.org/v1/gonum/mat"
)

// MaxStepLength is the golden ratio (1 + sqrt 5) / 2, the bound on
// Settings.StepLength.
const MaxStepLength = 1.618033988749895

// Parameters of the paper's Algorithm 1 (docs/relaxation.md, SDPAD).
const (
	PaperMuMin   = 1e-3 // initial penalty mu_min
	PaperRho     = 1.005
	PaperEps     = 1e-4 // tolerance of the paper's stopping rule
	PaperMaxIter = 1000 // k_max of SDPAD

	PaperRank      = 4    // initial rank of SDPAD-LR
	PaperMaxRank   = 32   // r_max
	PaperRankDelta = 1e-2 // delta of the rank test
	PaperRankEvery = 1000 // iterations between rank tests
)

// StopRule selects the convergence test.
type StopRule int

const (
	// Protocol stops when the gap and both infeasibilities of the
	// evaluation protocol (docs/relaxation.md, Protocol) are at most Tol.
	Protocol StopRule = iota
	// Paper stops on the paper's min(mu ||Xbar_k - Xbar_{k-1}||_F,
	// ||A(Xbar_k) - b||) <= Eps.
	Paper
)

// Schedule selects how the penalty mu evolves.
type Schedule int

const (
	// Balanced adapts mu by residual balancing (default): every
	// BalanceEvery iterations a certificate gives the exact dual
	// infeasibility dinf, and when pinf/dinf is above BalanceRatio (or
	// below its inverse) mu is multiplied by sqrt(pinf/dinf), clamped to
	// [1/BalanceFactor, BalanceFactor] and to [MuMin, MuMax]. It starts
	// at Mu0.
	Balanced Schedule = iota
	// Geometric is the paper's schedule: mu starts at MuMin and becomes
	// Rho mu after every iteration, capped at MuMax when MuMax > 0 (the
	// paper has no cap).
	Geometric
)

// Settings controls Solve. Start from DefaultSettings (or PaperSettings).
type Settings struct {
	MaxIter int // iteration limit
	// Stall ends the run (as MaxIter does) after that many iterations in a
	// row in which the certified bound rose by at most Tol relative and the
	// primal infeasibility did not fall by a tenth (solver.StallShrink); 0:
	// never.
	Stall int

	// MaxOrder is the largest N that Solve takes (0: any); a larger
	// problem gets ErrTooLarge. An iteration of Solve is a dense
	// eigendecomposition of order N - n (on the face; N for the closing
	// certificate), which looks at no context or time limit, and its time
	// grows as the cube of the order (bench/results/2026-11-27/NOTES.md,
	// "The dense SDPAD above N = 4000"). The dense matrices take about
	// 100 N^2 bytes. SolveLR has no such
	// limit.
	MaxOrder int

	StopRule StopRule
	Tol      float64 // Protocol: gap and inf (docs/relaxation.md, Protocol) at most Tol
	TolLoose float64 // at MaxIter, status SolvedInaccurate instead of MaxIterations if gap and inf are at most TolLoose
	Eps      float64 // Paper: the paper's epsilon

	// TightenTo, when positive and below Tol (StopRule Protocol), makes
	// meeting the protocol at Tol the start of a continuation instead of
	// the end: the run goes on to Tol/10, Tol/100, ... down to TightenTo.
	// When that holds the run ends there, Solved; when ctx, MaxIter or
	// Stall ends it first, the result is the last iterate at which the
	// protocol held (certified as at a stop, a copy of Xbar), with the
	// best bound and the iterations of the whole run, Solved (Interrupted
	// when ctx was cancelled). Under a time limit the time left after Tol
	// so tightens the certified bound (docs/relaxation.md, Certified
	// bound) without losing the iterate that met Tol.
	TightenTo float64

	Schedule      Schedule
	MuMin         float64 // Geometric: initial mu (the paper's mu_min); Balanced: lower limit of mu
	Mu0           float64 // Balanced: initial mu; 0 for ||C||_F / sqrt(N) in SolveLR, DenseMuShare of it in Solve
	Rho           float64 // Geometric: growth factor per iteration
	MuMax         float64 // upper limit of mu, 0 for none (the paper)
	BalanceEvery  int     // Balanced: iterations between adaptations (each costs a certificate)
	BalanceRatio  float64 // Balanced: ratio pinf/dinf (or its inverse) that triggers an adaptation
	BalanceFactor float64 // Balanced: largest change of mu in one adaptation

	// BalanceFirst (Solve only; SolveLR ignores it): with Balanced, mu is
	// also adapted at BalanceFirst, 2 BalanceFirst, 4 BalanceFirst, ...
	// below BalanceEvery, so that a poor initial mu is corrected within
	// the first BalanceEvery iterations; 0 for none.
	BalanceFirst int
	// BalanceGapRatio (Solve only; SolveLR ignores it): when positive,
	// residual balancing weighs max(pinf, gap_p) against max(dinf, gap_d)
	// and adapts mu when that ratio (or its inverse) exceeds
	// BalanceGapRatio instead of BalanceRatio; gap_d and gap_p split the
	// gap (docs/relaxation.md, Protocol) into the part of the dual step,
	// |<S', X>| at the primal point X, and the rest (see the package doc,
	// "Penalty schedule"); 0 balances pinf against dinf.
	BalanceGapRatio float64

	// ExactZ makes the z-step the exact minimization of the dual
	// augmented Lagrangian over z >= 0, as the y-step is over y: z -
	// mu (P P*)^{-1} P(Xt) = z - 2 mu P(Xt), clipped at 0 (A and P touch
	// disjoint entries of Xbar, so the two minimizations are independent;
	// docs/relaxation.md, Operators and SDPAD). Without it the step is the paper's z - mu P(Xt), half of
	// that, which takes more iterations (see the package doc).
	ExactZ bool

	// StepLength is the step gamma of the multiplier Xbar in the dense
	// Solve: Xbar_k = (1 - gamma) Xbar_{k-1} + gamma Proj(Xbar_{k-1} -
	// S'/mu), with the extrapolation Xt = (1 + 1/gamma) Xbar_{k-1} -
	// Xbar_{k-2}/gamma that keeps the y- and z-steps the exact
	// minimizations (the paper's is gamma = 1). With ExactZ the method converges
	// for gamma in (0, MaxStepLength) (Fortin and Glowinski's step for
	// two-block ADMM; Wen, Goldfarb and Yin take 1.6). SolveLR takes 1: a
	// relaxed factor would have twice the rank.
	StepLength float64

	// BoundEvery: the certified bound (docs/relaxation.md, Certified bound) and the exact dual
	// infeasibility are computed every BoundEvery iterations (dense
	// eigenvalues of the dual slack) and always at the end.
	BoundEvery int

	// Face projects onto the minimal face F = {X PSD : X v_i = 0} that
	// holds the feasible set (facial reduction as a change of cone, see
	// sdr.Face) instead of the whole PSD cone (the paper). The feasible
	// set and the optimum are the same, but the unreduced SDR has no
	// strictly feasible point (docs/relaxation.md, Minimal face) and its dual iterates drift, while the
	// face problem has one when no pair is forbidden. The stopping rule
	// then measures the dual infeasibility against the dual cone of F
	// (Result.FaceDualInfeasibility).
	Face bool

	// Low rank (SolveLR, docs/relaxation.md, SDPAD-LR): Xbar = Y Y^T with Y of N x Rank
	// columns; every RankEvery iterations, if the smallest kept eigenvalue
	// exceeds RankDelta times the largest, the rank doubles up to MaxRank.
	Rank, MaxRank int
	RankDelta     float64
	RankEvery     int
	// EigenTol and EigenMaxIter are the relative residual tolerance and
	// iteration limit of the eigensolver (package eigen) in each low-rank
	// projection; CertifyTol is its tolerance for the certificates, which
	// compute the CertifyRank smallest eigenpairs of the dual slack (the
	// closing certificate uses closeCertifyTol).
	EigenTol     float64
	EigenMaxIter int
	CertifyTol   float64
	CertifyRank  int

	// Start, when not nil, warm-starts the iteration from its point
	// instead of Xbar = 0, y = 0, z = 0.
	Start *Start

	// Monitor, when not nil, is called after every iteration with the
	// iterate (valid during the call only); it must be quick.
	Monitor func(*Iterate)

	Verbose      io.Writer // iteration table, nil for none
	VerboseEvery int       // rows of the table every VerboseEvery iterations (and at least every 5 s)

	// RestartEvery: every RestartEvery iterations, after the adaptation
	// of mu, the iteration restarts from the average of its iterates
	// (Xbar, y, z) since the last restart when that average is closer to
	// optimal (see "Restarts from the average" in the package doc), as
	// restarted primal-dual methods do (PDLP); 0 for never (the paper).
	RestartEvery int

	// Anderson is the memory m of the Anderson acceleration of the dense
	// iteration (Solve only; see the package doc), 0 for none (the
	// paper); it is shortened so that its 2 m + 5 vectors of the state's
	// length fit in 1 GiB, and off when fewer than 2 fit.
	Anderson int

	// Probe, when not nil, is called every ProbeEvery iterations once the
	// gap and the primal infeasibility are at most ProbeTol, with the
	// result so far (valid during the call only); returning true ends the
	// run with status Solved: the caller has what it solves for (sdrmap:
	// an assignment proven optimal by a certificate at it). The default,
	// every 20 iterations from gap and pinf 0.1 on, lets a probe come at
	// the first iterate that can prove (bench/results/2026-11-22/NOTES.md,
	// "ORIENT tightness against noise").
	Probe      func(*Result) bool
	ProbeEvery int
	ProbeTol   float64

	dropP bool // test only: solve without P(Xbar) >= 0

}

// Start is a warm start: multipliers, a factor of Xbar and the penalty, as
// a Result of the same problem gives them or as sdr.Problem.Transfer maps
// them from a related one. The factor is projected onto the cone (the
// minimal face in Face mode) and, for SolveLR, truncated to its top
// max(Rank, columns) singular directions, at most MaxRank.
type Start struct {
	Y, Z   []float64  // lengths prob.Y.Len and prob.NumZ
	Factor *mat.Dense // Xbar = Factor Factor^T, N x c
	Mu     float64    // penalty; 0 keeps the schedule's initial one
}

// DenseMuShare is the share of ||C||_F / sqrt(N) at which the dense Solve
// starts mu by default. A smaller mu weights dual feasibility, whose
// iterates give the certified bound: with a quarter, auto's bounds on the
// dense object-detection models came closer to the energy and the small
// Potts grid needed fewer iterations; SDPAD-LR keeps the whole ratio, which
// ORIENT needs (bench/results/2026-11-26/NOTES.md, "Dense projections and
// the initial penalty").
const DenseMuShare = 0.25

// DefaultMaxOrder is Settings.MaxOrder of DefaultSettings: 1.6 GB of
// dense matrices (100 N^2 bytes), and the largest order whose
// uninterruptible iterations stay reasonably short on one core.
const DefaultMaxOrder = 4000

// DefaultSettings returns the settings used by sdrmap: facial reduction,
// residual balancing on the exact infeasibilities, and the evaluation
// protocol at the paper's epsilon 1e-4 (see the package doc for the
// measurements behind this choice).
func DefaultSettings() Settings {
	return Settings{
		MaxIter:       20000,
		Stall:         1000,
		MaxOrder:      DefaultMaxOrder,
		StopRule:      Protocol,
		Tol:           PaperEps,
		TolLoose:      1e-2,
		Eps:           PaperEps,
		Schedule:      Balanced,
		MuMin:         PaperMuMin,
		Rho:           PaperRho,
		BalanceEvery:  100,
		BalanceRatio:  5,
		BalanceFactor: 2,
		BoundEvery:    20,
		Face:          true,
		ExactZ:        true,
		StepLength:    1.6,
		Rank:          PaperRank,
		MaxRank:       PaperMaxRank,
		RankDelta:     PaperRankDelta,
		RankEvery:     100,
		EigenTol:      1e-6,
		EigenMaxIter:  20,
		CertifyTol:    1e-6,
		CertifyRank:   8,
		VerboseEvery:  100,
		RestartEvery:  100,
		ProbeEvery:    20,
		ProbeTol:      1e-1,
		Anderson:      10,

		BalanceFirst:    20,
		BalanceGapRatio: 3,
	}
}

// PaperSettings returns the paper's Algorithm 1 as published: the whole PSD
// cone, mu from mu_min = 1e-3 growing by rho = 1.005 without bound, the
// paper's stopping rule with eps = 1e-4, k_max = 1000, and the paper's steps
// (docs/relaxation.md, SDPAD: no ExactZ, StepLength 1).
func PaperSettings() Settings {
	s := DefaultSettings()
	s.MaxIter = PaperMaxIter
	s.Stall = 0
	s.StopRule = Paper
	s.Schedule = Geometric
	s.Face = false
	s.ExactZ = false
	s.StepLength = 1
	s.RankEvery = PaperRankEvery
	s.RestartEvery = 0
	s.Anderson = 0
	return s
}
