package main

import "github.com/sdrmap/sdrmap"

// Exit statuses, one per outcome (README "Exit status", sdrmap --help).
const (
	exitOK         = 0 // success; solve: an assignment of finite energy was found (answer optimal or feasible; its stopped line says why the run stopped)
	exitError      = 1 // an error: unreadable or malformed input, a failed write, a solver error
	exitUsage      = 2 // a bad command line
	exitInfeasible = 3 // solve: the model has no assignment of finite energy (proven)
	exitNoAnswer   = 4 // solve: no assignment of finite energy found, and none proven impossible
)

const exitHelp = `Exit status: 0 success (solve: an assignment of finite energy was found,
whatever stopped the run), 1 error (unreadable or malformed input, failed
write), 2 bad command line, 3 solve: the model is infeasible (proven: no
assignment of finite energy exists), 4 solve: no assignment of finite
energy found, none proven impossible.`

// exitStatus is an outcome that is not an error but exits non-zero; run
// prints its message, if any, after "sdrmap: " (sdrmap batch passes
// sdrmap-batch's status on without one).
type exitStatus struct {
	code int
	msg  string
}

func (e exitStatus) Error() string { return e.msg }

// solveOutcome returns the exit status of a solve that ended with res: nil
// when it found an assignment (answer optimal or feasible).
func solveOutcome(res *sdrmap.Result) error {
	switch res.Answer {
	case sdrmap.InfeasibleModel:
		return exitStatus{exitInfeasible, "the model is infeasible: no assignment of finite energy exists"}
	case sdrmap.NoAssignment:
		return exitStatus{exitNoAnswer, "no assignment of finite energy found (stopped: " + string(res.Termination) + ")"}
	}
	return nil
}
