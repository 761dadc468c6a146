package peers

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sdrmap/sdrmap/sdr"
)

// WriteSDPAFile writes the SDPA sparse export of prob (sdr.WriteSDPA) to path.
func WriteSDPAFile(path string, prob *sdr.Problem) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := sdr.WriteSDPA(f, prob); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CSDP solves the SDPA sparse file with `csdp FILE [extra...]`.
// timeLimit > 0 kills the run after that wall time (Status "time limit",
// with the last iterate's objectives when printed).
func CSDP(ctx context.Context, sdpaFile string, timeLimit time.Duration, extra ...string) (Run, error) {
	return runSDP(ctx, "csdp", sdpaFile, timeLimit, func(file, _ string) []string {
		return append([]string{file}, extra...)
	}, parseCSDP)
}

// SDPA solves the SDPA sparse file with `sdpa -ds FILE -o OUT [extra...]`
// (OUT in a temporary directory; its parameters come from
// /usr/share/sdpa/param.sdpa or SDPA's defaults).
func SDPA(ctx context.Context, sdpaFile string, timeLimit time.Duration, extra ...string) (Run, error) {
	return runSDP(ctx, "sdpa", sdpaFile, timeLimit, func(file, dir string) []string {
		return append([]string{"-ds", file, "-o", filepath.Join(dir, "sdpa.out")}, extra...)
	}, func(out string, _ int) Run { return parseSDPA(out) })
}

// DSDP solves the SDPA sparse file with `dsdp5 FILE [extra...]` (e.g. extra
// "-gaptol", "1e-7").
func DSDP(ctx context.Context, sdpaFile string, timeLimit time.Duration, extra ...string) (Run, error) {
	return runSDP(ctx, "dsdp", sdpaFile, timeLimit, func(file, _ string) []string {
		return append([]string{file}, extra...)
	}, func(out string, _ int) Run { return parseDSDP(out) })
}

func runSDP(ctx context.Context, solver, sdpaFile string, timeLimit time.Duration,
	args func(file, dir string) []string, parse func(out string, exitCode int) Run) (Run, error) {
	r := newRun(solver)
	bin, err := lookPath(solver)
	if err != nil {
		return r, err
	}
	file, err := filepath.Abs(sdpaFile)
	if err != nil {
		return r, err
	}
	if _, err := os.Stat(file); err != nil {
		return r, err
	}
	dir, err := tempDir(solver)
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	argv := args(file, dir)
	p, err := execSolver(ctx, dir, timeLimit, bin, argv...)
	r = parse(p.out, p.exitCode)
	r.Solver = solver
	r.Command = append([]string{bin}, argv...)
	r.Time, r.ExitCode, r.Output, r.MaxRSS = p.wall, p.exitCode, tail(p.out), p.maxRSS
	if err != nil {
		return r, err
	}
	if p.timedOut {
		r.Status, r.Optimal = StatusTimeLimit, false
		return r, nil
	}
	if r.Status == StatusFailed {
		return r, fmt.Errorf("%s exited with code %d without a result (%s); output tail:\n%s", solver, p.exitCode, r.Reason, lastLines(r.Output, 15))
	}
	return r, nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// float parses a number as printed by the solvers (also "+6.2e-08").
func float(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil
}

// after returns the text after prefix on line (trimmed of spaces), and
// whether line starts with prefix once leading spaces are removed.
func after(line, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	return strings.TrimSpace(rest), ok
}

// csdpStatus maps CSDP's exit codes (its documented return values).
var csdpStatus = map[int]struct{ status, reason string }{
	0: {StatusOptimal, "success"},
	1: {StatusPrimalInfeasible, "primal infeasible"},
	2: {StatusDualInfeasible, "dual infeasible"},
	3: {StatusInaccurate, "partial success"},
	4: {StatusIterationLimit, "maximum iterations reached"},
	5: {StatusFailed, "stuck at edge of primal feasibility"},
	6: {StatusFailed, "stuck at edge of dual feasibility"},
	7: {StatusFailed, "lack of progress"},
	8: {StatusFailed, "X, Z or O singular"},
	9: {StatusFailed, "NaN or Inf values"},
}

// parseCSDP reads CSDP's output and exit code. CSDP maximizes tr(F0 Z) =
// -<C,Xbar>, so both objectives are negated.
func parseCSDP(out string, exitCode int) Run {
	r := newRun("csdp")
	final := false
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := after(line, "Iter:"); ok {
			// Iter: 20 Ap: 9.95e-01 Pobj: -6.0486376e+00 Ad: 9.98e-01 Dobj: -6.0486003e+00
			f := strings.Fields(rest)
			if len(f) > 0 {
				if k, err := strconv.Atoi(f[0]); err == nil {
					r.Iterations = k
				}
			}
			if final {
				continue
			}
			for i := 0; i+1 < len(f); i++ {
				v, ok := float(f[i+1])
				if !ok {
					continue
				}
				switch f[i] {
				case "Pobj:":
					r.Objective = -v
				case "Dobj:":
					r.DualObjective = -v
				}
			}
			continue
		}
		for _, c := range []struct {
			prefix string
			v      *float64
			neg    bool
		}{
			{"Primal objective value:", &r.Objective, true},
			{"Dual objective value:", &r.DualObjective, true},
			{"Relative primal infeasibility:", &r.PrimalInfeas, false},
			{"Relative dual infeasibility:", &r.DualInfeas, false},
			{"Real Relative Gap:", &r.RelGap, false},
		} {
			if rest, ok := after(line, c.prefix); ok {
				if v, ok := float(rest); ok {
					if c.neg {
						v = -v
						final = true
					}
					*c.v = v
				}
			}
		}
		if t := strings.TrimSpace(line); t != "" {
			for _, p := range []string{"Success:", "Partial Success:", "Declared primal infeasibility", "Declared dual infeasibility", "Stuck at edge", "Lack of progress", "Maximum iterations"} {
				if strings.HasPrefix(t, p) {
					if r.Reason != "" {
						r.Reason += " "
					}
					r.Reason += t
				}
			}
		}
		if rest, ok := after(line, "Total time:"); ok {
			if v, ok := float(rest); ok {
				r.SolverTime = seconds(v)
			}
		}
	}
	s, ok := csdpStatus[exitCode]
	switch {
	case !ok:
		r.Status = StatusFailed
		if r.Reason == "" {
			r.Reason = fmt.Sprintf("exit code %d", exitCode)
		}
	default:
		r.Status = s.status
		if r.Reason == "" {
			r.Reason = s.reason
		}
	}
	if (r.Status == StatusOptimal || r.Status == StatusInaccurate) && !final {
		r.Status, r.Reason = StatusFailed, r.Reason+" (no objective values in the output)"
	}
	r.Optimal = r.Status == StatusOptimal
	return r
}

// sdpaPhase maps SDPA's phase.value, reoriented: SDPA's primal is the
// u side (min <b,u>), its dual the Xbar side.
var sdpaPhase = map[string]string{
	"pdOPT":      StatusOptimal,
	"pdFEAS":     StatusInaccurate,
	"pFEAS":      StatusInaccurate,
	"dFEAS":      StatusInaccurate,
	"noINFO":     StatusFailed,
	"pdINF":      StatusInfeasible,
	"pFEAS_dINF": StatusPrimalInfeasible, // SDPA dual (Xbar side) infeasible
	"pUNBD":      StatusPrimalInfeasible, // min <b,u> unbounded: no feasible Xbar
	"pINF_dFEAS": StatusDualInfeasible,
	"dUNBD":      StatusDualInfeasible,
}

// parseSDPA reads SDPA's summary: objValPrimal is min c^T u and objValDual
// max <F0,Z> = -<C,Xbar>.
func parseSDPA(out string) Run {
	r := newRun("sdpa")
	phase := ""
	summary := false
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if rest, ok := after(t, "phase.value"); ok {
			phase = strings.TrimSpace(strings.TrimPrefix(rest, "="))
			summary = true
			continue
		}
		if !summary {
			// iteration lines: "21 5.0e-07 1.8e-14 8.4e-11 -6.05e+00 -6.05e+00 1.2e+00 9.7e-01 1.00e-01"
			f := strings.Fields(t)
			if len(f) == 9 {
				if k, err := strconv.Atoi(f[0]); err == nil {
					p, ok1 := float(f[4])
					d, ok2 := float(f[5])
					if ok1 && ok2 {
						r.Iterations, r.DualObjective, r.Objective = k, -p, -d
					}
				}
			}
			continue
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		v, okv := float(val)
		if !okv {
			continue
		}
		switch key {
		case "Iteration":
			r.Iterations = int(v)
		case "relative gap":
			r.RelGap = v
		case "objValPrimal":
			r.DualObjective = -v
		case "objValDual":
			r.Objective = -v
		case "p.feas.error":
			r.DualInfeas = v // SDPA primal = u side
		case "d.feas.error":
			r.PrimalInfeas = v
		case "total time":
			if r.SolverTime == 0 {
				r.SolverTime = seconds(v)
			}
		}
	}
	r.Reason = phase
	st, ok := sdpaPhase[phase]
	switch {
	case phase == "":
		r.Status, r.Reason = StatusFailed, "no phase.value in the output"
	case !ok:
		r.Status = StatusFailed
	default:
		r.Status = st
	}
	r.Optimal = r.Status == StatusOptimal
	return r
}

// parseDSDP reads dsdp5's output. DSDP prints both objectives already
// negated into sdrmap's convention: "P Objective" = <C,Xbar>, "DSDP
// Solution" = the dual objective.
func parseDSDP(out string) Run {
	r := newRun("dsdp")
	final, table := false, false
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "Iter ") && strings.Contains(t, "Objective"):
			table = true
			continue
		case strings.HasPrefix(t, "DSDP Converged"), strings.HasPrefix(t, "DSDP Terminated"), strings.HasPrefix(t, "DSDP Finished"):
			// readsdpa.c prints "DSDP Finished" for the reasons it does not
			// name (a numerical error).
			r.Reason, table = t, false
			continue
		case strings.HasPrefix(t, "DSDP Dual Unbounded, Primal Infeasible"):
			r.Reason, r.Status = t, StatusPrimalInfeasible
			continue
		case strings.HasPrefix(t, "DSDP Primal Unbounded, Dual Infeasible"):
			r.Reason, r.Status = t, StatusDualInfeasible
			continue
		}
		if table {
			// 40    6.06143042e+00    6.04844615e+00   3.1e-04   0.0e+00 ...
			// The table ends at the first line that is not a row (but for
			// the rule under the header and blank lines), whatever follows.
			f := strings.Fields(t)
			if len(f) == 0 || strings.HasPrefix(t, "---") {
				continue
			}
			if len(f) >= 3 {
				k, err := strconv.Atoi(f[0])
				p, ok1 := float(f[1])
				d, ok2 := float(f[2])
				if err == nil && ok1 && ok2 {
					r.Iterations, r.Objective, r.DualObjective = k, p, d
					continue
				}
			}
			table = false
		}
		for _, c := range []struct {
			prefix string
			v      *float64
		}{
			{"P Objective  :", &r.Objective},
			{"DSDP Solution:", &r.DualObjective},
			{"P Infeasible:", &r.PrimalInfeas},
			{"D Infeasible:", &r.DualInfeas},
			{"Relative P - D Objective values:", &r.RelGap},
		} {
			if rest, ok := after(t, c.prefix); ok {
				if v, ok := float(rest); ok {
					*c.v = v
					if c.v == &r.DualObjective {
						final = true
					}
				}
			}
		}
		if rest, ok := after(t, "DSDP Solve Time:"); ok {
			if v, ok := float(strings.TrimSuffix(rest, "seconds")); ok {
				r.SolverTime = seconds(v)
			}
		}
	}
	switch {
	case r.Status != "":
	case strings.Contains(r.Reason, "Infeasible Starting Point"):
		r.Status = StatusFailed
	case strings.HasPrefix(r.Reason, "DSDP Converged") && final:
		r.Status = StatusOptimal
	case strings.Contains(r.Reason, "Maximum Number of Iterations"):
		r.Status = StatusIterationLimit
	case final:
		r.Status = StatusInaccurate
	default:
		r.Status = StatusFailed
		if r.Reason == "" {
			r.Reason = "no DSDP Solution in the output"
		}
	}
	r.Optimal = r.Status == StatusOptimal
	return r
}

func seconds(v float64) time.Duration {
	if math.IsNaN(v) || v < 0 {
		return 0
	}
	return time.Duration(v * float64(time.Second))
}
