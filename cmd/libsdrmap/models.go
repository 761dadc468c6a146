package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sdrmap/sdrmap/format/opengm"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
	"github.com/sdrmap/sdrmap/model"
)

// handles holds the objects the caller refers to by id: models
// (*solvecmd.Input: the model, its evidence and the convention of its
// energies) and solves (*job). Ids are never reused.
var handles struct {
	sync.Mutex
	next    int64
	objects map[int64]any
}

// register stores v and returns its id (> 0).
func register(v any) int64 {
	handles.Lock()
	defer handles.Unlock()
	if handles.objects == nil {
		handles.objects = map[int64]any{}
	}
	handles.next++
	handles.objects[handles.next] = v
	return handles.next
}

// lookup returns the object of id h if it is a T.
func lookup[T any](h int64, what string) (T, error) {
	handles.Lock()
	defer handles.Unlock()
	v, ok := handles.objects[h].(T)
	if !ok {
		return v, &kindError{kindRuntime, fmt.Errorf("no %s with handle %d (released?)", what, h)}
	}
	return v, nil
}

// release forgets id h; a running job goes on until it ends.
func release(h int64) {
	handles.Lock()
	defer handles.Unlock()
	delete(handles.objects, h)
}

// costConvention is the convention of models given as energies (costs).
const costConvention = "sum of the given energies"

// Forms of the tables given to newModel.
const (
	formEnergy      = 0 // entries are energies: the model holds -e; +Inf forbids an entry
	formProbability = 1 // entries are potentials phi >= 0: the model holds ln phi; 0 forbids an entry
)

// maxTable bounds the entries of one factor table, as the UAI reader does.
const maxTable = 1 << 31

// newModel builds a model from flat arrays: card[i] is the cardinality of
// variable i; factor f has arity[f] variables, its scope the next arity[f]
// entries of scope and its table the next prod card(scope) entries of tables
// (last scope variable fastest, as in UAI). Errors name the factor and the
// entry and have kind kindValue.
func newModel(card, arity, scope []int64, tables []float64, form int) (*solvecmd.Input, error) {
	if form != formEnergy && form != formProbability {
		return nil, valueErrorf("form %d: need %d (energies) or %d (probabilities)", form, formEnergy, formProbability)
	}
	n := len(card)
	m := &model.Model{Card: make([]int, n), Factors: make([]model.Factor, len(arity))}
	for i, c := range card {
		if c < 1 || c > maxTable {
			return nil, valueErrorf("variable %d has cardinality %d, need 1..%d", i, c, maxTable)
		}
		m.Card[i] = int(c)
	}
	scopes := make([]int, len(scope))
	logs := make([]float64, len(tables))
	so, to := 0, 0 // offsets in scope and tables
	for f, k := range arity {
		if k < 0 || int64(len(scope)-so) < k {
			return nil, valueErrorf("factor %d: arity %d, but %d scope entries are left", f, k, len(scope)-so)
		}
		sc := scopes[so : so+int(k) : so+int(k)]
		size := 1
		for p := range sc {
			v := scope[so+p]
			if v < 0 || v >= int64(n) {
				return nil, valueErrorf("factor %d: variable %d out of range 0..%d", f, v, n-1)
			}
			for _, u := range sc[:p] {
				if int64(u) == v {
					return nil, valueErrorf("factor %d: variable %d appears twice in the scope", f, v)
				}
			}
			sc[p] = int(v)
			size *= m.Card[v]
			if size > maxTable {
				return nil, valueErrorf("factor %d: table would have more than %d entries", f, maxTable)
			}
		}
		so += int(k)
		if len(tables)-to < size {
			return nil, valueErrorf("factor %d: its table needs %d entries, %d are left", f, size, len(tables)-to)
		}
		t := model.Table{Log: logs[to : to+size : to+size]}
		forbidden := 0
		for e, v := range tables[to : to+size] {
			lg, ok, err := logValue(v, form)
			if err != nil {
				return nil, valueErrorf("factor %d: entry %d: %v", f, e, err)
			}
			if ok {
				t.Log[e] = lg
			} else {
				t.Forbid(e)
				forbidden++
			}
		}
		if forbidden == size {
			return nil, valueErrorf("factor %d: all %d entries are forbidden: the model has no feasible assignment", f, size)
		}
		to += size
		m.Factors[f] = model.Factor{Scope: sc, Table: t}
	}
	if so != len(scope) || to != len(tables) {
		return nil, valueErrorf("%d scope entries and %d table entries given, the factors use %d and %d", len(scope), len(tables), so, to)
	}
	conv := solvecmd.UAIConvention
	if form == formEnergy {
		conv = costConvention
	}
	return &solvecmd.Input{Model: m, Convention: conv}, nil
}

// logValue returns the log value of table entry v of the given form, or
// false when v forbids the entry.
func logValue(v float64, form int) (float64, bool, error) {
	switch {
	case math.IsNaN(v):
		return 0, false, fmt.Errorf("NaN")
	case form == formEnergy && math.IsInf(v, -1):
		return 0, false, fmt.Errorf("energy -Inf (energies are finite, or +Inf to forbid the entry)")
	case form == formEnergy && math.IsInf(v, 1):
		return 0, false, nil
	case form == formEnergy:
		return -v, true, nil
	case v < 0 || math.IsInf(v, 1):
		return 0, false, fmt.Errorf("probability %v (potentials are finite and >= 0; 0 forbids the entry)", v)
	case v == 0:
		return 0, false, nil
	}
	return math.Log(v), true, nil
}

// sizes returns the lengths of the arrays exportModel fills: variables,
// factors, scope entries and table entries.
func sizes(m *model.Model) [4]int64 {
	s := [4]int64{int64(len(m.Card)), int64(len(m.Factors))}
	for i := range m.Factors {
		s[2] += int64(len(m.Factors[i].Scope))
		s[3] += int64(len(m.Factors[i].Log))
	}
	return s
}

// exportModel fills the flat arrays of newModel (lengths from sizes) with
// m, tables as energies -ln phi (+Inf for forbidden entries).
func exportModel(m *model.Model, card, arity, scope []int64, energies []float64) {
	for i, c := range m.Card {
		card[i] = int64(c)
	}
	so, to := 0, 0
	for f := range m.Factors {
		fa := &m.Factors[f]
		arity[f] = int64(len(fa.Scope))
		for _, v := range fa.Scope {
			scope[so] = int64(v)
			so++
		}
		for e, lg := range fa.Log {
			if fa.IsForbidden(e) {
				energies[to] = math.Inf(1)
			} else {
				energies[to] = -lg
			}
			to++
		}
	}
}

// energy returns the energy of the full assignment x, checked against m.
func energy(m *model.Model, x []int64) (float64, error) {
	xi := make([]int, len(x))
	for i, v := range x {
		xi[i] = int(v)
	}
	if err := m.Check(xi); err != nil {
		return 0, &kindError{kindValue, err}
	}
	return m.Energy(xi), nil
}

// writeModel writes m to path as sdrmap convert does: OpenGM HDF5 for
// file.h5 or file.h5:group (a build with -tags hdf5), UAI for file.uai.
// Other extensions are refused rather than given UAI text.
func writeModel(m *model.Model, path string) error {
	file, group := opengm.SplitPath(path)
	switch strings.ToLower(filepath.Ext(file)) {
	case ".h5":
		if group == "" {
			group = opengm.DefaultGroup
		}
		return opengm.WriteFile(file, group, m)
	case ".uai":
		return solvecmd.WriteFile(path, func(w io.Writer) error { return uai.WriteModel(w, m) })
	}
	return valueErrorf("%s: models are written as .uai or .h5 files", path)
}
