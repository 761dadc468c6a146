package sdrmap

import (
	"context"
	"fmt"
	"sort"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// Method is a MAP method of the pipeline (Settings.Solver names it): it
// solves the pairwise view of the model after presolve; Solve then repairs,
// polishes and reports. Methods read the knobs of Settings that concern
// them (the help of each says which) and map them to their own package's
// settings. Register adds one; NewMethod and RelaxMethod build one.
type Method interface {
	Name() string
	// Description is the help text: what the method does and what its
	// bound means, in lines of at most 66 characters.
	Description() string
	// Relaxation reports that the method always solves the SDR (its
	// Outcome has SDR figures; bench's Table 3).
	Relaxation() bool
	Solve(ctx context.Context, in *Input, s *Settings) (*Outcome, error)
}

// Input is what a method solves.
type Input struct {
	Pairwise *model.Pairwise
	// Converted: the model was converted from higher order; the pipeline
	// searches the original model after the method.
	Converted bool
}

// Outcome is what a method returns.
type Outcome struct {
	Assignment []int         // of Input.Pairwise's variables; nil if none
	Status     solver.Status // why the method stopped (Result.Status)
	Bound      float64       // certified lower bound on the energy, -Inf if none
	Iterations int
	Rounds     int      // relaxations solved (SDR methods)
	SDR        *SDRInfo // SDR methods only
}

var methods = map[string]Method{}

// Register makes m available under m.Name(); it panics when the name is
// taken, as registrations run from init.
func Register(m Method) {
	if _, ok := methods[m.Name()]; ok {
		panic(fmt.Sprintf("sdrmap: method %q registered twice", m.Name()))
	}
	methods[m.Name()] = m
}

// Methods returns the registered methods by name.
func Methods() []Method {
	var ms []Method
	for _, m := range methods {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name() < ms[j].Name() })
	return ms
}

// Lookup returns the method of that name.
func Lookup(name string) (Method, bool) {
	m, ok := methods[name]
	return m, ok
}

// Solvers returns the names of the registered methods.
func Solvers() []string {
	var names []string
	for _, m := range Methods() {
		names = append(names, m.Name())
	}
	return names
}

// NewMethod returns a Method from its parts.
func NewMethod(name, description string, relaxation bool, solve func(context.Context, *Input, *Settings) (*Outcome, error)) Method {
	return &funcMethod{name, description, relaxation, solve}
}

type funcMethod struct {
	name, desc string
	relaxation bool
	solve      func(context.Context, *Input, *Settings) (*Outcome, error)
}

func (m *funcMethod) Name() string        { return m.name }
func (m *funcMethod) Description() string { return m.desc }
func (m *funcMethod) Relaxation() bool    { return m.relaxation }
func (m *funcMethod) Solve(ctx context.Context, in *Input, s *Settings) (*Outcome, error) {
	return m.solve(ctx, in, s)
}
