package toulbar2

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sdrmap/sdrmap/internal/fsum"
	"github.com/sdrmap/sdrmap/model"
)

// node is a parsed cfn item: a container ({...} or [...], which the format
// treats alike) or an atom (a string or a number, quoted or not).
type node struct {
	list   []*node
	isList bool
	text   string
	quoted bool
	line   int
}

// cfnParser parses the cfn syntax: JSON whose quotes, commas and colons
// are optional, with {} and [] interchangeable and '#' starting a comment
// line.
type cfnParser struct {
	file  string
	data  []byte
	pos   int
	line  int
	depth int
}

func (p *cfnParser) errAt(line int, format string, args ...any) error {
	return &ParseError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func isSep(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' || c == ',' || c == ':'
}

// skip passes separators and comment lines.
func (p *cfnParser) skip() {
	lineStart := p.pos == 0 || p.data[p.pos-1] == '\n'
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '\n':
			p.line++
			lineStart = true
		case c == '#' && lineStart:
			for p.pos < len(p.data) && p.data[p.pos] != '\n' {
				p.pos++
			}
			continue
		case isSep(c):
			if c != ' ' && c != '\t' && c != '\r' {
				lineStart = false
			}
		default:
			return
		}
		p.pos++
	}
}

// maxDepth bounds the nesting of containers.
const maxDepth = 64

// item parses one item; it returns nil at a closing bracket or the end.
func (p *cfnParser) item() (*node, error) {
	p.skip()
	if p.pos >= len(p.data) {
		return nil, nil
	}
	n := &node{line: p.line}
	switch c := p.data[p.pos]; c {
	case '}', ']':
		return nil, nil
	case '{', '[':
		if p.depth++; p.depth > maxDepth {
			return nil, p.errAt(p.line, "containers nested more than %d deep", maxDepth)
		}
		p.pos++
		n.isList = true
		for {
			it, err := p.item()
			if err != nil {
				return nil, err
			}
			if it == nil {
				break
			}
			n.list = append(n.list, it)
		}
		if p.pos < len(p.data) {
			p.pos++
		} else if p.depth > 1 {
			return nil, p.errAt(p.line, "the file ends: the container opened with %q on line %d is not closed", c, n.line)
		}
		p.depth--
		return n, nil
	case '"':
		end := p.pos + 1
		for end < len(p.data) && p.data[end] != '"' {
			if p.data[end] == '\n' {
				return nil, p.errAt(p.line, "a quoted string does not end on its line")
			}
			end++
		}
		if end >= len(p.data) {
			return nil, p.errAt(p.line, "a quoted string does not end")
		}
		n.text, n.quoted = string(p.data[p.pos+1:end]), true
		p.pos = end + 1
		return n, nil
	}
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if isSep(c) || c == '{' || c == '}' || c == '[' || c == ']' || c == '"' {
			break
		}
		p.pos++
	}
	n.text = string(p.data[start:p.pos])
	return n, nil
}

// isNumber reports whether an atom is a number: an integer or a decimal
// without exponent, optionally signed.
func isNumber(t string) bool {
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	if t == "" || t == "." {
		return false
	}
	dot := false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '.' && !dot:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

// decimals returns the number of digits after the point of a number,
// trailing zeros excluded.
func decimals(t string) int {
	i := strings.IndexByte(t, '.')
	if i < 0 {
		return 0
	}
	return len(strings.TrimRight(t[i+1:], "0"))
}

// cfnReader interprets the parsed tree.
type cfnReader struct {
	*cfnParser
	p       *Problem
	varIdx  map[string]int
	digits  int            // largest number of decimals of a cost
	funcIdx map[string]int // function name -> factor
	// valueIdx[v] maps the value names of variable v to their indices,
	// built when first needed.
	valueIdx []map[string]int
	lim      model.Limits
	dim      int64 // 1 + the domain sizes so far
}

// number reads a numeric atom.
func (r *cfnReader) number(n *node, what string) (float64, error) {
	if n.isList {
		return 0, r.errAt(n.line, "%s: expected a number, found a container", what)
	}
	t := strings.TrimPrefix(n.text, "+")
	if !isNumber(n.text) {
		return 0, r.errAt(n.line, "%s: %q is not a number (integers and decimals without exponent)", what, clip(n.text))
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, r.errAt(n.line, "%s: %q is out of range", what, clip(n.text))
	}
	return v, nil
}

// cost reads a cost and records its decimals.
func (r *cfnReader) cost(n *node, what string) (float64, error) {
	v, err := r.number(n, what)
	if err == nil {
		r.digits = max(r.digits, decimals(n.text))
	}
	return v, err
}

// fields returns the values of container n in the order of names: a value
// may be preceded by its name (the JSON form) or stand alone (the compact
// form). Names absent from n give nil when optional.
func (r *cfnReader) fields(n *node, what string, names []string, required int) ([]*node, error) {
	if !n.isList {
		return nil, r.errAt(n.line, "%s: expected a container, found %q", what, clip(n.text))
	}
	out := make([]*node, len(names))
	items := n.list
	named := len(items) > 0 && !items[0].isList && slices.Contains(names, strings.TrimSuffix(items[0].text, ":"))
	if named {
		k := 0
		for i := 0; i < len(items); i += 2 {
			key := items[i]
			if key.isList {
				return nil, r.errAt(key.line, "%s: expected a field name, found a container", what)
			}
			// A quoted key may hold the colon ("type:", in toulbar2's latin4.cfn).
			kt := strings.TrimSuffix(key.text, ":")
			for k < len(names) && names[k] != kt {
				k++
			}
			if k == len(names) {
				return nil, r.errAt(key.line, "%s: unexpected field %q (expected %s, in this order)", what, clip(key.text), strings.Join(names, ", "))
			}
			if i+1 >= len(items) {
				return nil, r.errAt(key.line, "%s: field %q has no value", what, key.text)
			}
			out[k] = items[i+1]
			k++
		}
	} else {
		if len(items) > len(names) {
			return nil, r.errAt(n.line, "%s: %d items, expected at most %d (%s)", what, len(items), len(names), strings.Join(names, ", "))
		}
		copy(out, items)
	}
	for k := range required {
		if out[k] == nil {
			return nil, r.errAt(n.line, "%s: no %q", what, names[k])
		}
	}
	return out, nil
}

// ParseCFN parses a model in toulbar2's cfn format; name is used in
// errors. The layout (toulbar2's "CFN format" documentation):
//
//	{ problem: { name: N, mustbe: "<UB" | ">LB" },
//	  variables: { x: [a, b, c], y: 2, ... }          (or [[a b c] 2 ...])
//	  functions: { f: { scope: [x, y], costs: [...] },  (dense, lexicographic)
//	               g: { scope: [x], defaultcost: c, costs: [a, 1.5, ...] },
//	               h: { scope: [y, x], costs: "f" },    (f's table)
//	               k: { scope: [], costs: [c] } } }     (a constant)
//
// with JSON's quotes, commas and colons optional and {} and []
// interchangeable. The outermost closing bracket may be missing, as
// toulbar2 accepts (its tutorial's simple.cfn lacks it). The number of decimals of the mustbe number is the
// precision of the costs.
func ParseCFN(name string, data []byte) (*Problem, error) {
	return ParseCFNLimits(name, data, model.Limits{})
}

// ParseCFNLimits is ParseCFN within lim (ReadFileLimits).
func ParseCFNLimits(name string, data []byte, lim model.Limits) (*Problem, error) {
	r := &cfnReader{cfnParser: &cfnParser{file: name, data: data, line: 1}, p: &Problem{}, lim: lim.OrDefault()}
	root, err := r.item()
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, r.errAt(r.line, "expected the cfn object")
	}
	r.skip()
	if r.pos < len(r.data) {
		return nil, r.errAt(r.line, "%q after the cfn object", clip(string(r.data[r.pos:min(len(r.data), r.pos+20)])))
	}
	top, err := r.fields(root, "the cfn object", []string{"problem", "variables", "functions"}, 3)
	if err != nil {
		return nil, err
	}
	if err := r.problem(top[0]); err != nil {
		return nil, err
	}
	if err := r.variables(top[1]); err != nil {
		return nil, err
	}
	if err := r.functions(top[2]); err != nil {
		return nil, err
	}
	return r.p, nil
}

func (r *cfnReader) problem(n *node) error {
	f, err := r.fields(n, "problem", []string{"name", "mustbe"}, 0)
	if err != nil {
		return err
	}
	if f[0] != nil {
		if f[0].isList {
			return r.errAt(f[0].line, "problem name: expected a string, found a container")
		}
		r.p.Name = f[0].text
	}
	r.p.Bound = math.Inf(1)
	if f[1] == nil {
		r.p.Precision = -1 // the largest number of decimals of the costs
		return nil
	}
	mb := f[1]
	if mb.isList || len(mb.text) < 2 || (mb.text[0] != '<' && mb.text[0] != '>') {
		return r.errAt(mb.line, "mustbe: expected < or > followed by a number, found %q", clip(mb.text))
	}
	r.p.Maximize = mb.text[0] == '>'
	num := &node{text: mb.text[1:], line: mb.line}
	if r.p.Bound, err = r.number(num, "mustbe"); err != nil {
		return err
	}
	r.p.Precision = len(num.text) - strings.IndexByte(num.text, '.') - 1
	if !strings.Contains(num.text, ".") {
		r.p.Precision = 0
	}
	return nil
}

func (r *cfnReader) variables(n *node) error {
	if !n.isList {
		return r.errAt(n.line, "variables: expected a container, found %q", clip(n.text))
	}
	items := n.list
	named := len(items) > 0 && !items[0].isList && !isNumber(items[0].text)
	r.varIdx = map[string]int{}
	r.dim = 1
	m := &model.Model{}
	r.p.Model = m
	for i := 0; i < len(items); i++ {
		vname := ""
		if named {
			key := items[i]
			if key.isList || isNumber(key.text) {
				return r.errAt(key.line, "variables: expected a variable name, found %s", describe(key))
			}
			vname = key.text
			if _, dup := r.varIdx[vname]; dup {
				return r.errAt(key.line, "variable %q is defined twice", vname)
			}
			if i++; i >= len(items) {
				return r.errAt(key.line, "variable %q has no domain", vname)
			}
		}
		v := len(m.Card)
		if vname == "" {
			vname = strconv.Itoa(v)
		} else {
			r.varIdx[vname] = v
		}
		d := items[i]
		var values []string
		card := 0
		if d.isList {
			values = make([]string, len(d.list))
			seen := map[string]bool{}
			for k, a := range d.list {
				if a.isList {
					return r.errAt(a.line, "variable %q: a value name is a container", vname)
				}
				if seen[a.text] {
					return r.errAt(a.line, "variable %q: value %q appears twice", vname, clip(a.text))
				}
				seen[a.text] = true
				values[k] = a.text
			}
			card = len(values)
		} else {
			c, err := strconv.Atoi(d.text)
			if err != nil {
				return r.errAt(d.line, "variable %q: domain %q is neither a list of values nor a size", vname, clip(d.text))
			}
			if c < 0 {
				return r.errAt(d.line, "variable %q has the interval domain 0..%d (negative size): interval variables are not supported", vname, -c-1)
			}
			card = c
		}
		if card == 0 {
			return r.errAt(d.line, "variable %q has an empty domain", vname)
		}
		if r.dim += int64(card); r.dim > r.lim.MaxN {
			return r.errAt(d.line, "variable %q: %s", vname, r.lim.ErrN(r.dim))
		}
		m.Card = append(m.Card, card)
		r.p.VarNames = append(r.p.VarNames, vname)
		r.p.ValueNames = append(r.p.ValueNames, values)
	}
	if !named {
		r.p.VarNames = nil
	}
	r.valueIdx = make([]map[string]int, len(m.Card))
	return nil
}

// variable resolves a scope entry: a variable name or index.
func (r *cfnReader) variable(a *node, fname string) (int, error) {
	if a.isList {
		return 0, r.errAt(a.line, "function %s: a scope entry is a container", fname)
	}
	if v, ok := r.varIdx[a.text]; ok {
		return v, nil
	}
	if v, err := strconv.Atoi(a.text); err == nil && v >= 0 && v < len(r.p.Model.Card) {
		return v, nil
	}
	return 0, r.errAt(a.line, "function %s: unknown variable %q in its scope", fname, clip(a.text))
}

// value resolves a value of variable v in a tuple: a name of its domain or
// an index.
func (r *cfnReader) value(a *node, v int, fname string) (int, error) {
	if a.isList {
		return 0, r.errAt(a.line, "function %s: a tuple value is a container", fname)
	}
	if r.valueIdx[v] == nil && r.p.ValueNames[v] != nil {
		r.valueIdx[v] = make(map[string]int, len(r.p.ValueNames[v]))
		for k, s := range r.p.ValueNames[v] {
			r.valueIdx[v][s] = k
		}
	}
	if k, ok := r.valueIdx[v][a.text]; ok {
		return k, nil
	}
	if k, err := strconv.Atoi(a.text); err == nil && k >= 0 && k < r.p.Model.Card[v] {
		return k, nil
	}
	return 0, r.errAt(a.line, "function %s: %q is not a value of variable %s", fname, clip(a.text), r.varName(v))
}

func (r *cfnReader) varName(v int) string {
	if r.p.VarNames != nil {
		return strconv.Quote(r.p.VarNames[v])
	}
	return strconv.Itoa(v)
}

// flatten returns the atoms of a cost list, nested containers flattened.
func flatten(n *node, out []*node) []*node {
	for _, a := range n.list {
		if a.isList {
			out = flatten(a, out)
		} else {
			out = append(out, a)
		}
	}
	return out
}

// pendingShare is a function whose costs name another function.
type pendingShare struct {
	factor int
	target string
	fname  string
	line   int
}

func (r *cfnReader) functions(n *node) error {
	if !n.isList {
		return r.errAt(n.line, "functions: expected a container, found %q", clip(n.text))
	}
	m := r.p.Model
	r.funcIdx = map[string]int{}
	var pending []pendingShare
	items := n.list
	var costNodes [][]*node // per factor, for the deferred conversion
	type def struct {
		isDefault bool
		def       *node
	}
	var defs []def
	var names []string
	var sizes []int64 // table sizes
	var entries int64
	for i := 0; i < len(items); i++ {
		fname := strconv.Itoa(len(m.Factors))
		if !items[i].isList {
			fname = items[i].text
			if _, dup := r.funcIdx[fname]; dup {
				return r.errAt(items[i].line, "function %q is defined twice", clip(fname))
			}
			if i++; i >= len(items) {
				return r.errAt(items[i-1].line, "function %q has no definition", clip(fname))
			}
		}
		fn := items[i]
		f, err := r.fields(fn, "function "+fname, []string{"scope", "defaultcost", "costs", "type", "params"}, 1)
		if err != nil {
			return err
		}
		if f[2] == nil && f[1] != nil && f[3] == nil {
			f[1], f[2] = nil, f[1] // the compact form {scope costs}
		}
		if f[3] != nil || f[4] != nil {
			t := "?"
			if f[3] != nil {
				t = f[3].text
			}
			return r.errAt(fn.line, "function %s is the cost function in intension %q: arithmetic and global cost functions are not supported in cfn files (toulbar2 1.1.1 disagrees with its wcsp semantics of the arithmetic ones; measured)", fname, clip(t))
		}
		if f[2] == nil {
			return r.errAt(fn.line, "function %s: no \"costs\"", fname)
		}
		if !f[0].isList {
			return r.errAt(f[0].line, "function %s: the scope is not a list", fname)
		}
		fac := model.Factor{Scope: make([]int, len(f[0].list))}
		size := int64(1)
		for j, a := range f[0].list {
			if fac.Scope[j], err = r.variable(a, fname); err != nil {
				return err
			}
			if size *= int64(m.Card[fac.Scope[j]]); entries+size > r.lim.MaxEntries {
				return r.errAt(fn.line, "%s", r.lim.ErrEntries("function "+fname+" and those before it", entries+size))
			}
		}
		if j := duplicate(fac.Scope); j >= 0 {
			return r.errAt(f[0].line, "function %s: variable %s appears twice in its scope", fname, r.varName(fac.Scope[j]))
		}
		entries += size
		sizes = append(sizes, size)
		r.funcIdx[fname] = len(m.Factors)
		names = append(names, fname)
		if !f[2].isList {
			if f[1] != nil {
				return r.errAt(f[2].line, "function %s: a shared table (costs %q) with a default cost", fname, clip(f[2].text))
			}
			pending = append(pending, pendingShare{factor: len(m.Factors), target: f[2].text, fname: fname, line: f[2].line})
		}
		m.Factors = append(m.Factors, fac)
		costNodes = append(costNodes, flatten(f[2], nil))
		defs = append(defs, def{f[1] != nil, f[1]})
	}
	shared := map[int]bool{}
	for _, ps := range pending {
		shared[ps.factor] = true
	}
	costs := make([][]float64, len(m.Factors))
	for fi := range m.Factors {
		fac := &m.Factors[fi]
		fname := names[fi]
		c := make([]float64, sizes[fi])
		costs[fi] = c
		if shared[fi] {
			continue
		}
		cn := costNodes[fi]
		if !defs[fi].isDefault {
			if len(cn) != len(c) {
				return r.errAt(lineOf(cn, r.line), "function %s: %d costs, its table has %d entries (a dense table lists them all)", fname, len(cn), len(c))
			}
			for k, a := range cn {
				var err error
				if c[k], err = r.cost(a, "function "+fname); err != nil {
					return err
				}
			}
			continue
		}
		d, err := r.cost(defs[fi].def, "default cost of function "+fname)
		if err != nil {
			return err
		}
		for k := range c {
			c[k] = d
		}
		a := len(fac.Scope)
		if len(cn)%(a+1) != 0 {
			return r.errAt(lineOf(cn, r.line), "function %s: %d items in its costs, not a multiple of %d (values of the %d scope variables and a cost)", fname, len(cn), a+1, a)
		}
		for t := 0; t < len(cn); t += a + 1 {
			k := 0
			for j, v := range fac.Scope {
				x, err := r.value(cn[t+j], v, fname)
				if err != nil {
					return err
				}
				k = k*m.Card[v] + x
			}
			if c[k], err = r.cost(cn[t+a], "function "+fname); err != nil {
				return err
			}
		}
	}
	for _, ps := range pending {
		ti, ok := r.funcIdx[ps.target]
		if !ok || shared[ti] {
			return r.errAt(ps.line, "function %s shares the costs of %q, which is not a function with a table", ps.fname, clip(ps.target))
		}
		src, dst := &m.Factors[ti], &m.Factors[ps.factor]
		for j := range max(len(src.Scope), len(dst.Scope)) {
			if j >= len(src.Scope) || j >= len(dst.Scope) || m.Card[src.Scope[j]] != m.Card[dst.Scope[j]] {
				return r.errAt(ps.line, "function %s shares the costs of %q, whose domain sizes differ", ps.fname, clip(ps.target))
			}
		}
		copy(costs[ps.factor], costs[ti])
	}
	if r.p.Precision < 0 {
		r.p.Precision = r.digits
	}
	r.p.Exact = r.digits <= r.p.Precision
	// The least cost of each function, and their sum (the largest ones when
	// maximizing).
	least := make([]float64, len(costs))
	var sum fsum.Sum
	for fi, c := range costs {
		least[fi] = c[0]
		for _, v := range c {
			if r.p.Maximize {
				least[fi] = max(least[fi], v)
			} else {
				least[fi] = min(least[fi], v)
			}
		}
		sum.Add(least[fi])
	}
	total := sum.Value()
	for fi := range m.Factors {
		m.Factors[fi].Table = r.p.table(costs[fi], total-least[fi])
	}
	return nil
}

func lineOf(ns []*node, def int) int {
	if len(ns) > 0 {
		return ns[0].line
	}
	return def
}

func describe(n *node) string {
	if n.isList {
		return "a container"
	}
	return strconv.Quote(clip(n.text))
}
