package sdpad

import (
	"fmt"
	"time"
)

// header prints the problem sizes and the column titles of the iteration
// table (in the manner of SCS).
func (st *state) header(name string) {
	w := st.s.Verbose
	if w == nil {
		return
	}
	p := st.prob
	restart := "none"
	if st.s.RestartEvery > 0 {
		restart = fmt.Sprintf("every %d iterations", st.s.RestartEvery)
	}
	accel := "none"
	if st.acc != nil {
		accel = fmt.Sprintf("Anderson, memory %d", st.acc.m)
	}
	fmt.Fprintf(w, "%s: N = %d, n = %d, %d edges, |y| = %d, |z| = %d, schedule %v, stop %v, restart %s, acceleration %s\n",
		name, p.N(), p.NumVars(), len(p.Edges), p.Y.Len, p.NumZ, st.s.Schedule, st.s.StopRule, restart, accel)
	fmt.Fprintf(w, "objectives are <C,Xbar>; energy = objective - Const, Const = %.10g; bound: best certified lower bound on min <C,Xbar>\n", p.Const)
	fmt.Fprintf(w, "%6s | %14s | %14s | %8s | %8s | %8s | %8s | %4s | %7s | %14s | %9s\n",
		"iter", "primal obj", "dual obj", "gap", "pinf", "dinf", "mu", "rank", "matvecs", "bound", "time")
}

// verboseInterval is the longest time between two rows of the table.
const verboseInterval = 5 * time.Second

// row prints the current iterate as one line of the table.
func (st *state) row() {
	it := &st.it
	st.lastRow, st.rowK = it.Time, it.K
	fmt.Fprintf(st.s.Verbose, "%6d | %14.8g | %14.8g | %8.2e | %8.2e | %8.2e | %8.2e | %4d | %7d | %14.8g | %8.3fs\n",
		it.K, it.PrimalObjective, it.DualObjective, it.Gap, it.PrimalInfeasibility, st.dualInf(), it.Mu, it.Rank, it.MatVecs,
		it.Bound, it.Time.Seconds())
}

// String returns the name of the schedule.
func (s Schedule) String() string {
	switch s {
	case Balanced:
		return "balanced"
	case Geometric:
		return "geometric"
	}
	return fmt.Sprintf("Schedule(%d)", int(s))
}

// String returns the name of the stopping rule.
func (r StopRule) String() string {
	switch r {
	case Protocol:
		return "protocol"
	case Paper:
		return "paper"
	}
	return fmt.Sprintf("StopRule(%d)", int(r))
}
