// Package uai reads and writes the UAI competition formats: models (MARKOV
// and BAYES), evidence (UAI 2014 and PIC 2011 layouts) and MAP/MPE results.
// Files may be plain or compressed (.gz, .xz, .zip with one member; detected
// from their first bytes). Every malformed input is reported as a
// *ParseError naming the file, line and token.
package uai

import (
	"math"
	"strconv"
	"strings"

	"github.com/sdrmap/sdrmap/model"
)

// maxTable bounds the number of entries of one factor table (2^31: 16 GiB of
// float64 log values), so that a corrupt header cannot ask for more.
const maxTable = 1 << 31

// ReadModelFile reads a model file, decompressing it if needed.
func ReadModelFile(path string) (*model.Model, error) {
	data, err := ReadAll(path)
	if err != nil {
		return nil, err
	}
	return ParseModel(path, data)
}

// ParseModel parses a model in the UAI format from data; name is used in
// errors. Any whitespace layout is accepted. Table entries are
// probabilities phi >= 0: phi = 0 becomes a forbidden entry, others ln phi,
// exact also for subnormal phi and for phi beyond the float64 range
// (internal/logprob). A table with every entry zero is read as it is: the
// model is infeasible, which sdrmap.Solve reports as such.
func ParseModel(name string, data []byte) (*model.Model, error) {
	s := newScanner(name, data)
	kw := s.next()
	if kw == nil {
		return nil, s.errEOF("MARKOV or BAYES")
	}
	m := &model.Model{}
	switch strings.ToUpper(string(kw)) {
	case "MARKOV":
	case "BAYES":
		m.Bayes = true
	default:
		return nil, s.errf("expected MARKOV or BAYES, found %q", clip(kw))
	}
	// Counts are bounded by what the rest of the input can hold (every token
	// takes at least two bytes), so a corrupt count fails instead of
	// allocating.
	n, err := s.count("number of variables")
	if err != nil {
		return nil, err
	}
	m.Card = make([]int, n)
	for i := range m.Card {
		c, err := s.intWhy("cardinality of variable "+strconv.Itoa(i), maxTable, ", the largest table accepted")
		if err != nil {
			return nil, err
		}
		if c == 0 {
			return nil, s.errf("variable %d has cardinality 0", i)
		}
		m.Card[i] = c
	}
	nf, err := s.count("number of factors")
	if err != nil {
		return nil, err
	}
	m.Factors = make([]model.Factor, nf)
	sizes := make([]int, nf)
	for f := range m.Factors {
		k, err := s.intWhy("arity of factor "+strconv.Itoa(f), n, ", the number of variables")
		if err != nil {
			return nil, err
		}
		scope := make([]int, k)
		size := 1
		for p := range scope {
			v, err := s.int("variable of factor "+strconv.Itoa(f), math.MaxInt32)
			if err != nil {
				return nil, err
			}
			if v >= n {
				return nil, s.errf("factor %d: variable %d out of range 0..%d", f, v, n-1)
			}
			for _, u := range scope[:p] {
				if u == v {
					return nil, s.errf("factor %d: variable %d appears twice in the scope", f, v)
				}
			}
			scope[p] = v
			size *= m.Card[v]
			if size > maxTable {
				return nil, s.errf("factor %d: table would have more than %d entries", f, maxTable)
			}
		}
		m.Factors[f].Scope = scope
		sizes[f] = size
	}
	for f := range m.Factors {
		cnt, err := s.intWhy("number of entries of factor "+strconv.Itoa(f), maxTable, ", the largest table accepted")
		if err != nil {
			return nil, err
		}
		if cnt != sizes[f] {
			return nil, s.errf("factor %d: table has %d entries, its scope needs %d", f, cnt, sizes[f])
		}
		if cnt > s.room() {
			return nil, s.errEOF("the " + strconv.Itoa(cnt) + " entries of factor " + strconv.Itoa(f))
		}
		t := model.Table{Log: make([]float64, cnt)}
		what := "entry of factor " + strconv.Itoa(f)
		for k := range t.Log {
			ln, zero, err := s.lnEntry(what)
			if err != nil {
				return nil, err
			}
			if zero {
				t.Forbid(k)
			} else {
				t.Log[k] = ln
			}
		}
		m.Factors[f].Table = t
	}
	if t := s.next(); t != nil {
		return nil, s.errf("unexpected %q after the last table", clip(t))
	}
	return m, nil
}
