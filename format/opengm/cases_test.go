package opengm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/model"
)

// This file builds OpenGM layouts independently of the package's encoder,
// with a direct evaluation of every function's definition, for the
// in-memory tests here and the HDF5 file tests (hdf5_test.go).

// rawFile is the content of a model group: dataset name (relative to the
// group) -> []uint64, []int64, []float64 or []float32.
type rawFile map[string]any

func (r rawFile) clone() rawFile {
	c := rawFile{}
	for k, v := range r {
		switch v := v.(type) {
		case []uint64:
			c[k] = slices.Clone(v)
		case []int64:
			c[k] = slices.Clone(v)
		case []float64:
			c[k] = slices.Clone(v)
		case []float32:
			c[k] = slices.Clone(v)
		}
	}
	return c
}

// memSource serves a rawFile to decode, converting like HDF5 does.
type memSource rawFile

func (s memSource) uints(name string) ([]uint64, bool, error) {
	switch v := s[name].(type) {
	case nil:
		return nil, false, nil
	case []uint64:
		return v, true, nil
	case []int64:
		u := make([]uint64, len(v))
		for i, x := range v {
			if x < 0 {
				return nil, true, fmt.Errorf("entry %d is negative (%d)", i, x)
			}
			u[i] = uint64(x)
		}
		return u, true, nil
	}
	return nil, true, errors.New("holds floating-point numbers, expected integers")
}

func (s memSource) floats(name string) ([]float64, bool, error) {
	switch v := s[name].(type) {
	case nil:
		return nil, false, nil
	case []float64:
		return v, true, nil
	case []float32:
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		return f, true, nil
	case []uint64:
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		return f, true, nil
	case []int64:
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		return f, true, nil
	}
	return nil, true, errors.New("unexpected data")
}

// builder assembles a model in OpenGM's layout with reference evaluators.
type builder struct {
	card    []int
	types   []*rawType
	factors []uint64
	scopes  [][]int
	evals   []func(x []int) float64 // per factor, labels in argument order
}

type rawType struct {
	id    uint64
	count int
	ix    []uint64
	vs    []float64
	evals []func(x []int) float64
}

// typeIndex returns the header position of type id, adding it.
func (b *builder) typeIndex(id uint64) int {
	for i, t := range b.types {
		if t.id == id {
			return i
		}
	}
	b.types = append(b.types, &rawType{id: id})
	return len(b.types) - 1
}

// fn appends a function of type id with its sequences and definition; it
// returns the header type index and the function index.
func (b *builder) fn(id uint64, ix []uint64, vs []float64, eval func(x []int) float64) (int, int) {
	ti := b.typeIndex(id)
	t := b.types[ti]
	t.ix = append(t.ix, ix...)
	t.vs = append(t.vs, vs...)
	t.evals = append(t.evals, eval)
	t.count++
	return ti, t.count - 1
}

func (b *builder) factor(ti, fi int, vars ...int) {
	b.factors = append(b.factors, uint64(fi), uint64(ti), uint64(len(vars)))
	for _, v := range vars {
		b.factors = append(b.factors, uint64(v))
	}
	b.scopes = append(b.scopes, vars)
	b.evals = append(b.evals, b.types[ti].evals[fi])
}

func (b *builder) file() rawFile {
	h := []uint64{2, 0, uint64(len(b.card)), uint64(len(b.scopes)), uint64(len(b.types))}
	r := rawFile{}
	for _, t := range b.types {
		h = append(h, t.id, uint64(t.count))
		if t.count > 0 {
			r[fmt.Sprintf("function-id-%d/indices", t.id)] = slices.Clone(t.ix)
			r[fmt.Sprintf("function-id-%d/values", t.id)] = slices.Clone(t.vs)
		}
	}
	r["header"] = append(h, 1)
	st := make([]uint64, len(b.card))
	for i, c := range b.card {
		st[i] = uint64(c)
	}
	r["numbers-of-states"] = st
	if len(b.factors) > 0 {
		r["factors"] = slices.Clone(b.factors)
	}
	return r
}

// energy is OpenGM's energy of x: the sum of the function values.
func (b *builder) energy(x []int) float64 {
	e := 0.0
	for i, sc := range b.scopes {
		lab := make([]int, len(sc))
		for j, v := range sc {
			lab[j] = x[v]
		}
		e += b.evals[i](lab)
	}
	return e
}

// shapeOf returns the extents of vars as uint64.
func (b *builder) shapeOf(vars []int) []uint64 {
	s := make([]uint64, len(vars))
	for j, v := range vars {
		s[j] = uint64(b.card[v])
	}
	return s
}

// firstFastest is the linear index of labels x in a table of the given
// shape with the first argument varying fastest.
func firstFastest(x []int, shape []uint64) int {
	idx := 0
	for j := len(x) - 1; j >= 0; j-- {
		idx = idx*int(shape[j]) + x[j]
	}
	return idx
}

func randValue(rng *rand.Rand, inf bool) float64 {
	if inf && rng.IntN(8) == 0 {
		return math.Inf(1)
	}
	return math.Round((rng.Float64()*10-5)*1000) / 1000
}

// randVars returns k distinct variables of n, sorted as OpenGM stores them.
func randVars(rng *rand.Rand, n, k int) []int {
	v := rng.Perm(n)[:k]
	sort.Ints(v)
	return v
}

// pottsGIndex maps the partition of the arguments into equal labels,
// written as a restricted-growth string, to the value index of OpenGM's
// PottsGFunction (its operator() switch, pottsg.hxx).
var pottsGIndex = map[string]int{
	"": 0, "0": 0,
	"01": 0, "00": 1,
	"012": 0, "001": 1, "010": 2, "011": 3, "000": 4,
	"0123": 0, "0012": 1, "0102": 2, "0112": 3, "0001": 4,
	"0120": 5, "0110": 6, "0121": 7, "0101": 8, "0010": 9,
	"0122": 10, "0011": 11, "0100": 12, "0111": 13, "0000": 14,
}

func restrictedGrowth(x []int) string {
	seen := map[int]int{}
	var sb strings.Builder
	for _, v := range x {
		if _, ok := seen[v]; !ok {
			seen[v] = len(seen)
		}
		sb.WriteByte(byte('0' + seen[v]))
	}
	return sb.String()
}

var allTypes = []uint64{idExplicit, idSparse, idAbsDiff, idTruncAbsDiff, idSquaredDiff, idTruncSquaredDiff, idPotts, idPottsN, idConstant, idPottsG}

// addRandomFunction adds a function of type id over vars, with a factor
// using it.
func (b *builder) addRandomFunction(rng *rand.Rand, id uint64, vars []int) {
	shape := b.shapeOf(vars)
	var ti, fi int
	switch id {
	case idExplicit:
		size := 1
		for _, s := range shape {
			size *= int(s)
		}
		vals := make([]float64, size)
		for k := range vals {
			vals[k] = randValue(rng, true)
		}
		vals[rng.IntN(size)] = randValue(rng, false)
		ix := append([]uint64{uint64(len(vars))}, shape...)
		ti, fi = b.fn(id, ix, vals, func(x []int) float64 { return vals[firstFastest(x, shape)] })
	case idSparse:
		size := 1
		for _, s := range shape {
			size *= int(s)
		}
		def := randValue(rng, false)
		keys := rng.Perm(size)[:rng.IntN(size+1)]
		m := map[int]float64{}
		ix := append([]uint64{uint64(len(vars))}, shape...)
		ix = append(ix, uint64(len(keys)))
		vs := []float64{def}
		for i, k := range keys {
			m[k] = randValue(rng, i > 0) // never all forbidden
			ix = append(ix, uint64(k))
			vs = append(vs, m[k])
		}
		ti, fi = b.fn(id, ix, vs, func(x []int) float64 {
			if v, ok := m[firstFastest(x, shape)]; ok {
				return v
			}
			return def
		})
	case idAbsDiff:
		w := randValue(rng, false)
		ti, fi = b.fn(id, shape, []float64{w}, func(x []int) float64 { return w * math.Abs(float64(x[0]-x[1])) })
	case idTruncAbsDiff:
		t, w := float64(rng.IntN(3)), randValue(rng, false)
		ti, fi = b.fn(id, shape, []float64{t, w}, func(x []int) float64 { return w * min(math.Abs(float64(x[0]-x[1])), t) })
	case idSquaredDiff:
		w := randValue(rng, false)
		ti, fi = b.fn(id, shape, []float64{w}, func(x []int) float64 { d := float64(x[0] - x[1]); return d * d * w })
	case idTruncSquaredDiff:
		t, w := float64(rng.IntN(5)), randValue(rng, false)
		ti, fi = b.fn(id, shape, []float64{t, w}, func(x []int) float64 { d := float64(x[0] - x[1]); return w * min(d*d, t) })
	case idPotts:
		eq, ne := randValue(rng, false), randValue(rng, true)
		ti, fi = b.fn(id, shape, []float64{eq, ne}, func(x []int) float64 {
			if x[0] == x[1] {
				return eq
			}
			return ne
		})
	case idPottsN:
		eq, ne := randValue(rng, false), randValue(rng, false)
		ix := append([]uint64{uint64(len(vars))}, shape...)
		ti, fi = b.fn(id, ix, []float64{eq, ne}, func(x []int) float64 {
			for _, v := range x {
				if v != x[0] {
					return ne
				}
			}
			return eq
		})
	case idConstant:
		c := randValue(rng, false)
		ix := append([]uint64{uint64(len(vars))}, shape...)
		ti, fi = b.fn(id, ix, []float64{c}, func([]int) float64 { return c })
	case idPottsG:
		n := map[int]int{0: 1, 1: 1, 2: 2, 3: 5, 4: 15}[len(vars)]
		vals := make([]float64, n)
		for k := range vals {
			vals[k] = randValue(rng, false)
		}
		ix := append([]uint64{uint64(len(vars))}, shape...)
		ti, fi = b.fn(id, ix, vals, func(x []int) float64 { return vals[pottsGIndex[restrictedGrowth(x)]] })
	}
	b.factor(ti, fi, vars...)
}

// arities returns the arities to test for a function type.
func arities(id uint64) []int {
	switch id {
	case idExplicit, idSparse, idConstant:
		return []int{0, 1, 2, 3}
	case idPottsN:
		return []int{1, 2, 3, 4}
	case idPottsG:
		return []int{2, 3, 4}
	}
	return []int{2}
}

// typeCase builds a model with functions of type id only (after a header
// entry of an unsupported type with no function, so that the type index
// differs from 0), some factors sharing a function.
func typeCase(rng *rand.Rand, id uint64) *builder {
	b := &builder{card: make([]int, 7)}
	for i := range b.card {
		b.card[i] = 2 + rng.IntN(3)
	}
	if id == idPottsG {
		for i := range b.card {
			b.card[i] = 4
		}
	}
	b.typeIndex(idStaticSingleSite)
	for range 3 {
		for _, k := range arities(id) {
			b.addRandomFunction(rng, id, randVars(rng, len(b.card), k))
		}
	}
	// Reuse the first function on its own scope again.
	ti := b.typeIndex(id)
	b.factor(ti, 0, b.scopes[0]...)
	return b
}

// mixedCase uses every supported type in one model, the header listing
// the types in a shuffled order.
func mixedCase(rng *rand.Rand) *builder {
	b := &builder{card: make([]int, 9)}
	for i := range b.card {
		b.card[i] = 2 + rng.IntN(3)
	}
	order := slices.Clone(allTypes)
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, id := range order {
		b.typeIndex(id)
	}
	for range 8 {
		id := allTypes[rng.IntN(len(allTypes))]
		ks := arities(id)
		b.addRandomFunction(rng, id, randVars(rng, len(b.card), ks[rng.IntN(len(ks))]))
	}
	for _, id := range allTypes {
		ks := arities(id)
		b.addRandomFunction(rng, id, randVars(rng, len(b.card), ks[len(ks)-1]))
	}
	return b
}

// checkModel compares m with the reference b: every factor table entry
// exactly, and energies of random assignments to 1e-12 relative.
func checkModel(t *testing.T, rng *rand.Rand, m *model.Model, b *builder) {
	t.Helper()
	if !slices.Equal(m.Card, b.card) {
		t.Fatalf("cardinalities %v, want %v", m.Card, b.card)
	}
	if len(m.Factors) != len(b.scopes) {
		t.Fatalf("%d factors, want %d", len(m.Factors), len(b.scopes))
	}
	for i := range m.Factors {
		f := &m.Factors[i]
		if !slices.Equal(f.Scope, b.scopes[i]) {
			t.Fatalf("factor %d: scope %v, want %v", i, f.Scope, b.scopes[i])
		}
		x := make([]int, len(f.Scope))
		for k := range f.Log {
			want := b.evals[i](x)
			got := math.Inf(1)
			if !f.IsForbidden(k) {
				got = -f.Log[k]
			}
			if got != want {
				t.Fatalf("factor %d at labels %v: value %v, definition %v", i, x, got, want)
			}
			for j := len(x) - 1; j >= 0; j-- {
				if x[j]++; x[j] < m.Card[f.Scope[j]] {
					break
				}
				x[j] = 0
			}
		}
	}
	x := make([]int, len(m.Card))
	for range 200 {
		for i, c := range m.Card {
			x[i] = rng.IntN(c)
		}
		if got, want := m.Energy(x), b.energy(x); !closeRel(got, want, 1e-12) {
			t.Fatalf("energy of %v: %v, definition %v", x, got, want)
		}
	}
}

func closeRel(a, b, rel float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// malformed is a corruption of a valid file and the error it must cause.
type malformed struct {
	name   string
	mutate func(r rawFile)
	want   string // substring of the error
}

// baseCase is a small valid model to corrupt: 3 variables with 2, 3, 2
// states; factor 0 explicit on (0, 1), factor 1 Potts on (0, 2), factor 2
// explicit on (1).
func baseCase() *builder {
	b := &builder{card: []int{2, 3, 2}}
	shape := []uint64{2, 3}
	vals := []float64{1, 2, 3, 4, 5, 6}
	ti, fi := b.fn(idExplicit, []uint64{2, 2, 3}, vals, func(x []int) float64 { return vals[firstFastest(x, shape)] })
	b.factor(ti, fi, 0, 1)
	ti, fi = b.fn(idPotts, []uint64{2, 2}, []float64{0, 1.5}, func(x []int) float64 {
		if x[0] == x[1] {
			return 0
		}
		return 1.5
	})
	b.factor(ti, fi, 0, 2)
	un := []float64{7, 8, 9}
	ti, fi = b.fn(idExplicit, []uint64{1, 3}, un, func(x []int) float64 { return un[x[0]] })
	b.factor(ti, fi, 1)
	return b
}

func u64(r rawFile, name string) []uint64 { return r[name].([]uint64) }

const (
	exIx = "function-id-16000/indices"
	exVs = "function-id-16000/values"
	poIx = "function-id-16006/indices"
	poVs = "function-id-16006/values"
)

// Factors of baseCase: [0 0 2 0 1] [0 1 2 0 2] [1 0 1 1].
var malformedCases = []malformed{
	{"missing header", func(r rawFile) { delete(r, "header") }, "/gm/header: missing dataset"},
	{"missing states", func(r rawFile) { delete(r, "numbers-of-states") }, "/gm/numbers-of-states: missing dataset"},
	{"missing factors", func(r rawFile) { delete(r, "factors") }, "/gm/factors: missing dataset"},
	{"missing values", func(r rawFile) { delete(r, exVs) }, "/gm/function-id-16000/values: missing dataset"},
	{"missing indices", func(r rawFile) { delete(r, poIx) }, "/gm/function-id-16006/indices: missing dataset"},
	{"float indices", func(r rawFile) { r["factors"] = []float64{0, 0, 2, 0, 1} }, "/gm/factors: holds floating-point numbers, expected integers"},
	{"negative index", func(r rawFile) { r["factors"] = []int64{0, 0, 2, 0, -1, 0, 1, 2, 0, 2, 1, 0, 1, 1} }, "/gm/factors: entry 4 is negative"},
	{"short header", func(r rawFile) { r["header"] = []uint64{2, 0, 3} }, "/gm/header: has 3 entries, expected at least 5"},
	{"version", func(r rawFile) { u64(r, "header")[0] = 1 }, "/gm/header[0]: format version 1.0: only OpenGM's version 2.0 is supported"},
	{"too many types", func(r rawFile) { u64(r, "header")[4] = 9 }, "/gm/header[4]: declares 9 function types"},
	{"header length", func(r rawFile) { r["header"] = append(u64(r, "header"), 0, 0) }, "/gm/header: has 12 entries, expected 9 or 10 for 2 function types"},
	{"value type", func(r rawFile) { u64(r, "header")[9] = 7 }, "/gm/header[9]: stored value type 7"},
	{"unknown function ID", func(r rawFile) { u64(r, "header")[7] = 16009 }, "/gm/header[7]: function type 16009 (static single-site, 1 functions) is not supported"},
	{"custom function ID", func(r rawFile) { u64(r, "header")[5] = 42 }, "/gm/header[5]: function type 42 (custom, 2 functions) is not supported"},
	{"duplicate type", func(r rawFile) { u64(r, "header")[7] = 16000 }, "function type 16000 is listed twice"},
	{"variable count", func(r rawFile) { u64(r, "header")[2] = 4 }, "/gm/numbers-of-states: has 3 entries, the header declares 4 variables"},
	{"zero states", func(r rawFile) { u64(r, "numbers-of-states")[1] = 0 }, "/gm/numbers-of-states[1]: variable 1 has 0 states"},
	{"wrong arity", func(r rawFile) { u64(r, "factors")[2] = 3 }, "/gm/factors[2]: factor 0: arity 3, but its function 0 of type 16000 (explicit) has 2 arguments"},
	{"wrong arity potts", func(r rawFile) {
		r["factors"] = []uint64{0, 0, 2, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1}
	}, "/gm/factors[7]: factor 1: arity 1, but its function 0 of type 16006 (Potts) has 2 arguments"},
	{"variable out of range", func(r rawFile) { u64(r, "factors")[9] = 3 }, "/gm/factors[9]: factor 1: variable index 3 out of range 0..2"},
	{"function index out of range", func(r rawFile) { u64(r, "factors")[10] = 2 }, "/gm/factors[10]: factor 2: function index 2 out of range: the header declares 2 functions of type 16000"},
	{"type index out of range", func(r rawFile) { u64(r, "factors")[6] = 2 }, "/gm/factors[6]: factor 1: function type index 2 out of range 0..1"},
	{"states mismatch", func(r rawFile) { u64(r, "factors")[4] = 2 }, "/gm/factors[4]: factor 0: variable 2 has 2 states, but argument 1 of its function 0 of type 16000 (explicit) has 3"},
	{"duplicate variable", func(r rawFile) { u64(r, "factors")[9] = 0 }, "/gm/factors[9]: factor 1: variable 0 appears twice"},
	{"truncated factors", func(r rawFile) { r["factors"] = u64(r, "factors")[:13] }, "/gm/factors: truncated: the sequence ends (13 entries) inside the variables of factor 2 of 3"},
	{"truncated factors head", func(r rawFile) { r["factors"] = u64(r, "factors")[:11] }, "/gm/factors: truncated: the sequence ends (11 entries) inside factor 2 of 3"},
	{"short factors", func(r rawFile) { r["factors"] = u64(r, "factors")[:5] }, "/gm/factors: truncated: 5 entries cannot hold the 3 factors"},
	{"factors left over", func(r rawFile) { r["factors"] = append(u64(r, "factors"), 0) }, "/gm/factors[14]: 1 entries left after the last of 3 factors"},
	{"truncated values", func(r rawFile) { r[exVs] = r[exVs].([]float64)[:8] }, "/gm/function-id-16000/values: function 1: needs 3 values from entry 6, the sequence has 8 entries"},
	{"values left over", func(r rawFile) { r[exVs] = append(r[exVs].([]float64), 1) }, "/gm/function-id-16000/values[9]: 1 entries left after the last of 2 functions"},
	{"truncated indices", func(r rawFile) { r[exIx] = u64(r, exIx)[:4] }, "/gm/function-id-16000/indices[3]: function 1: needs 1 extents, only 0 index entries remain"},
	{"huge dimension", func(r rawFile) { u64(r, exIx)[0] = 1 << 40 }, "/gm/function-id-16000/indices[0]: function 0: dimension 1099511627776 is larger than"},
	{"zero extent", func(r rawFile) { u64(r, exIx)[1] = 0 }, "/gm/function-id-16000/indices[1]: function 0: extent 0 of argument 0"},
	{"NaN value", func(r rawFile) { r[exVs].([]float64)[4] = math.NaN() }, "/gm/function-id-16000/values[4]: function 0: value NaN"},
	{"-Inf value", func(r rawFile) { r[poVs].([]float64)[1] = math.Inf(-1) }, "/gm/function-id-16006/values[1]: function 0: value -Inf"},
	{"NaN by definition", func(r rawFile) {
		// Squared difference with weight +Inf is NaN where the labels agree.
		u64(r, "header")[7] = 16004
		r["function-id-16004/indices"] = []uint64{2, 2}
		r["function-id-16004/values"] = []float64{math.Inf(1)}
		delete(r, poIx)
		delete(r, poVs)
	}, "/gm/function-id-16004/values[0]: function 0 evaluates to NaN at labels [0 0]"},
}

// sparseCase has one sparse function over variables 0 and 1 (2 and 3
// states), non-default at keys 1 and 4, for sparseMalformed.
func sparseCase() *builder {
	b := &builder{card: []int{2, 3}}
	ti, fi := b.fn(idSparse, []uint64{2, 2, 3, 2, 1, 4}, []float64{0.5, 1, 2}, func(x []int) float64 {
		switch firstFastest(x, []uint64{2, 3}) {
		case 1:
			return 1
		case 4:
			return 2
		}
		return 0.5
	})
	b.factor(ti, fi, 0, 1)
	return b
}

const spIx = "function-id-16001/indices"

var sparseMalformed = []malformed{
	{"key out of range", func(r rawFile) { u64(r, spIx)[5] = 6 }, "/gm/function-id-16001/indices[5]: function 0: key 6 out of range 0..5"},
	{"duplicate key", func(r rawFile) { u64(r, spIx)[5] = 1 }, "/gm/function-id-16001/indices[5]: function 0: key 1 appears twice"},
	{"too many keys", func(r rawFile) { u64(r, spIx)[3] = 7 }, "/gm/function-id-16001/indices[3]: function 0: number of non-default entries 7 is larger than 6"},
	{"keys missing", func(r rawFile) { u64(r, spIx)[3] = 5 }, "/gm/function-id-16001/indices[3]: function 0: 5 non-default entries, but only 2 index entries remain"},
	{"order 12 generalized Potts", func(r rawFile) {
		u64(r, "header")[5] = 16011
		r["function-id-16011/indices"] = []uint64{12, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}
		r["function-id-16011/values"] = make([]float64, 1)
		delete(r, spIx)
		delete(r, "function-id-16001/values")
	}, "/gm/function-id-16011/indices[0]: function 0: generalized Potts function of order 12: OpenGM supports orders up to 11"},
	{"Field of Experts too large", func(r rawFile) {
		u64(r, "header")[5] = 16033
		r["function-id-16033/indices"] = []uint64{3, 4, 256}
		r["function-id-16033/values"] = make([]float64, 15)
		delete(r, spIx)
		delete(r, "function-id-16001/values")
	}, "/gm/function-id-16033/indices[1]: function 0: Field-of-Experts function of order 4 over 256 labels: its table would have more than 2147483648 entries"},
}

func TestDecodeFunctionTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, id := range allTypes {
		t.Run(typeName(id), func(t *testing.T) {
			b := typeCase(rng, id)
			m, err := decode(memSource(b.file()), "mem", "gm")
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, rng, m, b)
		})
	}
	for i := range 20 {
		t.Run(fmt.Sprint("mixed", i), func(t *testing.T) {
			b := mixedCase(rng)
			m, err := decode(memSource(b.file()), "mem", "gm")
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, rng, m, b)
		})
	}
}

// TestExplicitOrder pins the transposition: OpenGM's explicit table lists
// the first argument fastest, the model's table the last.
func TestExplicitOrder(t *testing.T) {
	r := rawFile{
		"header":            []uint64{2, 0, 2, 1, 1, 16000, 1, 1},
		"numbers-of-states": []uint64{2, 3},
		exIx:                []uint64{2, 2, 3},
		exVs:                []float64{0, 1, 10, 11, 20, 21}, // value 10*x1 + x0
		"factors":           []uint64{0, 0, 2, 0, 1},
	}
	m, err := decode(memSource(r), "mem", "gm")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, -10, -20, -1, -11, -21} // model order: x1 fastest
	if !slices.Equal(m.Factors[0].Log, want) {
		t.Fatalf("Log %v, want %v", m.Factors[0].Log, want)
	}
}

func TestEncodeLayout(t *testing.T) {
	// Scope (2, 0) with 3 and 2 states: Log[k] for x2 = k/2, x0 = k%2.
	m := &model.Model{Card: []int{2, 4, 3}, Factors: []model.Factor{
		{Scope: []int{2, 0}, Table: model.Table{Log: []float64{0, -1, -2, -3, -4, -5}}},
		{Scope: []int{}, Table: model.Table{Log: []float64{-7}}},
	}}
	m.Factors[0].Forbid(5)
	l, err := encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{2, 0, 3, 2, 1, 16000, 2, 1}; !slices.Equal(l.header, want) {
		t.Errorf("header %v, want %v", l.header, want)
	}
	if want := []uint64{0, 0, 2, 0, 2, 1, 0, 0}; !slices.Equal(l.factors, want) {
		t.Errorf("factors %v, want %v", l.factors, want)
	}
	if want := []uint64{2, 2, 3, 0}; !slices.Equal(l.indices, want) {
		t.Errorf("indices %v, want %v", l.indices, want)
	}
	// Sorted scope (0, 2), x0 fastest: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2).
	if want := []float64{0, 1, 2, 3, 4, math.Inf(1), 7}; !slices.Equal(l.values, want) {
		t.Errorf("values %v, want %v", l.values, want)
	}
}

func TestEncodeDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		m := randomModel(rng)
		l, err := encode(m)
		if err != nil {
			t.Fatal(err)
		}
		r := rawFile{}
		for _, d := range l.datasets("") {
			r[strings.TrimPrefix(d.name, "/gm/")] = d.data
		}
		got, err := decode(memSource(r), "mem", "gm")
		if err != nil {
			t.Fatal(err)
		}
		sameEnergies(t, rng, m, got)
	}
}

// randomModel has factors of arity 0..3 over unsorted scopes, some
// entries forbidden.
func randomModel(rng *rand.Rand) *model.Model {
	m := &model.Model{Card: make([]int, 1+rng.IntN(6))}
	for i := range m.Card {
		m.Card[i] = 1 + rng.IntN(4)
	}
	for range rng.IntN(8) {
		k := rng.IntN(min(4, len(m.Card)+1))
		f := model.Factor{Scope: rng.Perm(len(m.Card))[:k]}
		size := 1
		for _, v := range f.Scope {
			size *= m.Card[v]
		}
		f.Log = make([]float64, size)
		for e := range f.Log {
			f.Log[e] = rng.NormFloat64()
			if e > 0 && rng.IntN(6) == 0 {
				f.Forbid(e)
			}
		}
		m.Factors = append(m.Factors, f)
	}
	return m
}

// sameEnergies checks that b has a's variables and factor count, and
// that energies of random assignments agree to 1e-12 relative and every
// factor agrees on its own.
func sameEnergies(t *testing.T, rng *rand.Rand, a, b *model.Model) {
	t.Helper()
	if !slices.Equal(a.Card, b.Card) || len(a.Factors) != len(b.Factors) {
		t.Fatalf("read back %d variables, %d factors; wrote %d, %d", len(b.Card), len(b.Factors), len(a.Card), len(a.Factors))
	}
	x := make([]int, len(a.Card))
	for range 100 {
		for i, c := range a.Card {
			x[i] = rng.IntN(c)
		}
		if ea, eb := a.Energy(x), b.Energy(x); !closeRel(ea, eb, 1e-12) {
			t.Fatalf("energy of %v: %v written, %v read", x, ea, eb)
		}
		for i := range a.Factors {
			fa, fb := &a.Factors[i], &b.Factors[i]
			ka, kb := a.Index(fa, x), b.Index(fb, x)
			if fa.IsForbidden(ka) != fb.IsForbidden(kb) || (!fa.IsForbidden(ka) && fa.Log[ka] != fb.Log[kb]) {
				t.Fatalf("factor %d at %v: written %v (forbidden %v), read %v (forbidden %v)", i, x, fa.Log[ka], fa.IsForbidden(ka), fb.Log[kb], fb.IsForbidden(kb))
			}
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	run := func(base rawFile, cases []malformed) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := base.clone()
				c.mutate(r)
				_, err := decode(memSource(r), "mem.h5", "gm")
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %v (%T), want a *ParseError", err, err)
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "mem.h5: ") || !strings.Contains(msg, c.want) {
					t.Fatalf("error %q, want it to contain %q", msg, c.want)
				}
			})
		}
	}
	run(baseCase().file(), malformedCases)
	run(sparseCase().file(), sparseMalformed)
}

// TestDecodeTruncations cuts every dataset of valid files at every length:
// decoding must fail cleanly or succeed, never panic.
func TestDecodeTruncations(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5 {
		base := mixedCase(rng).file()
		for name, v := range base {
			n := 0
			switch v := v.(type) {
			case []uint64:
				n = len(v)
			case []float64:
				n = len(v)
			}
			for cut := range n {
				r := base.clone()
				switch v := r[name].(type) {
				case []uint64:
					r[name] = v[:cut]
				case []float64:
					r[name] = v[:cut]
				}
				// Without its last entry (the value type) the header is
				// OpenGM's older layout, still valid.
				if _, err := decode(memSource(r), "mem", "gm"); err == nil && (name != "header" || cut != n-1) {
					t.Fatalf("%s cut to %d entries: no error", name, cut)
				}
			}
		}
	}
}
