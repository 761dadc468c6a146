// Package methods holds the MAP methods that sdrmap.Solve runs between
// presolve and postsolve, and their registry: a method solves the pairwise
// view of a model and returns an assignment, a certified bound and why it
// stopped. The nine methods of the command line register here; another
// package adds one with Register.
package methods

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// Method is a MAP method of the pipeline (sdrmap.Settings.Solver names
// it): it solves the pairwise view of the model after presolve; the
// pipeline then repairs, polishes and reports.
type Method interface {
	Name() string
	// Description is the help text: what the method does and what its
	// bound means, in lines of at most 66 characters.
	Description() string
	// Relaxation reports that the method always solves the SDR (its
	// Outcome has SDR figures).
	Relaxation() bool
	Solve(ctx context.Context, in *Input, run *Run) (*Outcome, error)
}

// Input is what a method solves.
type Input struct {
	Pairwise *model.Pairwise
	// Converted: the model was converted from higher order; the pipeline
	// searches the original model after the method.
	Converted bool
}

// Run is what a method gets besides its input: the settings common to all
// methods and its own options. The time limit is the deadline of the
// method's context (solver.Share gives a phase part of it).
type Run struct {
	Seed     uint64 // seed of randomized steps
	NoPolish bool   // no local search on the method's assignments
	// Options are the method's own options, a value of its options type
	// (ExactOptions, SDPADOptions, ...); nil means its defaults.
	Options  any
	Log      io.Writer      // progress (iteration table) goes here when not nil
	Progress func(Progress) // called now and then with the state of the run, when not nil
}

// stage reports (to r.Progress, if set) that stage starts, or ends with
// energy and bound.
func (r *Run) stage(stage string, iterations int, energy, bound float64) {
	if r.Progress != nil {
		r.Progress(Progress{Stage: stage, Iteration: iterations, Energy: energy, Bound: bound, SDPGap: math.NaN()})
	}
}

// Progress is a snapshot of a running solve, for progress indicators. A
// stage reports its own best energy and bound; the run's are the best of
// all reports (the final result may still discard a bound above the
// energy).
type Progress struct {
	Elapsed   time.Duration // since the start of the stage's solver (0: not known)
	Stage     string        // what runs: "trws", the relaxation solver's name, "certificate", "rounding", "lns"
	Iteration int           // iterations of the stage so far (lns: improvements)
	Energy    float64       // best energy of the stage so far (+Inf if none)
	Bound     float64       // best certified lower bound on the energy of the stage so far (-Inf if none)
	SDPGap    float64       // relative gap of the relaxation, NaN if none
}

// Outcome is what a method returns.
type Outcome struct {
	Assignment []int         // of Input.Pairwise's variables; nil if none
	Status     solver.Status // why the method stopped
	Bound      float64       // certified lower bound on the energy, -Inf if none
	Iterations int
	Rounds     int      // relaxations solved (SDR methods)
	SDR        *SDRInfo // SDR methods only
}

var registry = map[string]Method{}

// Register makes m available under m.Name(); it panics when the name is
// taken, as registrations run from init.
func Register(m Method) {
	if _, ok := registry[m.Name()]; ok {
		panic(fmt.Sprintf("methods: method %q registered twice", m.Name()))
	}
	registry[m.Name()] = m
}

// All returns the registered methods by name.
func All() []Method {
	var ms []Method
	for _, m := range registry {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name() < ms[j].Name() })
	return ms
}

// Lookup returns the method of that name.
func Lookup(name string) (Method, bool) {
	m, ok := registry[name]
	return m, ok
}

// Names returns the names of the registered methods.
func Names() []string {
	var names []string
	for _, m := range All() {
		names = append(names, m.Name())
	}
	return names
}

// New returns a Method from its parts.
func New(name, description string, relaxation bool, solve func(context.Context, *Input, *Run) (*Outcome, error)) Method {
	return &funcMethod{name, description, relaxation, solve}
}

type funcMethod struct {
	name, desc string
	relaxation bool
	solve      func(context.Context, *Input, *Run) (*Outcome, error)
}

func (m *funcMethod) Name() string        { return m.name }
func (m *funcMethod) Description() string { return m.desc }
func (m *funcMethod) Relaxation() bool    { return m.relaxation }
func (m *funcMethod) Solve(ctx context.Context, in *Input, run *Run) (*Outcome, error) {
	return m.solve(ctx, in, run)
}

// OptionsOf returns the options of run for the method name as a T: the
// zero T (the method's defaults) when run.Options is nil, and an error
// naming the method when they have another type.
func OptionsOf[T any](name string, run *Run) (T, error) {
	var zero T
	switch o := run.Options.(type) {
	case nil:
		return zero, nil
	case T:
		return o, nil
	case *T:
		if o != nil {
			return *o, nil
		}
		return zero, nil
	}
	return zero, fmt.Errorf("method %s takes options of type %T, not %T", name, zero, run.Options)
}
