package peers

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/model"
)

// StatusFeasible: toulbar2 stopped with an assignment but without proving
// it optimal, for a reason other than the time limit.
const StatusFeasible = "feasible"

// Toulbar2Options configures Toulbar2With.
type Toulbar2Options struct {
	Evidence  string        // evidence file (UAI 2014 or PIC 2011 layout, plain or compressed), "" for none
	TimeLimit time.Duration // > 0: -timer (whole seconds, at least 1) and a kill deadline shortly after
	VAC       bool          // -A: virtual arc consistency in preprocessing
	Args      []string      // extra toulbar2 arguments, appended (-precision=P is honoured by Bound)
}

// Toulbar2 solves the UAI model file (plain or .gz/.xz/.zip) with toulbar2
// and evaluates the energy of its assignment exactly; see Toulbar2With.
func Toulbar2(ctx context.Context, uaiFile string, timeLimit time.Duration, vac bool) (Run, error) {
	return Toulbar2With(ctx, uaiFile, Toulbar2Options{TimeLimit: timeLimit, VAC: vac})
}

// Toulbar2With runs `toulbar2 MODEL.uai [MODEL.uai.evid] -w=SOL [-A]
// [-timer=S] [Args...]` on a decompressed copy of uaiFile. Run.Energy is
// the exact energy of the assignment toulbar2 wrote (evidence variables
// included, at their observed values), Run.Bound its lower bound as an
// energy (package doc); for a model without any assignment of finite
// energy, Status is "infeasible" and Energy = Bound = +Inf.
func Toulbar2With(ctx context.Context, uaiFile string, o Toulbar2Options) (Run, error) {
	r := newRun("toulbar2")
	bin, err := lookPath("toulbar2")
	if err != nil {
		return r, err
	}
	data, err := uai.ReadAll(uaiFile)
	if err != nil {
		return r, err
	}
	m, err := uai.ParseModel(uaiFile, data)
	if err != nil {
		return r, err
	}
	var ev model.Evidence
	if o.Evidence != "" {
		if ev, err = uai.ReadEvidenceFile(o.Evidence); err != nil {
			return r, err
		}
		if _, err := ev.Clamps(m); err != nil {
			return r, fmt.Errorf("%s: %w", o.Evidence, err)
		}
	}
	dir, err := tempDir("toulbar2")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	modelFile := filepath.Join(dir, "model.uai")
	if !scopesSorted(m) {
		// Work around toulbar2's reader (see sortScopes).
		var b bytes.Buffer
		if err := uai.WriteModel(&b, sortScopes(m)); err != nil {
			return r, err
		}
		data = b.Bytes()
	}
	if err := os.WriteFile(modelFile, data, 0o644); err != nil {
		return r, err
	}
	args := []string{modelFile}
	if len(ev) > 0 {
		evFile := modelFile + ".evid"
		if err := os.WriteFile(evFile, evidenceBytes(ev), 0o644); err != nil {
			return r, err
		}
		args = append(args, evFile)
	}
	solFile := filepath.Join(dir, "sol.txt")
	args = append(args, "-w="+solFile)
	if o.VAC {
		args = append(args, "-A")
	}
	kill := time.Duration(0)
	if o.TimeLimit > 0 {
		args = append(args, "-timer="+strconv.Itoa(max(1, int(o.TimeLimit/time.Second))))
		kill = max(o.TimeLimit, time.Second) + time.Second + o.TimeLimit/20
	}
	args = append(args, o.Args...)

	p, runErr := execSolver(ctx, dir, kill, bin, args...)
	r.Command = append([]string{bin}, args...)
	r.Time, r.ExitCode, r.Output, r.MaxRSS = p.wall, p.exitCode, tail(p.out), p.maxRSS
	tb := parseToulbar2(p.out)
	r.Reason, r.SolverTime, r.ReportedEnergy = tb.reason, tb.solverTime, tb.energy

	if sol, err := os.ReadFile(solFile); err == nil && len(strings.TrimSpace(string(sol))) > 0 {
		x, err := parseSolution(sol, m.NumVars())
		if err == nil {
			err = m.Check(x)
		}
		for _, ob := range ev {
			if err == nil && x[ob.Var] != ob.Value {
				err = fmt.Errorf("variable %d = %d, evidence says %d", ob.Var, x[ob.Var], ob.Value)
			}
		}
		if err != nil {
			if runErr == nil && !p.timedOut { // a kill may truncate the file
				return r, fmt.Errorf("toulbar2 solution file: %w", err)
			}
		} else {
			r.Assignment, r.Energy = x, m.Energy(x)
		}
	}

	switch {
	case tb.optimum:
		r.Status = StatusOptimal
	case tb.noSolution && !tb.timeLimit && !p.timedOut:
		r.Status, r.Energy, r.Bound = StatusInfeasible, math.Inf(1), math.Inf(1)
	case tb.timeLimit || p.timedOut:
		r.Status = StatusTimeLimit
		if r.Reason == "" {
			r.Reason = "killed at the deadline"
		}
	case r.Assignment != nil:
		r.Status = StatusFeasible
	default:
		r.Status = StatusFailed
	}
	r.Optimal = r.Status == StatusOptimal

	// Bound through the written solution (package doc). When toulbar2 ends
	// by itself the file holds its last solution, a kill can leave an older
	// one: the solution's printed energy must match the exact one (which
	// also guards against toulbar2 reading the model differently).
	nf := normFactor(precision(o.Args))
	slack := float64(len(m.Factors)) / nf
	if r.Assignment != nil && tb.hasUB && tb.hasLB && !math.IsInf(r.Energy, 0) {
		tol := 6e-4 + 2*slack + 1e-9*math.Abs(r.Energy)
		u, ok := tb.ub, math.Abs(tb.energy-r.Energy) <= tol
		if killed := runErr != nil || p.timedOut && !tb.timeLimit; killed {
			u, ok = tb.match(r.Energy, tol)
		}
		if ok {
			r.Bound = min(r.Energy, r.Energy-float64(u-tb.lb)/nf-slack)
		} else {
			r.Reason += fmt.Sprintf(" (no printed solution matches the exact energy %.6f of the solution file: no bound)", r.Energy)
		}
	}
	if runErr != nil {
		return r, runErr
	}
	if r.Status == StatusFailed {
		return r, fmt.Errorf("toulbar2 exited with code %d without a result; output tail:\n%s", p.exitCode, lastLines(r.Output, 15))
	}
	return r, nil
}

// evidenceBytes writes ev in the PIC 2011 layout: one sample, then
// "k v1 x1 ...".
func evidenceBytes(ev model.Evidence) []byte {
	b := []byte("1\n")
	b = strconv.AppendInt(b, int64(len(ev)), 10)
	for _, o := range ev {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(o.Var), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(o.Value), 10)
	}
	return append(b, '\n')
}

// parseSolution reads toulbar2's -w file: the values of the last non-empty
// line (optionally led by the number of variables), or a UAI result.
func parseSolution(data []byte, n int) ([]int, error) {
	s := strings.TrimSpace(string(data))
	if u := strings.ToUpper(s); strings.HasPrefix(u, "MAP") || strings.HasPrefix(u, "MPE") {
		return uai.ParseResult("toulbar2 solution", data)
	}
	lines := strings.Split(s, "\n")
	f := strings.Fields(lines[len(lines)-1])
	if len(f) == n+1 && f[0] == strconv.Itoa(n) {
		f = f[1:]
	}
	if len(f) != n {
		return nil, fmt.Errorf("%d values for %d variables", len(f), n)
	}
	x := make([]int, n)
	for i, t := range f {
		v, err := strconv.Atoi(t)
		if err != nil {
			return nil, fmt.Errorf("value %d: %q", i, t)
		}
		x[i] = v
	}
	return x, nil
}

// normFactor is toulbar2's scale from -ln(probability) to integer costs
// for UAI files: -1/log1p(-10^-precision).
func normFactor(precision int) float64 {
	return -1 / math.Log1p(-math.Pow(10, -float64(precision)))
}

// precision returns the -precision=P of args, or toulbar2's default 7.
func precision(args []string) int {
	p := 7
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "-precision="); ok {
			if k, err := strconv.Atoi(v); err == nil {
				p = k
			}
		}
	}
	return p
}

// tb2Output is what parseToulbar2 reads, costs in toulbar2's integer units.
type tb2Output struct {
	ub, lb       int64 // cost of the last solution; best lower bound
	hasUB, hasLB bool
	energy       float64 // printed energy of the last solution (NaN if none)
	sols         []tb2Solution
	optimum      bool // "Optimum:" line
	noSolution   bool // "No solution ..." line
	timeLimit    bool // "Time limit expired"
	solverTime   time.Duration
	reason       string
}

// tb2Solution is one "New solution" or "Optimum" line.
type tb2Solution struct {
	cost   int64
	energy float64
}

// match returns the largest cost among the printed solutions whose energy
// is within tol of e (the largest gives the lowest, safe, bound).
func (o *tb2Output) match(e, tol float64) (int64, bool) {
	var best int64
	found := false
	for _, s := range o.sols {
		if math.Abs(s.energy-e) <= tol && (!found || s.cost > best) {
			best, found = s.cost, true
		}
	}
	return best, found
}

var (
	tbBounds  = regexp.MustCompile(`^(?:Initial lower and upper bounds|Optimality gap): \[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]`)
	tbSol     = regexp.MustCompile(`^(New solution|Optimum): (-?\d+)(?: energy: (\S+))?`)
	tbSeconds = regexp.MustCompile(`and (\S+) seconds\.?\s*$`)
)

// parseToulbar2 reads toulbar2's log (version 1.1 wording).
func parseToulbar2(out string) tb2Output {
	o := tb2Output{energy: math.NaN()}
	lb := func(v int64) {
		if !o.hasLB || v > o.lb {
			o.lb, o.hasLB = v, true
		}
	}
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if m := tbBounds.FindStringSubmatch(t); m != nil {
			if v, err := strconv.ParseInt(m[1], 10, 64); err == nil {
				lb(v)
			}
			continue
		}
		if m := tbSol.FindStringSubmatch(t); m != nil {
			v, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil {
				continue
			}
			o.ub, o.hasUB = v, true
			o.energy = math.NaN()
			if e, ok := float(m[3]); ok {
				o.energy = e
			}
			o.sols = append(o.sols, tb2Solution{v, o.energy})
			if m[1] == "Optimum" {
				o.optimum, o.reason = true, "optimum"
				lb(v)
			}
		}
		switch {
		case strings.HasPrefix(t, "No solution"):
			o.noSolution, o.reason = true, t
		case strings.HasPrefix(t, "Time limit expired"):
			o.timeLimit, o.reason = true, t
		}
		if strings.HasPrefix(t, "Optimum:") || strings.HasPrefix(t, "No solution") {
			if m := tbSeconds.FindStringSubmatch(t); m != nil {
				if v, ok := float(m[1]); ok {
					o.solverTime = seconds(v)
				}
			}
		}
	}
	return o
}
