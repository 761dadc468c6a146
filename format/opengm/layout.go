package opengm

import (
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/sdrmap/sdrmap/model"
)

// Function type IDs (OpenGM's FunctionRegistration, FUNCTION_TYPE_ID_OFFSET
// = 16000).
const (
	idExplicit          = 16000
	idSparse            = 16001
	idAbsDiff           = 16002
	idTruncAbsDiff      = 16003
	idSquaredDiff       = 16004
	idTruncSquaredDiff  = 16005
	idPotts             = 16006
	idPottsN            = 16007
	idConstant          = 16008
	idStaticSingleSite  = 16009
	idDynamicSingleSite = 16010
	idPottsG            = 16011
)

var typeNames = map[uint64]string{
	idExplicit:          "explicit",
	idSparse:            "sparse",
	idAbsDiff:           "absolute difference",
	idTruncAbsDiff:      "truncated absolute difference",
	idSquaredDiff:       "squared difference",
	idTruncSquaredDiff:  "truncated squared difference",
	idPotts:             "Potts",
	idPottsN:            "Potts-N",
	idConstant:          "constant",
	idStaticSingleSite:  "static single-site",
	idDynamicSingleSite: "dynamic single-site",
	idPottsG:            "generalized Potts",
	idFoE:               "Field of Experts",
}

func typeName(id uint64) string {
	if n, ok := typeNames[id]; ok {
		return n
	}
	if id < idExplicit {
		return "custom"
	}
	return "unknown"
}

func supported(id uint64) bool {
	return id >= idExplicit && id <= idPottsG && id != idStaticSingleSite && id != idDynamicSingleSite || id == idFoE
}

// maxEntries bounds one table and one dataset (2^31 entries), so that a
// corrupt file cannot ask for more memory than a sane model needs.
const maxEntries = 1 << 31

// source reads the datasets of one model group. Names are relative to the
// group ("header", "function-id-16000/values"). found is false when the
// dataset does not exist; err explains any other failure (wrong rank or
// type, read error) without naming the dataset.
type source interface {
	uints(name string) (v []uint64, found bool, err error)
	floats(name string) (v []float64, found bool, err error)
}

// funcType is one entry of the header's type list.
type funcType struct {
	id    uint64
	count int
	funcs []function
}

// function is one decoded function; params and keys alias the value and
// index sequences of its type.
type function struct {
	shape      []int
	params     []float64
	keys       []uint64 // sparse only
	ixAt, vsAt int      // offsets of its sequences, for errors
	table      *model.Table
}

type decoder struct {
	file, group string // group is an absolute HDF5 path
	src         source
	card        []int
	types       []funcType
	lim         model.Limits
	entries     int64 // table entries of the factors so far
}

// decode reads a model from src within the default limits; file and group
// name it in errors.
func decode(src source, file, group string) (*model.Model, error) {
	return decodeLimits(src, file, group, model.Limits{})
}

// decodeLimits is decode within lim (zero fields: the defaults): the
// lifted dimension N and the number of factors are checked against it when
// the header is read, the factors' table entries before each table is
// built.
func decodeLimits(src source, file, group string, lim model.Limits) (*model.Model, error) {
	d := &decoder{file: file, group: path.Join("/", group), src: src, lim: lim.OrDefault()}
	nf, err := d.header()
	if err != nil {
		return nil, err
	}
	for i := range d.types {
		if err := d.functions(&d.types[i]); err != nil {
			return nil, err
		}
	}
	m := &model.Model{Card: d.card}
	if m.Factors, err = d.factors(nf); err != nil {
		return nil, err
	}
	return m, nil
}

func (d *decoder) path(name string) string { return path.Join(d.group, name) }

func (d *decoder) errAt(name string, index int, format string, args ...any) error {
	return &ParseError{File: d.file, Dataset: d.path(name), Index: index, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) check(name string, found bool, err error) error {
	switch {
	case err != nil:
		return d.errAt(name, -1, "%v", err)
	case !found:
		return d.errAt(name, -1, "missing dataset")
	}
	return nil
}

func (d *decoder) uints(name string) ([]uint64, error) {
	v, found, err := d.src.uints(name)
	return v, d.check(name, found, err)
}

func (d *decoder) floats(name string) ([]float64, error) {
	v, found, err := d.src.floats(name)
	return v, d.check(name, found, err)
}

// header reads header and numbers-of-states; it returns the number of
// factors.
func (d *decoder) header() (int, error) {
	const hd = "header"
	h, err := d.uints(hd)
	if err != nil {
		return 0, err
	}
	if len(h) < 5 {
		return 0, d.errAt(hd, -1, "has %d entries, expected at least 5 (format version major and minor, variables, factors, function types)", len(h))
	}
	if h[0] != 2 || h[1] != 0 {
		return 0, d.errAt(hd, 0, "format version %d.%d: only OpenGM's version 2.0 is supported", h[0], h[1])
	}
	if h[4] > uint64(len(h)-5)/2 {
		return 0, d.errAt(hd, 4, "declares %d function types, the header has room for %d", h[4], (len(h)-5)/2)
	}
	nt := int(h[4])
	switch extra := len(h) - 5 - 2*nt; {
	case extra > 1:
		return 0, d.errAt(hd, -1, "has %d entries, expected %d or %d for %d function types", len(h), 5+2*nt, 6+2*nt, nt)
	case extra == 1 && h[len(h)-1] > 3:
		return 0, d.errAt(hd, len(h)-1, "stored value type %d, expected 0 (float), 1 (double), 2 (uint64) or 3 (int64)", h[len(h)-1])
	}
	d.types = make([]funcType, nt)
	for i := range d.types {
		id, count := h[5+2*i], h[6+2*i]
		if count > 0 && !supported(id) {
			return 0, d.errAt(hd, 5+2*i, "function type %d (%s, %d functions) is not supported; supported: 16000 explicit, 16001 sparse, 16002-16005 (truncated) absolute and squared difference, 16006 Potts, 16007 Potts-N, 16008 constant, 16011 generalized Potts, 16033 Field of Experts", id, typeName(id), count)
		}
		for j := range i {
			if d.types[j].id == id && count > 0 && d.types[j].count > 0 {
				return 0, d.errAt(hd, 5+2*i, "function type %d is listed twice", id)
			}
		}
		if count > maxEntries {
			return 0, d.errAt(hd, 6+2*i, "%d functions of type %d: more than %d", count, id, maxEntries)
		}
		d.types[i] = funcType{id: id, count: int(count)}
	}

	const ns = "numbers-of-states"
	states, err := d.uints(ns)
	if err != nil {
		return 0, err
	}
	if uint64(len(states)) != h[2] {
		return 0, d.errAt(ns, -1, "has %d entries, the header declares %d variables", len(states), h[2])
	}
	d.card = make([]int, len(states))
	dim := uint64(1)
	for i, s := range states {
		if s == 0 || s > maxEntries {
			return 0, d.errAt(ns, i, "variable %d has %d states, expected 1..%d", i, s, maxEntries)
		}
		if dim += s; dim > uint64(d.lim.MaxN) {
			return 0, d.errAt(ns, i, "%s", d.lim.ErrN(int64(dim)))
		}
		d.card[i] = int(s)
	}
	if h[3] > maxEntries || h[3] > uint64(d.lim.MaxEntries) {
		return 0, d.errAt(hd, 3, "%s", d.lim.ErrEntries(fmt.Sprintf("%d factors", h[3]), int64(min(h[3], maxEntries))))
	}
	return int(h[3]), nil
}

// seq is a cursor over the index and value sequences of one function type.
type seq struct {
	d      *decoder
	ixName string
	vsName string
	ix     []uint64
	vs     []float64
	ip, vp int
	fn     int // function being decoded, for errors
}

func (s *seq) errIx(at int, format string, args ...any) error {
	return s.d.errAt(s.ixName, at, "function %d: %s", s.fn, fmt.Sprintf(format, args...))
}

// index returns the next index entry, checked to be at most limit.
func (s *seq) index(what string, limit uint64) (int, error) {
	if s.ip >= len(s.ix) {
		return 0, s.errIx(-1, "the index sequence ends (%d entries) before its %s", len(s.ix), what)
	}
	v := s.ix[s.ip]
	if v > limit {
		return 0, s.errIx(s.ip, "%s %d is larger than %d", what, v, limit)
	}
	s.ip++
	return int(v), nil
}

// shape reads d extents and returns them with their product.
func (s *seq) shape(d int) ([]int, int, error) {
	if d > len(s.ix)-s.ip {
		return nil, 0, s.errIx(s.ip-1, "needs %d extents, only %d index entries remain", d, len(s.ix)-s.ip)
	}
	sh := make([]int, d)
	size := 1
	for j := range sh {
		at := s.ip
		v, err := s.index("extent", maxEntries)
		if err != nil {
			return nil, 0, err
		}
		if v == 0 {
			return nil, 0, s.errIx(at, "extent 0 of argument %d", j)
		}
		sh[j] = v
		if size *= v; size > maxEntries {
			return nil, 0, s.errIx(at, "table would have more than %d entries", maxEntries)
		}
	}
	return sh, size, nil
}

// values takes the next n values.
func (s *seq) values(n int) ([]float64, error) {
	if n > len(s.vs)-s.vp {
		return nil, s.d.errAt(s.vsName, -1, "function %d: needs %d values from entry %d, the sequence has %d entries", s.fn, n, s.vp, len(s.vs))
	}
	v := s.vs[s.vp : s.vp+n : s.vp+n]
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, -1) {
			return nil, s.d.errAt(s.vsName, s.vp+k, "function %d: value %v (only finite values and +Inf, forbidden, are allowed)", s.fn, x)
		}
	}
	s.vp += n
	return v, nil
}

// functions decodes the functions of one type.
func (d *decoder) functions(t *funcType) error {
	if t.count == 0 {
		return nil
	}
	g := fmt.Sprintf("function-id-%d", t.id)
	s := &seq{d: d, ixName: g + "/indices", vsName: g + "/values"}
	var err error
	if s.ix, err = d.uints(s.ixName); err != nil {
		return err
	}
	if s.vs, err = d.floats(s.vsName); err != nil {
		return err
	}
	if t.count > len(s.ix) {
		return d.errAt(s.ixName, -1, "%d entries cannot hold the %d functions of the header", len(s.ix), t.count)
	}
	t.funcs = make([]function, t.count)
	for i := range t.funcs {
		s.fn = i
		if t.funcs[i], err = s.function(t.id); err != nil {
			return err
		}
	}
	if s.ip != len(s.ix) {
		return d.errAt(s.ixName, s.ip, "%d entries left after the last of %d functions", len(s.ix)-s.ip, t.count)
	}
	if s.vp != len(s.vs) {
		return d.errAt(s.vsName, s.vp, "%d entries left after the last of %d functions", len(s.vs)-s.vp, t.count)
	}
	return nil
}

// function decodes one function at the cursor (FunctionSerialization::
// deserialize of each type).
func (s *seq) function(id uint64) (function, error) {
	f := function{ixAt: s.ip, vsAt: s.vp}
	var err error
	switch id {
	case idAbsDiff, idTruncAbsDiff, idSquaredDiff, idTruncSquaredDiff, idPotts:
		if f.shape, _, err = s.shape(2); err != nil {
			return f, err
		}
		np := 2
		if id == idAbsDiff || id == idSquaredDiff {
			np = 1
		}
		f.params, err = s.values(np)
		return f, err
	case idFoE:
		return s.foeFunction()
	}
	d, err := s.index("dimension", math.MaxInt32)
	if err != nil {
		return f, err
	}
	if id == idPottsG && d > maxPottsGOrder {
		return f, s.errIx(s.ip-1, "generalized Potts function of order %d: OpenGM supports orders up to %d", d, maxPottsGOrder)
	}
	shape, size, err := s.shape(d)
	if err != nil {
		return f, err
	}
	f.shape = shape
	switch id {
	case idExplicit:
		f.params, err = s.values(size)
	case idSparse:
		at := s.ip
		var n int
		if n, err = s.index("number of non-default entries", uint64(size)); err != nil {
			return f, err
		}
		if n > len(s.ix)-s.ip {
			return f, s.errIx(at, "%d non-default entries, but only %d index entries remain", n, len(s.ix)-s.ip)
		}
		f.keys = s.ix[s.ip : s.ip+n : s.ip+n]
		s.ip += n
		f.params, err = s.values(n + 1)
	case idPottsN:
		f.params, err = s.values(2)
	case idConstant:
		f.params, err = s.values(1)
	case idPottsG:
		f.params, err = s.values(bell[d])
	}
	return f, err
}

// factors reads the factors dataset.
func (d *decoder) factors(nf int) ([]model.Factor, error) {
	const fs = "factors"
	var seq []uint64
	if nf > 0 {
		var err error
		if seq, err = d.uints(fs); err != nil {
			return nil, err
		}
		if nf > len(seq)/3 {
			return nil, d.errAt(fs, -1, "truncated: %d entries cannot hold the %d factors of the header (at least 3 entries each)", len(seq), nf)
		}
	} else if s, found, err := d.src.uints(fs); err == nil && found && len(s) > 0 {
		return nil, d.errAt(fs, 0, "%d entries, but the header declares no factor", len(s))
	}
	out := make([]model.Factor, nf)
	p := 0
	for i := range out {
		if len(seq)-p < 3 {
			return nil, d.errAt(fs, -1, "truncated: the sequence ends (%d entries) inside factor %d of %d", len(seq), i, nf)
		}
		fi, ti, k := seq[p], seq[p+1], seq[p+2]
		if ti >= uint64(len(d.types)) {
			return nil, d.errAt(fs, p+1, "factor %d: function type index %d out of range 0..%d (the header lists %d function types)", i, ti, len(d.types)-1, len(d.types))
		}
		t := &d.types[ti]
		if fi >= uint64(t.count) {
			return nil, d.errAt(fs, p, "factor %d: function index %d out of range: the header declares %d functions of type %d (%s)", i, fi, t.count, t.id, typeName(t.id))
		}
		fn := &t.funcs[fi]
		if k != uint64(len(fn.shape)) {
			return nil, d.errAt(fs, p+2, "factor %d: arity %d, but its function %d of type %d (%s) has %d arguments", i, k, fi, t.id, typeName(t.id), len(fn.shape))
		}
		if len(seq)-p-3 < int(k) {
			return nil, d.errAt(fs, -1, "truncated: the sequence ends (%d entries) inside the variables of factor %d of %d", len(seq), i, nf)
		}
		p += 3
		scope := make([]int, k)
		for j := range scope {
			v := seq[p+j]
			if v >= uint64(len(d.card)) {
				return nil, d.errAt(fs, p+j, "factor %d: variable index %d out of range 0..%d", i, v, len(d.card)-1)
			}
			scope[j] = int(v)
			if d.card[v] != fn.shape[j] {
				return nil, d.errAt(fs, p+j, "factor %d: variable %d has %d states, but argument %d of its function %d of type %d (%s) has %d", i, v, d.card[v], j, fi, t.id, typeName(t.id), fn.shape[j])
			}
		}
		if j := duplicate(scope); j >= 0 {
			return nil, d.errAt(fs, p+j, "factor %d: variable %d appears twice", i, scope[j])
		}
		p += int(k)
		size := int64(1)
		for _, e := range fn.shape {
			size *= int64(e)
		}
		if d.entries += size; d.entries > d.lim.MaxEntries {
			return nil, d.errAt(fs, p-int(k)-3, "%s", d.lim.ErrEntries(fmt.Sprintf("factors 0..%d", i), d.entries))
		}
		if fn.table == nil {
			tb, err := d.table(t, int(fi))
			if err != nil {
				return nil, err
			}
			fn.table = tb
		}
		out[i] = model.Factor{Scope: scope, Table: model.Table{Log: slices.Clone(fn.table.Log)}}
		if fn.table.Forbidden != nil {
			out[i].Forbidden = slices.Clone(fn.table.Forbidden)
		}
	}
	if p != len(seq) {
		return nil, d.errAt(fs, p, "%d entries left after the last of %d factors", len(seq)-p, nf)
	}
	return out, nil
}

// duplicate returns the position of the first repeated variable, or -1.
func duplicate(scope []int) int {
	if len(scope) <= 16 {
		for j := range scope {
			if slices.Contains(scope[:j], scope[j]) {
				return j
			}
		}
		return -1
	}
	seen := make(map[int]bool, len(scope))
	for j, v := range scope {
		if seen[v] {
			return j
		}
		seen[v] = true
	}
	return -1
}

// table builds the dense table of function fi of type t, in model order
// (last argument fastest), with Log = -value.
func (d *decoder) table(t *funcType, fi int) (*model.Table, error) {
	f := &t.funcs[fi]
	size := 1
	for _, s := range f.shape {
		size *= s
	}
	vals := make([]float64, size)
	// colStride[j]: stride of argument j in OpenGM's first-fastest order.
	colStride := make([]int, len(f.shape))
	for j, c := 0, 1; j < len(f.shape); j++ {
		colStride[j], c = c, c*f.shape[j]
	}
	x := make([]int, len(f.shape))
	if t.id == idSparse {
		for k := range vals {
			vals[k] = f.params[0]
		}
	}
	var set []bool
	if t.id == idSparse {
		set = make([]bool, size)
		for n, key := range f.keys {
			if key >= uint64(size) {
				return nil, d.errAt(fmt.Sprintf("function-id-%d/indices", t.id), f.ixAt+len(f.shape)+2+n, "function %d: key %d out of range 0..%d", fi, key, size-1)
			}
			c := int(key)
			if set[c] {
				return nil, d.errAt(fmt.Sprintf("function-id-%d/indices", t.id), f.ixAt+len(f.shape)+2+n, "function %d: key %d appears twice", fi, key)
			}
			set[c] = true
			// Convert the first-fastest key to our last-fastest index.
			k := 0
			for j := range f.shape {
				k = k*f.shape[j] + (c/colStride[j])%f.shape[j]
			}
			vals[k] = f.params[1+n]
		}
	}
	if t.id != idSparse {
		for k := range vals {
			v := f.eval(t.id, x, colStride)
			if math.IsNaN(v) || math.IsInf(v, -1) {
				return nil, d.errAt(fmt.Sprintf("function-id-%d/values", t.id), f.vsAt, "function %d evaluates to %v at labels %v (parameters %v)", fi, v, x, f.params)
			}
			vals[k] = v
			for j := len(x) - 1; j >= 0; j-- {
				if x[j]++; x[j] < f.shape[j] {
					break
				}
				x[j] = 0
			}
		}
	}
	tb := &model.Table{Log: make([]float64, size)}
	for k, v := range vals {
		if math.IsInf(v, 1) {
			tb.Forbid(k)
		} else {
			tb.Log[k] = -v
		}
	}
	return tb, nil
}

// eval returns the value of a non-sparse function at labels x (argument
// order), following each type's operator() in OpenGM.
func (f *function) eval(id uint64, x, colStride []int) float64 {
	p := f.params
	switch id {
	case idExplicit:
		c := 0
		for j, v := range x {
			c += v * colStride[j]
		}
		return p[c]
	case idAbsDiff:
		return p[0] * math.Abs(float64(x[0]-x[1]))
	case idTruncAbsDiff:
		a := math.Abs(float64(x[0] - x[1]))
		if a > p[0] {
			return p[0] * p[1]
		}
		return a * p[1]
	case idSquaredDiff:
		a := float64(x[0] - x[1])
		return a * a * p[0]
	case idTruncSquaredDiff:
		a := float64(x[0] - x[1])
		if a*a > p[0] {
			return p[0] * p[1]
		}
		return a * a * p[1]
	case idPotts:
		if x[0] == x[1] {
			return p[0]
		}
		return p[1]
	case idPottsN:
		for _, v := range x {
			if v != x[0] {
				return p[1]
			}
		}
		return p[0]
	case idConstant:
		return p[0]
	case idPottsG:
		k, _ := slices.BinarySearch(pottsGPatterns(len(x)), equalityPattern(x))
		return p[k]
	case idFoE:
		return f.foe(x)
	}
	panic("opengm: eval of unsupported function type " + fmt.Sprint(id))
}

// layout is a model in OpenGM's layout, every factor with its own explicit
// function.
type layout struct {
	header, states, factors, indices []uint64
	values                           []float64
}

// encode lays out m with one explicit function per factor, its scope
// sorted increasingly as OpenGM requires and the table transposed to
// OpenGM's first-fastest order; values are -Log, +Inf when forbidden.
func encode(m *model.Model) (*layout, error) {
	if m == nil {
		return nil, errors.New("no model")
	}
	l := &layout{
		header: []uint64{2, 0, uint64(len(m.Card)), uint64(len(m.Factors)), 1, idExplicit, uint64(len(m.Factors)), 1},
		states: make([]uint64, len(m.Card)),
	}
	for i, c := range m.Card {
		if c < 1 {
			return nil, fmt.Errorf("variable %d has cardinality %d", i, c)
		}
		l.states[i] = uint64(c)
	}
	for fi := range m.Factors {
		f := &m.Factors[fi]
		k := len(f.Scope)
		// order[j]: position in f.Scope of the j-th smallest variable.
		order := make([]int, k)
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int { return f.Scope[a] - f.Scope[b] })
		// stride[p]: stride of scope position p in the model table.
		stride := make([]int, k)
		size := 1
		for p := k - 1; p >= 0; p-- {
			v := f.Scope[p]
			if v < 0 || v >= len(m.Card) {
				return nil, fmt.Errorf("factor %d: variable %d out of range", fi, v)
			}
			stride[p] = size
			size *= m.Card[v]
		}
		if len(f.Log) != size {
			return nil, fmt.Errorf("factor %d: table has %d entries, its scope needs %d", fi, len(f.Log), size)
		}
		l.factors = append(l.factors, uint64(fi), 0, uint64(k))
		l.indices = append(l.indices, uint64(k))
		for _, p := range order {
			l.factors = append(l.factors, uint64(f.Scope[p]))
			l.indices = append(l.indices, uint64(m.Card[f.Scope[p]]))
		}
		x := make([]int, k) // labels of the sorted scope, first fastest
		for range size {
			idx := 0
			for j, p := range order {
				idx += x[j] * stride[p]
			}
			v := math.Inf(1)
			if !f.IsForbidden(idx) {
				v = -f.Log[idx]
				if v == 0 {
					v = 0 // no negative zero in files
				}
			}
			l.values = append(l.values, v)
			for j := range x {
				if x[j]++; x[j] < m.Card[f.Scope[order[j]]] {
					break
				}
				x[j] = 0
			}
		}
	}
	return l, nil
}

// datasets names the parts of l under group, in OpenGM's order; factors and
// the function group are omitted when there is no factor, as OpenGM does.
func (l *layout) datasets(group string) []namedData {
	g := strings.Trim(group, "/")
	if g == "" && group == "" {
		g = DefaultGroup
	}
	out := []namedData{
		{name: path.Join("/", g, "header"), data: l.header},
		{name: path.Join("/", g, "numbers-of-states"), data: l.states},
	}
	if len(l.factors) > 0 {
		fg := path.Join("/", g, fmt.Sprintf("function-id-%d", idExplicit))
		out = append(out,
			namedData{name: path.Join(fg, "indices"), data: l.indices},
			namedData{name: path.Join(fg, "values"), data: l.values},
			namedData{name: path.Join("/", g, "factors"), data: l.factors})
	}
	return out
}

// namedData is a dataset to write: []uint64 or []float64, and for tests
// also []int64 or []float32, chunked and deflated, or two-dimensional.
type namedData struct {
	name  string // absolute HDF5 path
	data  any
	chunk int // chunk length; 0: contiguous
	gzip  int // deflate level of a chunked dataset; 0: none
	rows  int // > 0: two-dimensional with this many rows
}
