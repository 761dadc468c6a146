package sdrmap

import (
	"math"

	"github.com/sdrmap/sdrmap/solver"
)

// Termination says why a run stopped (MathOptInterface's termination
// status), whatever the answer.
type Termination string

const (
	// Converged: the method's own stopping rule held (exact: search
	// complete; trws: LP converged; icm: local optimum; ipm-nc: KKT point;
	// sdpad: relaxation converged or a probe proved an assignment).
	Converged Termination = "converged"
	// ConvergedLoosely: stopped at a point that meets a looser tolerance
	// only (the SDR solvers' TolLoose at the iteration limit).
	ConvergedLoosely Termination = "converged-loosely"
	IterationLimit   Termination = "iteration-limit"
	OutOfTime        Termination = "time-limit"  // the time limit (the context's deadline) ended the run
	Interrupted      Termination = "interrupted" // cancelled: Ctrl-C or the context
	Infeasible       Termination = "infeasible"  // the model was proven to have no assignment of finite energy
	NumericalFailure Termination = "failed"      // the method failed numerically
)

// Answer says what the assignment of a Result is (MathOptInterface's
// primal status, with optimality made explicit).
type Answer string

const (
	// Optimal: the bound proves the assignment optimal (gap within
	// solver.GapTol), whatever stopped the run.
	Optimal Answer = "optimal"
	// Feasible: an assignment of finite energy; Gap says how far from
	// optimal it can be.
	Feasible Answer = "feasible"
	// NoAssignment: no assignment of finite energy was found, and none was
	// proven not to exist.
	NoAssignment Answer = "none"
	// InfeasibleModel: the model was proven to have no assignment of finite
	// energy.
	InfeasibleModel Answer = "infeasible"
)

func terminationOf(s solver.Status) Termination {
	switch s {
	case solver.Solved:
		return Converged
	case solver.SolvedInaccurate:
		return ConvergedLoosely
	case solver.MaxIterations:
		return IterationLimit
	case solver.OutOfTime:
		return OutOfTime
	case solver.Interrupted:
		return Interrupted
	case solver.Infeasible:
		return Infeasible
	}
	return NumericalFailure
}

func answerOf(r *Result) Answer {
	switch {
	case r.Termination == Infeasible:
		return InfeasibleModel
	case math.IsInf(r.Energy, 1):
		return NoAssignment
	case solver.Proven(r.Energy, r.Bound):
		return Optimal
	}
	return Feasible
}
