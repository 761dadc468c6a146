package toulbar2

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/sdrmap/sdrmap/model"
)

// wcspScanner splits a wcsp file into whitespace-separated tokens.
type wcspScanner struct {
	file string
	data []byte
	pos  int
	line int // line of the last token
}

// next returns the next token, or "" at the end of the input.
func (s *wcspScanner) next() string {
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c == '\n' {
			s.line++
		} else if c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v' {
			break
		}
		s.pos++
	}
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' {
			break
		}
		s.pos++
	}
	return string(s.data[start:s.pos])
}

func (s *wcspScanner) errf(format string, args ...any) error {
	return &ParseError{File: s.file, Line: s.line, Msg: fmt.Sprintf(format, args...)}
}

// int reads an integer token in [lo, hi]; what names it in errors.
func (s *wcspScanner) int(what string, lo, hi int64) (int64, error) {
	t := s.next()
	if t == "" {
		return 0, s.errf("the file ends before the %s", what)
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, s.errf("%s: %q is not an integer", what, clip(t))
	}
	if v < lo || v > hi {
		return 0, s.errf("%s %d is outside %d..%d", what, v, lo, hi)
	}
	return v, nil
}

// cost reads an integer cost: exact in float64 (|c| <= 2^53), or at least
// bound (forbidden, as hard constraints often are written).
func (s *wcspScanner) cost(what string, bound float64) (float64, error) {
	t := s.next()
	if t == "" {
		return 0, s.errf("the file ends before the %s", what)
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		if _, ferr := strconv.ParseFloat(t, 64); ferr == nil {
			return 0, s.errf("%s %q: wcsp costs are integers (decimal costs need the cfn format)", what, clip(t))
		}
		return 0, s.errf("%s: %q is not an integer", what, clip(t))
	}
	if (v > 1<<53 || v < -(1<<53)) && float64(v) < bound {
		return 0, s.errf("%s %d: beyond 2^53, not exact in double precision", what, v)
	}
	return float64(v), nil
}

// shared is a wcsp cost function in extension defined with a negative
// arity, for later functions to reuse by its occurrence number.
type shared struct {
	card  []int
	costs []float64
}

// ParseWCSP parses a model in toulbar2's wcsp format; name is used in
// errors. The layout (toulbar2's "wcsp format" documentation):
//
//	name N D C UB            (problem name, variables, largest domain,
//	                          cost functions, upper bound)
//	d_0 ... d_{N-1}          (domain sizes)
//	then C cost functions in extension, each
//	  a v_1 ... v_a default t  (arity, scope, default cost, tuple count)
//	  t lines x_1 ... x_a c    (values by index, cost)
//
// A negative arity defines a shared function (occurrence numbers from 1);
// a negative tuple count -k reuses shared function k on the scope. Arity 0
// is a constant (its default cost). A binary function with default cost -1
// followed by an arithmetic keyword and its parameters is tabulated
// (arithTable). Costs are integers.
func ParseWCSP(name string, data []byte) (*Problem, error) {
	return ParseWCSPLimits(name, data, model.Limits{})
}

// ParseWCSPLimits is ParseWCSP within lim (ReadFileLimits).
func ParseWCSPLimits(name string, data []byte, lim model.Limits) (*Problem, error) {
	lim = lim.OrDefault()
	s := &wcspScanner{file: name, data: data, line: 1}
	p := &Problem{Exact: true}
	p.Name = s.next()
	if p.Name == "" {
		return nil, s.errf("empty file: expected the problem name")
	}
	n, err := s.int("number of variables", 0, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	if _, err := s.int("largest domain size", math.MinInt32, math.MaxInt32); err != nil {
		return nil, err
	}
	nf, err := s.int("number of cost functions", 0, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	if p.Bound, err = s.cost("upper bound", math.Inf(-1)); err != nil {
		return nil, err
	}
	if int(n) > len(data) || int(nf) > len(data) {
		return nil, s.errf("%d variables and %d cost functions cannot fit in %d bytes", n, nf, len(data))
	}
	m := &model.Model{Card: make([]int, n)}
	p.Model = m
	dim := int64(1)
	for i := range m.Card {
		d, err := s.int(fmt.Sprintf("domain size of variable %d", i), math.MinInt32, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		if dim += max(d, 0); dim > lim.MaxN {
			return nil, s.errf("%s", lim.ErrN(dim))
		}
		switch {
		case d < 0:
			return nil, s.errf("variable %d has the interval domain 0..%d (negative size): interval variables are not supported", i, -d-1)
		case d == 0:
			return nil, s.errf("variable %d has an empty domain", i)
		}
		m.Card[i] = int(d)
	}
	var shares []shared
	var entries int64
	for fi := range int(nf) {
		what := fmt.Sprintf("cost function %d", fi)
		a, err := s.int("arity of "+what, -math.MaxInt32, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		share := a < 0
		if share {
			a = -a
		}
		if a > n {
			return nil, s.errf("%s has arity %d, the problem has %d variables", what, a, n)
		}
		f := model.Factor{Scope: make([]int, a)}
		size := int64(1)
		for j := range f.Scope {
			v, err := s.int(fmt.Sprintf("variable %d of the scope of %s", j, what), 0, n-1)
			if err != nil {
				return nil, err
			}
			f.Scope[j] = int(v)
			if size *= int64(m.Card[v]); entries+size > lim.MaxEntries {
				return nil, s.errf("%s", lim.ErrEntries(what+" and those before it", entries+size))
			}
		}
		if j := duplicate(f.Scope); j >= 0 {
			return nil, s.errf("%s: variable %d appears twice in its scope", what, f.Scope[j])
		}
		entries += size
		card := make([]int, a)
		for j, v := range f.Scope {
			card[j] = m.Card[v]
		}
		def, err := s.cost("default cost of "+what, p.Bound)
		if err != nil {
			return nil, err
		}
		nt := s.next()
		if def == -1 && nt != "" {
			if _, err := strconv.ParseInt(nt, 10, 64); err != nil {
				np, ok := arithParams[nt]
				if !ok || a != 2 || share {
					return nil, s.errf("%s is the cost function in intension %q: of those only the binary arithmetic and disjunctive ones (>=, >, <=, <, =, disj, sdisj) are supported", what, clip(nt))
				}
				q := make([]float64, np)
				for j := range q {
					if q[j], err = s.cost(fmt.Sprintf("parameter %d of %s", j+1, what), math.Inf(-1)); err != nil {
						return nil, err
					}
				}
				costs, err := arithTable(nt, q, card[0], card[1])
				if err != nil {
					return nil, s.errf("%s: %v", what, err)
				}
				f.Table = p.table(costs, 0)
				m.Factors = append(m.Factors, f)
				continue
			}
		}
		if nt == "" {
			return nil, s.errf("the file ends before the number of tuples of %s", what)
		}
		t, err := strconv.ParseInt(nt, 10, 64)
		if err != nil {
			return nil, s.errf("number of tuples of %s: %q is not an integer", what, clip(nt))
		}
		costs := make([]float64, size)
		switch {
		case t < 0:
			if t < -int64(len(shares)) {
				return nil, s.errf("%s reuses shared cost function %d, but %d are defined so far", what, uint64(-t), len(shares))
			}
			k := int(-t)
			sh := &shares[k-1]
			if !slices.Equal(sh.card, card) {
				return nil, s.errf("%s reuses shared cost function %d with domain sizes %v on a scope with domain sizes %v", what, k, sh.card, card)
			}
			copy(costs, sh.costs)
		default:
			if t > int64(size) {
				return nil, s.errf("%s lists %d tuples, its table has %d", what, t, size)
			}
			for k := range costs {
				costs[k] = def
			}
			for range t {
				k := 0
				for j := range a {
					x, err := s.int(fmt.Sprintf("value of variable %d in a tuple of %s", f.Scope[j], what), 0, int64(card[j]-1))
					if err != nil {
						return nil, err
					}
					k = k*card[j] + int(x)
				}
				if costs[k], err = s.cost("cost of a tuple of "+what, p.Bound); err != nil {
					return nil, err
				}
			}
		}
		if share {
			shares = append(shares, shared{card: card, costs: costs})
		}
		f.Table = p.table(costs, 0)
		m.Factors = append(m.Factors, f)
	}
	if t := s.next(); t != "" {
		return nil, s.errf("%q after the last of %d cost functions", clip(t), nf)
	}
	return p, nil
}

// duplicate returns the position of the first repeated variable of scope,
// or -1.
func duplicate(scope []int) int {
	seen := make(map[int]bool, len(scope))
	for j, v := range scope {
		if seen[v] {
			return j
		}
		seen[v] = true
	}
	return -1
}

// clip shortens a token for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
