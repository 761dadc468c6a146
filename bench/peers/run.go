package peers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Statuses of a Run. SDP statuses are oriented like sdrmap: "primal" is the
// Xbar side (see the package doc).
const (
	StatusOptimal          = "optimal"           // solved to the solver's own tolerance (toulbar2: optimum proven)
	StatusInaccurate       = "inaccurate"        // stopped early with both objectives (CSDP partial success, SDPA pdFEAS, DSDP stuck)
	StatusTimeLimit        = "time limit"        // stopped by the time limit or the context deadline
	StatusIterationLimit   = "iteration limit"   // the solver's iteration limit
	StatusPrimalInfeasible = "primal infeasible" // SDP: no feasible Xbar declared
	StatusDualInfeasible   = "dual infeasible"   // SDP: dual infeasibility declared
	StatusInfeasible       = "infeasible"        // toulbar2: no assignment of finite energy; SDPA pdINF
	StatusFailed           = "failed"            // numerical failure, crash, or no result in the output
)

// Run is the outcome of one external solver run. Float fields are NaN when
// the solver did not print them.
type Run struct {
	Solver  string   // "csdp", "sdpa", "dsdp" or "toulbar2"
	Command []string // the solver's command line (binary and arguments, without stdbuf)
	Status  string   // one of the Status constants
	Reason  string   // the solver's own termination message or phase
	Optimal bool     // Status == StatusOptimal

	// SDP solvers, in sdrmap's minimization convention (package doc).
	Objective     float64 // <C, Xbar> of the final X-side iterate
	DualObjective float64 // the dual objective: a lower bound on min <C, Xbar> at dual feasibility
	RelGap        float64 // the relative gap as the solver defines it
	PrimalInfeas  float64 // relative primal (Xbar side) infeasibility as printed
	DualInfeas    float64 // relative dual infeasibility as printed
	Iterations    int     // last iteration number printed (DSDP prints every 10th by default)

	// toulbar2.
	Energy         float64 // exact energy -sum ln phi of the returned assignment (+Inf if it uses a zero entry)
	Bound          float64 // toulbar2's best lower bound converted to an energy (package doc)
	ReportedEnergy float64 // the energy toulbar2 printed for its last solution (three decimals)
	Assignment     []int   // full assignment, evidence variables included; nil without a solution

	Time       time.Duration // wall time measured around the process
	SolverTime time.Duration // the solver's own reported time, 0 if it printed none
	ExitCode   int           // process exit code (-1 when killed)
	MaxRSS     int64         // peak resident set size of the solver process in bytes (getrusage ru_maxrss), 0 if unknown
	Output     string        // tail of the combined stdout and stderr
}

// OutputTail is the number of bytes of output kept in Run.Output.
const OutputTail = 8 << 10

// ErrNotFound is returned (wrapped) when a solver binary is not on PATH.
var ErrNotFound = errors.New("solver binary not found")

// Binaries maps the solver names of Run.Solver to their executables.
var Binaries = map[string]string{
	"csdp":     "csdp",
	"sdpa":     "sdpa",
	"dsdp":     "dsdp5",
	"toulbar2": "toulbar2",
}

// Available reports whether the named solver ("csdp", "sdpa", "dsdp" or
// "toulbar2"; a binary name such as "dsdp5" works too) is on PATH.
func Available(name string) bool {
	_, err := lookPath(name)
	return err == nil
}

func lookPath(name string) (string, error) {
	bin := name
	if b, ok := Binaries[name]; ok {
		bin = b
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%s (%s): %w", name, bin, ErrNotFound)
	}
	return p, nil
}

func newRun(solver string) Run {
	nan := math.NaN()
	return Run{
		Solver: solver, Objective: nan, DualObjective: nan, RelGap: nan,
		PrimalInfeas: nan, DualInfeas: nan, Energy: nan, Bound: nan, ReportedEnergy: nan,
	}
}

// procResult is what exec returns.
type procResult struct {
	out      string
	wall     time.Duration
	exitCode int
	timedOut bool  // the limit or the context deadline ended the run
	maxRSS   int64 // peak resident set size in bytes, 0 if unknown
}

// execSolver runs bin with args in dir. limit > 0 bounds the wall time;
// the process group is killed when it or ctx ends. It returns an error only
// when the process could not start or ctx was cancelled (not on a deadline).
func execSolver(ctx context.Context, dir string, limit time.Duration, bin string, args ...string) (procResult, error) {
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	argv := append([]string{bin}, args...)
	if sb, err := exec.LookPath("stdbuf"); err == nil {
		argv = append([]string{sb, "-oL", "-eL"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := procResult{out: buf.String(), wall: time.Since(start), exitCode: -1}
	if cmd.ProcessState != nil {
		res.exitCode = cmd.ProcessState.ExitCode()
		res.maxRSS = maxRSS(cmd.ProcessState)
	}
	if cmd.Process == nil && err != nil {
		return res, fmt.Errorf("%s: %w", bin, err)
	}
	switch ctx.Err() {
	case context.DeadlineExceeded:
		res.timedOut = true
	case context.Canceled:
		return res, ctx.Err()
	}
	return res, nil
}

// tail returns the last OutputTail bytes of s, cut at a line start.
func tail(s string) string {
	if len(s) <= OutputTail {
		return s
	}
	s = s[len(s)-OutputTail:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i+1 < len(s) {
		s = s[i+1:]
	}
	return s
}

// tempDir makes a private working directory for one run.
func tempDir(solver string) (string, error) {
	return os.MkdirTemp("", "sdrmap-"+solver+"-")
}
