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
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/higherorder"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/relax/driver"
	"github.com/sdrmap/sdrmap/search/feasible"
	"github.com/sdrmap/sdrmap/search/local"
	"github.com/sdrmap/sdrmap/solver"
)

// Settings selects and configures the solver. The zero value of every field
// but Solver means "the solver's default".
type Settings struct {
	Solver    string         // solver name, see Solvers(); "" means DefaultSolver
	Evidence  model.Evidence // observed variables
	TimeLimit time.Duration  // stop with the best answer so far; 0: none
	Seed      uint64         // seed of randomized steps; runs are deterministic per seed
	Tol       float64        // relative tolerance of SDR solvers (gap and infeasibility)
	MaxIter   int            // iteration limit of iterative solvers
	Rank      int            // initial rank of the low-rank SDR solver
	MaxRank   int            // maximal rank of the low-rank SDR solver
	NoRestart bool           // SDR solvers: no restarts from the average of the iterates (sdpad.Settings.RestartEvery)
	NoAccel   bool           // sdpad: no Anderson acceleration of the iteration (sdpad.Settings.Anderson)
	NoProbe   bool           // SDR solvers: never stop the relaxation early on an assignment proven optimal (probes)
	Rounding  string         // SDR solvers: RoundSample (default) or RoundIterative
	NoPolish  bool           // no local search (ICM, tree-block moves) on the SDR and TRW-S assignments, nor on the original model after a conversion or a feasibility repair (there also no large-neighbourhood search, package lns)
	MaxStates float64        // exact solver: largest joint state space accepted
	NoConvert bool           // refuse factors of arity > 2 instead of converting them (package higherorder)
	// KeepSymmetry solves a shift-invariant model without evidence as it
	// is; by default one variable is fixed to state 0 first, which loses no
	// optimum (model.ShiftInvariant).
	KeepSymmetry bool
	Log          io.Writer      // progress (iteration table) goes here when not nil
	Progress     func(Progress) // called now and then with the state of the run, when not nil; never concurrently, but not always from Solve's goroutine
}

// Progress is a snapshot of a running solve, for progress indicators. A
// stage reports its own best energy and bound; the run's are the best of
// all reports (the final Result may still discard a bound above the
// energy).
type Progress struct {
	Elapsed   time.Duration // since the start of the stage's solver (0: not known)
	Stage     string        // what runs: "trws", the relaxation solver's name, "certificate", "rounding", "lns"
	Iteration int           // iterations of the stage so far (lns: improvements)
	Energy    float64       // best energy of the stage so far (+Inf if none)
	Bound     float64       // best certified lower bound on the energy of the stage so far (-Inf if none)
	SDPGap    float64       // relative gap of the relaxation (§8), NaN if none
}

// stage reports (to s.Progress, if set) that stage starts, or ends with
// energy and bound.
func (s *Settings) stage(stage string, iterations int, energy, bound float64) {
	if s.Progress != nil {
		s.Progress(Progress{Stage: stage, Iteration: iterations, Energy: energy, Bound: bound, SDPGap: math.NaN()})
	}
}

// Result is the outcome of Solve. Assignment is in the model's own
// numbering, evidence variables included. Two statuses answer two
// questions, as MathOptInterface separates them: Termination why the run
// stopped, Answer what the assignment is. Status is the method's own
// status, kept for compatibility ("solved" means converged by the method's
// own rule: proven optimal for exact, LP converged for trws, local optimum
// for icm, KKT point for ipm-nc, relaxation converged for sdpad).
//
// JSON (json.Marshal, and the CLI's --json): infinities and NaN are the
// strings "+Inf", "-Inf" and "NaN", other numbers numbers.
type Result struct {
	Status      solver.Status `json:"status"`
	Termination Termination   `json:"termination"`
	Answer      Answer        `json:"answer"`
	Energy      float64       `json:"energy"` // energy of Assignment; +Inf if none was found
	Log10       float64       `json:"log10"`  // -Energy / ln 10, the UAI score
	Bound       float64       `json:"bound"`  // proven lower bound on the optimal energy; -Inf if none
	Gap         float64       `json:"gap"`    // Energy - Bound, never negative
	Assignment  []int         `json:"assignment"`
	Time        time.Duration `json:"-"`
	Iterations  int           `json:"iterations"`
	Solver      string        `json:"solver"`
	Rounds      int           `json:"rounds"` // rounding rounds (SDR solvers)
	// SDR figures of the last relaxation solved (SDR solvers only).
	SDR *SDRInfo `json:"sdr,omitempty"`
}

// SDRInfo reports the evaluation protocol of the paper (spec §8).
type SDRInfo struct {
	PrimalObjective     float64 `json:"primal_objective"`
	DualObjective       float64 `json:"dual_objective"`
	Gap                 float64 `json:"sdp_gap"`
	PrimalInfeasibility float64 `json:"primal_infeasibility"`
	DualInfeasibility   float64 `json:"dual_infeasibility"`
	Dimension           int     `json:"dimension"`
	Rank                int     `json:"rank,omitempty"`
	Restarts            int     `json:"restarts"` // restarts from the average of the iterates
	// Complement reports that the bound is that of a dual point
	// complementary to a rounded assignment (sdr.Problem.Complement: the
	// one returned or a probe's), better than the iterates' own.
	Complement bool `json:"complement"`
}

// Roundings of the SDR solvers (Settings.Rounding).
const (
	RoundSample    = driver.RoundSample    // argmax and randomized roundings from a factor of Xbar
	RoundIterative = driver.RoundIterative // the paper's iterative rounding (spec §7)
)

// DefaultSolver is used when Settings.Solver is empty: auto, TRW-S and
// then, unless its LP bound proves its assignment optimal, the SDR by
// SDPAD-LR (which reaches the optimum of the dense SDPAD on the test
// problems, solver/sdpad TestLRMatchesDense, at a fraction of its memory).
// On the shared instances it proves six of them (GeomSurf-7 and
// Segmentation_11 among them) optimal in under a second and otherwise
// matches the better of TRW-S and SDPAD-LR; on pedigree9 (converted from
// higher order: TRW-S and the large-neighbourhood search) it reached the
// optimum 282.997 with seeds 1-6 in 60 s, without proving it
// (BENCHMARKS.md).
const DefaultSolver = "auto"

// polishShare is the share of the time limit (what is left of it after
// the conversion) kept for the search on the original model after the
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
	set := feasible.Settings{Seed: s.Seed}
	if s.TimeLimit > 0 {
		set.TimeLimit = max(s.TimeLimit-time.Since(start), repairGrace)
	}
	res, err := feasible.Search(ctx, m, r.Assignment, clamp, set)
	if err != nil {
		return false, err
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "feasibility search: %v, %d nodes, energy %.9g, %v\n", res.Status, res.Nodes, res.Energy, res.Time.Round(time.Millisecond))
	}
	switch res.Status {
	case solver.Infeasible:
		r.Status, r.Assignment, r.Bound = solver.Infeasible, nil, math.Inf(1)
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
	method, ok := Lookup(s.Solver)
	if !ok {
		return nil, fmt.Errorf("unknown solver %q (available: %v)", s.Solver, Solvers())
	}
	start := time.Now()
	pre, err := presolve(m, &s)
	if err != nil {
		return nil, err
	}
	runSet := s
	if pre.converted && s.TimeLimit > 0 {
		runSet.TimeLimit -= time.Duration(float64(s.TimeLimit-time.Since(start)) * polishShare)
	}
	// The method ends by the time limit: its context has it as deadline
	// (the contract of solver.WithLimit), down to certificates and searches.
	mctx, cancel := context.WithCancel(ctx)
	if s.TimeLimit > 0 {
		mctx, cancel = context.WithDeadline(ctx, start.Add(s.TimeLimit))
	}
	defer cancel()
	out, err := method.Solve(mctx, &Input{Pairwise: pre.p, Converted: pre.converted}, &runSet)
	if err != nil {
		return nil, err
	}
	if out.Status == solver.Interrupted && ctx.Err() == nil {
		out.Status = solver.TimeLimit // mctx's deadline, not the caller
	}
	r := &Result{Solver: s.Solver, Status: out.Status, Energy: math.Inf(1), Bound: out.Bound,
		Iterations: out.Iterations, Rounds: out.Rounds, SDR: out.SDR}
	if out.Assignment != nil {
		r.Assignment = pre.back(pre.p.Expand(out.Assignment))
		r.Energy = m.Energy(r.Assignment)
	}
	if err := postsolve(ctx, m, pre, &s, start, r); err != nil {
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

// presolve converts factors of arity > 2 (unless s.NoConvert), maps the
// evidence, fixes one variable of a shift-invariant model without evidence
// (unless s.KeepSymmetry or the method solves it in its symmetric form,
// keepsSymmetry) and builds the pairwise view.
func presolve(m *model.Model, s *Settings) (*presolved, error) {
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
	if !pre.converted && len(ev) == 0 && !s.KeepSymmetry && !keepsSymmetry(s.Solver, m) {
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
// the original model (local.Polish, local.LNS) until the time limit.
func postsolve(ctx context.Context, m *model.Model, pre *presolved, s *Settings, start time.Time, r *Result) error {
	pctx := ctx
	if s.TimeLimit > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithDeadline(ctx, start.Add(s.TimeLimit))
		defer cancel()
	}
	clamp, err := s.Evidence.Clamps(m)
	if err != nil {
		return err
	}
	repaired := false
	if math.IsInf(r.Energy, 1) && r.Status != solver.Infeasible {
		if repaired, err = repair(ctx, m, clamp, s, start, r); err != nil {
			return err
		}
	}
	if (pre.converted || repaired) && !s.NoPolish && !math.IsInf(r.Energy, 1) && !solver.Proven(r.Energy, r.Bound) {
		// The method polished on p; the original model has moves (and a
		// repaired assignment needs them) that p does not show.
		r.Energy = local.Polish(pctx, m, pre.p, clamp, pre.back, pre.forth, r.Assignment)
		set := local.Settings{Seed: s.Seed, UseBudget: s.TimeLimit > 0, Log: s.Log}
		if s.Progress != nil {
			set.Progress = func(gains int, e float64) {
				s.Progress(Progress{Elapsed: time.Since(start), Stage: "lns", Iteration: gains, Energy: e, Bound: r.Bound, SDPGap: math.NaN()})
			}
		}
		r.Energy = local.LNS(pctx, m, clamp, r.Assignment, r.Energy, r.Bound, set)
	}
	return nil
}

// report fills the UAI score, the gap and the statuses of r. A bound above
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
	r.Termination = terminationOf(r.Status)
	r.Answer = answerOf(r)
}
