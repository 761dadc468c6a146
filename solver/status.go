// Package solver holds what all sdrmap solvers share: the status of a run.
// The solvers themselves live in the subpackages (exact, sdpad, sdpadlr).
package solver

import "math"

// Status says why a solver stopped and how far its answer can be trusted,
// in the manner of SCS and OSQP.
type Status int

const (
	Unsolved         Status = iota // not run yet
	Solved                         // converged to the requested tolerance (exact: proven optimal)
	SolvedInaccurate               // stopped with a point that meets a looser tolerance only
	MaxIterations                  // iteration limit reached; the result is the last iterate
	OutOfTime                      // the context's deadline (the time limit) passed; the result is the best found so far
	Interrupted                    // cancelled (Ctrl-C or context); the result is the best so far
	Infeasible                     // the model has no assignment of finite energy
	Failed                         // numerical failure; the result must not be used
)

var names = [...]string{"unsolved", "solved", "solved-inaccurate", "max-iterations", "time-limit", "interrupted", "infeasible", "failed"}

// String returns the status as printed and in JSON ("solved", "time-limit", ...).
func (s Status) String() string {
	if s < 0 || int(s) >= len(names) {
		return "unknown"
	}
	return names[s]
}

// MarshalText encodes the status by its name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// GapTol is the relative gap energy - bound within which an assignment
// counts as proven optimal, and a bound above the energy as rounding.
const GapTol = 1e-9

// Proven reports whether bound proves an assignment of energy e optimal:
// e finite and e - bound <= GapTol (1 + |e|).
func Proven(e, bound float64) bool {
	return !math.IsInf(e, 0) && e-bound <= GapTol*(1+math.Abs(e))
}
