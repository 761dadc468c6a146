// Package relax is the contract between the SDR driver (package
// relax/driver: rounding, probes, the complement certificate, iterative
// rounding) and the relaxation solvers: the Solver interface and its
// settings, warm start and solution. A new relaxation solver implements
// Solver and nothing else; sdpad.Relaxer (SDPAD and SDPAD-LR) is one.
package relax

import (
	"context"
	"io"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// Solver solves the SDR of prob (docs/relaxation.md, Relaxation) in the minimization form <C,Xbar>
// of package sdr. It returns an error only for invalid settings; numerical
// trouble is status Failed, whose solution must not be used. Cancelling ctx
// ends the run with status Interrupted, the time limit with OutOfTime; both
// keep the last iterate and the best certified bound so far.
type Solver interface {
	Relax(ctx context.Context, prob *sdr.Problem, s Settings) (*Solution, error)
}

// Settings are what the driver asks of every relaxation solver. Zero
// values mean the solver's default.
type Settings struct {
	Tol           float64 // relative tolerance of the protocol (docs/relaxation.md, Protocol: gap and infeasibilities)
	MaxIter       int     // iteration limit
	Rank, MaxRank int     // factor-form solvers: initial and largest rank
	Seed          uint64  // randomized steps; runs are deterministic per seed
	Start         *Start  // warm start, nil for none

	// Tighten asks the solver to go on past Tol to tighter tolerances
	// while ctx allows, for a tighter certified bound, and to return the
	// last iterate that met one of them (the driver asks it of its first
	// relaxation under a time limit at the default Tol); a solver may
	// ignore it (the dense SDPAD takes it: sdpad.TightenFloor).
	Tighten bool

	// RunDeadline is the whole run's deadline (zero: none), at or after
	// ctx's (the relaxation's share): a step that cannot be interrupted and
	// would give the first certified bound may run past ctx's deadline,
	// into the search's share, but should end before this one.
	RunDeadline time.Time

	// Probe, when not nil, is called now and then with the solution so
	// far (valid during the call only) once the iterate is near enough to
	// be worth rounding; returning true ends the run with status Solved:
	// the caller has what it solves for (an assignment proven optimal).
	Probe func(*Solution) bool

	Log      io.Writer     // iteration table, nil for none
	Progress func(Iterate) // called after iterations, nil for none; must be quick
}

// Iterate is what a progress call reports.
type Iterate struct {
	Iteration int
	Time      time.Duration // since the start of the relaxation
	Bound     float64       // best certified energy bound so far (-Inf before the first)
	Gap       float64       // relative gap of the protocol (docs/relaxation.md, Protocol)

	PrimalInfeasibility float64 // the protocol's
}

// Start is a warm start: multipliers, a factor of Xbar and the penalty, as
// a Solution of the same problem gives them or as sdr.Problem.Transfer maps
// them from a related one.
type Start struct {
	Y, Z    []float64  // lengths prob.Y.Len and prob.NumZ
	Factor  *mat.Dense // Xbar = Factor Factor^T, N x c
	Penalty float64    // 0: the solver's own initial penalty
}

// Solution is the outcome of a relaxation solver. Objectives are in the
// minimization form <C,Xbar> of package sdr (energy = objective - Const).
type Solution struct {
	Status solver.Status

	X      *mat.SymDense // Xbar, from solvers that form it (then its certificates are dense ones); else nil
	Factor *mat.Dense    // Xbar = Factor Factor^T (N x Rank), when X is nil
	Rank   int

	Y, Z         []float64 // final dual point, layout sdr.Layout; z >= 0, one per entry of P
	BestY, BestZ []float64 // the dual point to refine: that of EnergyBound, or one the solver deems a better start, certified or not (nil if none)
	EnergyBound  float64   // best certified lower bound on every assignment's energy (docs/relaxation.md, Certified bound), -Inf if none

	PrimalObjective     float64 // <C, Xbar>
	DualObjective       float64 // -<b, y>
	Gap                 float64 // docs/relaxation.md, Protocol, as the solver's stopping rule measures it (factor: at a shift of y, factor.Result.Shift)
	PrimalInfeasibility float64 // docs/relaxation.md, Protocol
	DualInfeasibility   float64 // docs/relaxation.md, Protocol, as the solver's stopping rule measures it (sdpad: against the face's dual cone; factor: on the face, at the shifted y)

	Iterations int
	Restarts   int     // restarts of the iteration, if the solver has them
	Penalty    float64 // final penalty, a warm start's Penalty

	Marginals [][]float64 // Marginals[i][a] = Xbar[0,ia] in the pairwise model's state numbering
}

// RowFactor returns Factor, or the column X[:, 0] (the rank-one part along
// row 0 when Xbar_00 = 1): without an eigendecomposition, enough for the
// argmax of the marginals (rounding.Sample's first draw), where FactorOf of
// a dense X can take long.
func (s *Solution) RowFactor() *mat.Dense {
	if s.Factor != nil {
		return s.Factor
	}
	n := s.X.SymmetricDim()
	y := mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, s.X.At(0, i))
	}
	return y
}

// FactorOf returns a factor F with F F^T = Xbar: Factor, or one of X by
// pivoted Cholesky (O(N r^2) for X of rank r), stopped when the largest
// diagonal entry left is at most factorTol. Any F with F F^T = X gives the
// randomized rounding the same law (F g ~ N(0, X)). It replaces a dense
// eigendecomposition, which at moderate N overran short time limits.
func (s *Solution) FactorOf() *mat.Dense {
	if s.Factor != nil {
		return s.Factor
	}
	return pivotedCholesky(s.X, factorTol)
}

// factorTol is the residual diagonal at which FactorOf stops (Xbar's
// diagonal entries are marginals, at most 1).
const factorTol = 1e-9

// pivotedCholesky returns F (n x r) with F F^T = x up to a largest residual
// diagonal entry tol, choosing the largest residual diagonal as the next
// pivot (at least one column).
func pivotedCholesky(x *mat.SymDense, tol float64) *mat.Dense {
	n := x.SymmetricDim()
	d := make([]float64, n)
	for i := range d {
		d[i] = x.At(i, i)
	}
	var cols [][]float64
	for len(cols) < n {
		p := 0
		for i, v := range d {
			if v > d[p] {
				p = i
			}
		}
		if d[p] <= tol && len(cols) > 0 {
			break
		}
		piv := math.Sqrt(max(d[p], 0))
		col := make([]float64, n)
		for i := range n {
			v := x.At(i, p)
			for _, c := range cols {
				v -= c[i] * c[p]
			}
			if piv > 0 {
				col[i] = v / piv
			}
		}
		for i := range n {
			d[i] -= col[i] * col[i]
		}
		d[p] = 0
		cols = append(cols, col)
	}
	f := mat.NewDense(n, len(cols), nil)
	for j, c := range cols {
		f.SetCol(j, c)
	}
	return f
}
