// Package solvecmd is what `sdrmap solve` does with one model, shared by the
// sdrmap command and the batch module (sdrmap-batch) so that both run the
// same solve: the solve flags, reading a model with its evidence, and
// writing the assignment.
package solvecmd

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/format/opengm"
	"github.com/sdrmap/sdrmap/format/toulbar2"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/model"
)

// Energy conventions, stated beside every energy that sdrmap prints. Both
// are E(x) = -sum of the model's log values; they differ in what the file
// holds.
const (
	UAIConvention    = "-sum ln phi"                   // UAI: tables of phi >= 0
	OpenGMConvention = "sum of OpenGM function values" // OpenGM HDF5: energies, minimized
)

// Input is a model read from the command line, with its evidence and the
// convention of its energies.
type Input struct {
	Model      *model.Model
	Evidence   model.Evidence
	Convention string
	// Toulbar2 is the problem of a .wcsp or .cfn file (its bound, cost
	// precision and names), nil for other formats.
	Toulbar2 *toulbar2.Problem
}

// Load reads a model (UAI, possibly compressed, OpenGM HDF5 given as
// file.h5 or file.h5:group, or toulbar2's .wcsp and .cfn, possibly .gz or
// .xz) and, if evidPath is not empty, its evidence (checked against the
// model), within the default limits.
func Load(path, evidPath string) (*Input, error) {
	return LoadLimits(path, evidPath, model.Limits{})
}

// LoadLimits is Load within lim (model.Limits; zero fields: the defaults).
func LoadLimits(path, evidPath string, lim model.Limits) (*Input, error) {
	in := &Input{Convention: UAIConvention}
	var err error
	if opengm.IsHDF5(path) {
		in.Model, err = opengm.ReadFileLimits(path, lim)
		in.Convention = OpenGMConvention
	} else if toulbar2.Format(path) != "" {
		err = in.loadToulbar2(path, lim)
	} else {
		in.Model, err = uai.ReadModelFileLimits(path, lim)
	}
	if err != nil {
		return nil, err
	}
	if evidPath == "" {
		return in, nil
	}
	if in.Evidence, err = uai.ReadEvidenceFileLimits(evidPath, lim); err != nil {
		return nil, err
	}
	if _, err := in.Evidence.Clamps(in.Model); err != nil {
		return nil, fmt.Errorf("%s: %w", evidPath, err)
	}
	return in, nil
}

// Flags are the solve settings given on the command line. They hold only
// plain values (JSON-encodable), so that a batch pipeline can ship them to
// its workers.
type Flags struct {
	Solver       string  `json:"solver"`
	TimeLimit    float64 `json:"time_limit"` // seconds; 0: none
	Seed         uint64  `json:"seed"`
	NoConvert    bool    `json:"no_convert"`
	KeepSymmetry bool    `json:"keep_symmetry"`
	Rounding     string  `json:"rounding"`
	NoPolish     bool    `json:"no_polish"`
	Rank         int     `json:"rank"`
	MaxRank      int     `json:"max_rank"`
	NoRestart    bool    `json:"no_restart"`
	NoAccel      bool    `json:"no_accel"`
	NoProbe      bool    `json:"no_probe"`
	Tol          float64 `json:"tol"`
	MaxIter      int     `json:"max_iter"`
	MaxStates    float64 `json:"max_states"`
	LimitFlags
}

// Register defines the solve flags on f, bound to fl.
func (fl *Flags) Register(f *pflag.FlagSet) {
	f.StringVar(&fl.Solver, "solver", sdrmap.DefaultSolver, "solver: "+strings.Join(sdrmap.Solvers(), ", "))
	f.Var((*seconds)(&fl.TimeLimit), "time-limit", "stop after this time, in seconds (2.5) or as a Go duration (1m30s), with the best assignment so far; the run ends within about 1 s of it (0: none)")
	f.Uint64Var(&fl.Seed, "seed", 0, "seed of the randomized steps (runs are deterministic per seed; 0: the default seed 1)")
	f.BoolVar(&fl.NoConvert, "no-convert", false, "refuse factors of arity > 2 instead of converting them to pairwise")
	f.BoolVar(&fl.KeepSymmetry, "keep-symmetry", false, "solve a shift-invariant model as it is instead of fixing one variable to state 0 (cyclic, and auto on such a model, always do)")
	f.StringVar(&fl.Rounding, "rounding", "", "sdpad, sdpad-lr, factor: sample (the default: argmax and randomized rounding from the factor of Xbar) or iterative (the paper's: fix, re-solve, repeat)")
	f.BoolVar(&fl.NoPolish, "no-polish", false, "keep the solvers' assignments as they are: no ICM, tree-block moves or large-neighbourhood search after sdpad, sdpad-lr, factor, cyclic, trws, a conversion or a repair")
	f.IntVar(&fl.Rank, "rank", 0, "sdpad-lr, factor: initial rank of Xbar = Y Y^T (0: 4; factor 8); cyclic: rank of every block's factor (0: 4)")
	f.IntVar(&fl.MaxRank, "max-rank", 0, "sdpad-lr, factor, cyclic: largest rank (0: 32; factor and cyclic 64)")
	f.BoolVar(&fl.NoRestart, "no-restart", false, "sdpad, sdpad-lr: never restart the iteration from the average of its iterates (the paper's iteration)")
	f.BoolVar(&fl.NoAccel, "no-accel", false, "sdpad: no Anderson acceleration of the iteration (the paper's iteration)")
	f.BoolVar(&fl.NoProbe, "no-probe", false, "sdpad, sdpad-lr, factor, factor-dense: solve the relaxation to --tol even when a probe (rounding and a certificate: every 20 iterations, factor every outer iteration, factor-dense after waits that double up to 16 outer iterations) has proven an assignment optimal")
	f.Float64Var(&fl.Tol, "tol", 0, "sdpad, sdpad-lr, factor, factor-dense, cyclic: relative tolerance on the SDR gap and infeasibility (0: 1e-4; cyclic 1e-6; with 0 under --time-limit sdpad goes on to 1e-6 while the time allows, for a tighter bound, and factor-dense meets 1e-3 before 1e-4)")
	f.IntVar(&fl.MaxIter, "max-iter", 0, "iteration limit of iterative solvers (0: solver default)")
	f.Float64Var(&fl.MaxStates, "max-states", 0, "exact: refuse models with more joint states (0: 1e9)")
	fl.LimitFlags.Register(f)
}

// Settings checks the flags and returns the solver settings they give
// (without evidence, log or progress, which belong to each run). Its
// errors name the flag.
func (fl *Flags) Settings() (sdrmap.Settings, error) {
	var s sdrmap.Settings
	switch {
	case !slices.Contains(sdrmap.Solvers(), fl.Solver):
		return s, fmt.Errorf("unknown solver %q (available: %s)", fl.Solver, strings.Join(sdrmap.Solvers(), ", "))
	case fl.Rounding != "" && fl.Rounding != methods.RoundSample && fl.Rounding != methods.RoundIterative:
		return s, fmt.Errorf("--rounding must be %s or %s", methods.RoundSample, methods.RoundIterative)
	case fl.Rank < 0 || fl.MaxRank < 0 || (fl.Rank > 0 && fl.MaxRank > 0 && fl.Rank > fl.MaxRank):
		return s, fmt.Errorf("need 0 <= --rank <= --max-rank")
	case !(fl.TimeLimit >= 0) || fl.TimeLimit > maxSeconds:
		return s, fmt.Errorf("--time-limit %v: need a time >= 0 and below 290 years", fl.TimeLimit)
	case !(fl.Tol >= 0) || math.IsInf(fl.Tol, 0):
		return s, fmt.Errorf("--tol %v: need a finite tolerance >= 0 (0: the default 1e-4)", fl.Tol)
	case fl.MaxIter < 0:
		return s, fmt.Errorf("--max-iter %d: need an iteration limit >= 0 (0: the solver's default)", fl.MaxIter)
	case fl.MaxStates != 0 && !(fl.MaxStates >= 1):
		return s, fmt.Errorf("--max-states %v: need a number of joint states >= 1 (0: the default 1e9)", fl.MaxStates)
	}
	if _, err := fl.Limits(); err != nil {
		return s, err
	}
	return sdrmap.Settings{
		Solver: fl.Solver, TimeLimit: time.Duration(fl.TimeLimit * float64(time.Second)), Seed: fl.Seed,
		NoPolish: fl.NoPolish, NoConvert: fl.NoConvert, KeepSymmetry: fl.KeepSymmetry, Options: fl.options(),
		Limits: model.Limits{MaxEntries: fl.MaxEntries, MaxN: fl.MaxN},
	}, nil
}

// options returns the options of the method fl.Solver from the flags that
// concern it (nil for a method registered elsewhere: its defaults).
func (fl *Flags) options() any {
	ro := methods.RelaxOptions{Tol: fl.Tol, MaxIter: fl.MaxIter, Rank: fl.Rank, MaxRank: fl.MaxRank, Rounding: fl.Rounding, NoProbe: fl.NoProbe}
	so := methods.SDPADOptions{RelaxOptions: ro, NoRestart: fl.NoRestart, NoAccel: fl.NoAccel}
	switch fl.Solver {
	case "exact":
		return methods.ExactOptions{MaxStates: fl.MaxStates}
	case "icm":
		return methods.ICMOptions{MaxSweeps: fl.MaxIter}
	case "trws":
		return methods.TRWSOptions{MaxIter: fl.MaxIter}
	case "ipm-nc":
		return methods.IPMNCOptions{MaxIter: fl.MaxIter, Tol: fl.Tol}
	case "sdpad", "sdpad-lr":
		return so
	case "factor", "factor-dense", "cyclic":
		return ro
	case "auto":
		return methods.AutoOptions{TRWS: methods.TRWSOptions{MaxIter: fl.MaxIter}, Relax: so}
	}
	return nil
}

// Summary is what `sdrmap solve` prints (as JSON with --json): the run's
// sdrmap.Record and the convention of its energies.
type Summary struct {
	sdrmap.Record
	Convention string `json:"energy_convention"`
	// Notes: for toulbar2 files, the bound rounded up to the costs'
	// precision and a total cost at the file's bound (Input.Finish).
	Notes []string `json:"notes,omitempty"`
}

// maxSeconds is the longest time a time.Duration holds, in seconds.
const maxSeconds = math.MaxInt64 / float64(time.Second)

// seconds is a flag value in seconds given as seconds ("2.5") or as a Go
// duration ("1m30s"); negative, infinite and NaN values are refused.
type seconds float64

func (d *seconds) String() string { return time.Duration(float64(*d) * float64(time.Second)).String() }

func (d *seconds) Type() string { return "duration" }

func (d *seconds) Set(v string) error {
	sec, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is neither seconds (2.5) nor a duration (1m30s)", v)
		}
		sec = t.Seconds()
	}
	if !(sec >= 0) || sec > maxSeconds {
		return fmt.Errorf("%q: need a time >= 0 and below 290 years", v)
	}
	*d = seconds(sec)
	return nil
}

// WriteResultFile writes x in the UAI result format to path (WriteFile).
func WriteResultFile(path string, x []int) error {
	return WriteFile(path, func(w io.Writer) error { return uai.WriteResult(w, x) })
}
