// Package sdrmap finds MAP assignments of discrete Markov random fields
// through the semidefinite relaxation (SDR) of Huang, Chen and Guibas
// (ICML 2014). Solve is the whole pipeline that `sdrmap solve` runs: it
// builds the pairwise view of a model under evidence, runs the chosen solver
// and reports the best assignment, its energy, a proven lower bound on the
// optimal energy and the gap between them.
//
// Energies follow the UAI convention E(x) = -sum_f ln phi_f(x_f): lower is
// better, +Inf for an assignment that uses a zero-probability entry.
package sdrmap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/higherorder"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/search/feasible"
	"github.com/sdrmap/sdrmap/search/local"
	"github.com/sdrmap/sdrmap/solver"
)

// Settings selects and configures the method. The zero value of every
// field is the default of the command line's flag of the same name.
type Settings struct {
	Solver    string         // method name, see Solvers(); "" means DefaultSolver
	Evidence  model.Evidence // observed variables
	TimeLimit time.Duration  // stop with the best answer so far; 0: none
	Seed      uint64         // seed of randomized steps; runs are deterministic per seed; 0 means DefaultSeed
	NoPolish  bool           // no local search (ICM, tree-block moves) on the methods' assignments, nor on the original model after a conversion or a feasibility repair (there also no large-neighbourhood search, package lns)
	NoConvert bool           // refuse factors of arity > 2 instead of converting them (package higherorder)
	Limits    model.Limits   // the largest conversion from higher order accepted (its table entries and N); zero fields: model.DefaultLimits
	// KeepSymmetry solves a shift-invariant model without evidence as it
	// is; by default one variable is fixed to state 0 first, which loses no
	// optimum (model.ShiftInvariant).
	KeepSymmetry bool
	// Options are the method's own options, of its type in package methods
	// (methods.SDPADOptions for sdpad and sdpad-lr, methods.ExactOptions
	// for exact, ...); nil means its defaults.
	Options  any
	Log      io.Writer      // progress (iteration table) goes here when not nil
	Progress func(Progress) // called now and then with the state of the run, when not nil; never concurrently, but not always from Solve's goroutine
}

// Progress is a snapshot of a running solve, for progress indicators.
type Progress = methods.Progress

// Result is the outcome of Solve. Assignment is in the model's own
// numbering, evidence variables included. Two statuses answer two
// questions, as MathOptInterface separates them: Termination why the run
// stopped, Answer what the assignment is (only Optimal claims optimality,
// and only with a bound that proves it). Its JSON is its Record.
type Result struct {
	Solver      string
	Termination Termination
	Answer      Answer
	Energy      float64 // energy of Assignment; +Inf if none was found
	Log10       float64 // -Energy / ln 10, the UAI score
	Bound       float64 // proven lower bound on the optimal energy; -Inf if none
	Gap         float64 // Energy - Bound, never negative
	Time        time.Duration
	Iterations  int
	Rounds      int      // relaxations solved (SDR methods)
	SDR         *SDRInfo // figures of the last relaxation solved (SDR methods only)
	Assignment  []int
}

// SDRInfo reports the paper's evaluation protocol of the last relaxation
// solved.
type SDRInfo = methods.SDRInfo

// DefaultSolver is used when Settings.Solver is empty: auto, TRW-S and
// then, unless its LP bound proves its assignment optimal, the relaxation
// (methods.Default).
const DefaultSolver = methods.Default

// Solvers returns the names of the registered methods.
func Solvers() []string { return methods.Names() }

// polishShare is the share of the time left after the conversion kept for the search on the original model after the
// solver when higher-order factors were converted: the conversion's
// consistency constraints leave the solvers' assignments infeasible or
// poor more often than not (tb2_pedigree9).
const polishShare = 0.5

// repairGrace is the time the feasibility search gets when the solver
// used up the time limit: an answer of infinite energy is no answer.
const repairGrace = time.Second

// repair looks for a feasible assignment when the solver found none (a
// search on the forbidden entries, package feasible, preferring the
// solver's states) and reports whether it found one. A proof that none
// exists sets the status to Infeasible.
func repair(ctx context.Context, m *model.Model, clamp []int, s *Settings, start time.Time, r *Result) (bool, error) {
	if s.TimeLimit > 0 {
		deadline := start.Add(s.TimeLimit)
		if grace := time.Now().Add(repairGrace); grace.After(deadline) {
			deadline = grace
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	res, err := feasible.Search(ctx, m, r.Assignment, clamp, feasible.Settings{Seed: s.Seed})
	if err != nil {
		return false, err
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "feasibility search: %v, %d nodes, energy %.9g, %v\n", res.Status, res.Nodes, res.Energy, res.Time.Round(time.Millisecond))
	}
	switch res.Status {
	case solver.Infeasible:
		r.Termination, r.Assignment, r.Bound = Infeasible, nil, math.Inf(1)
	case solver.Solved:
		r.Assignment, r.Energy = res.Assignment, res.Energy
		return true, nil
	}
	return false, nil
}

// Solve runs the pipeline on m: presolve (conversion of higher-order
// factors, evidence, symmetry break), the method named by s.Solver,
// postsolve (feasibility repair, local search on the original model) and
// the report. Cancelling ctx ends the run like a time limit, with
// termination Interrupted and the best assignment found so far.
func Solve(ctx context.Context, m *model.Model, s Settings) (*Result, error) {
	if s.Solver == "" {
		s.Solver = DefaultSolver
	}
	method, ok := methods.Lookup(s.Solver)
	if !ok {
		return nil, fmt.Errorf("unknown solver %q (available: %v)", s.Solver, Solvers())
	}
	if err := checkInput(m, &s); err != nil {
		return nil, err
	}
	start := time.Now()
	// The time limit is the deadline of rctx, the one clock of the run
	// (package solver), down to certificates and searches; after a
	// conversion the method leaves polishShare of it to postsolve.
	rctx, cancel := context.WithCancel(ctx)
	if s.TimeLimit > 0 {
		rctx, cancel = context.WithDeadline(ctx, start.Add(s.TimeLimit))
	}
	defer cancel()
	if r, err := proveInfeasible(rctx, m, &s, start); r != nil || err != nil {
		return r, err
	}
	pre, err := pairwiseView(m, &s)
	if errors.Is(err, model.ErrInfeasible) {
		return infeasibleResult(&s, start, err.Error()), nil
	}
	if err != nil {
		return nil, err
	}
	share := 1.0
	if pre.converted {
		share = 1 - polishShare
	}
	mctx, mcancel := solver.Share(rctx, share)
	defer mcancel()
	run := &methods.Run{Seed: s.Seed, NoPolish: s.NoPolish, Options: s.Options, Log: s.Log, Progress: s.Progress}
	out, err := method.Solve(mctx, &methods.Input{Pairwise: pre.p, Converted: pre.converted}, run)
	if err != nil {
		return nil, err
	}
	if out.Status == solver.Interrupted && ctx.Err() == nil {
		out.Status = solver.OutOfTime // mctx's deadline, not the caller
	}
	r := &Result{Solver: s.Solver, Termination: terminationOf(out.Status), Energy: math.Inf(1), Bound: out.Bound,
		Iterations: out.Iterations, Rounds: out.Rounds, SDR: out.SDR}
	if out.Assignment != nil {
		r.Assignment = pre.back(pre.p.Expand(out.Assignment))
		r.Energy = m.Energy(r.Assignment)
	}
	if err := postsolve(ctx, rctx, m, pre, &s, start, r); err != nil {
		return nil, err
	}
	report(r, s.Log)
	r.Time = time.Since(start)
	return r, nil
}

// presolved is the pairwise view p that the method solves, with the maps
// between assignments of p's model (full, before Pairwise's restriction)
// and of the original one.
type presolved struct {
	p           *model.Pairwise
	back, forth func([]int) []int
	converted   bool // from higher order (package higherorder)
}

// pairwiseView converts factors of arity > 2 (unless s.NoConvert), maps the
// evidence, fixes one variable of a shift-invariant model without evidence
// (unless s.KeepSymmetry or the method solves it in its symmetric form,
// methods.KeepsSymmetry) and builds the pairwise view.
func pairwiseView(m *model.Model, s *Settings) (*presolved, error) {
	identity := func(x []int) []int { return x }
	pre := &presolved{back: identity, forth: identity, converted: m.MaxArity() > 2 && !s.NoConvert}
	work, ev := m, s.Evidence
	if pre.converted {
		conv, mp, err := higherorder.Convert(m, higherorder.Settings{})
		if err != nil {
			return nil, err
		}
		if ev, err = mp.Evidence(s.Evidence); err != nil {
			return nil, err
		}
		work, pre.back, pre.forth = conv, mp.Original, mp.Converted
		if s.Log != nil {
			st := mp.Stats
			fmt.Fprintf(s.Log, "higher-order factors converted: %d auxiliary variables, N %d -> %d\n", st.Aux, st.Before.N, st.After.N)
		}
	}
	if !pre.converted && len(ev) == 0 && !s.KeepSymmetry && !methods.KeepsSymmetry(s.Solver, m) {
		if v := m.SymmetryBreak(); v >= 0 {
			ev = model.Evidence{{Var: v, Value: 0}}
			if s.Log != nil {
				fmt.Fprintf(s.Log, "shift-invariant model: variable %d fixed to state 0, which loses no optimum\n", v)
			}
		}
	}
	var err error
	pre.p, err = work.Pairwise(ev)
	return pre, err
}

// postsolve looks for a feasible assignment when the method found none
// (repair) and, after a conversion or a repair, improves the assignment on
// the original model (local.Polish, local.LNS) until pctx's deadline (the
// time limit); the repair takes ctx (the caller's) and its own deadline.
func postsolve(ctx, pctx context.Context, m *model.Model, pre *presolved, s *Settings, start time.Time, r *Result) error {
	clamp, err := s.Evidence.Clamps(m)
	if err != nil {
		return err
	}
	repaired := false
	if math.IsInf(r.Energy, 1) && r.Termination != Infeasible {
		if repaired, err = repair(ctx, m, clamp, s, start, r); err != nil {
			return err
		}
	}
	if (pre.converted || repaired) && !s.NoPolish && !math.IsInf(r.Energy, 1) && !solver.Proven(r.Energy, r.Bound) {
		// The method polished on p; the original model has moves (and a
		// repaired assignment needs them) that p does not show.
		r.Energy = local.Polish(pctx, m, pre.p, clamp, pre.back, pre.forth, r.Assignment)
		set := local.Settings{Seed: s.Seed, Log: s.Log}
		if s.Progress != nil {
			set.Progress = func(gains int, e float64) {
				s.Progress(Progress{Elapsed: time.Since(start), Stage: "lns", Iteration: gains, Energy: e, Bound: r.Bound, SDPGap: math.NaN()})
			}
		}
		r.Energy = local.LNS(pctx, m, clamp, r.Assignment, r.Energy, r.Bound, set)
	}
	return nil
}

// report fills the UAI score, the gap and the answer of r. A bound above
// the energy within rounding is clamped to it; beyond, it is wrong, and a
// wrong bound is worse than none.
func report(r *Result, log io.Writer) {
	r.Log10 = model.Log10(r.Energy)
	if r.Bound > r.Energy {
		if r.Bound-r.Energy > solver.GapTol*(1+math.Abs(r.Energy)) {
			if log != nil {
				fmt.Fprintf(log, "warning: discarding bound %.9g above the energy %.9g\n", r.Bound, r.Energy)
			}
			r.Bound = math.Inf(-1)
		} else {
			r.Bound = r.Energy
		}
	}
	r.Gap = r.Energy - r.Bound
	if math.IsNaN(r.Gap) {
		r.Gap = math.Inf(1)
	}
	r.Answer = answerOf(r)
}
