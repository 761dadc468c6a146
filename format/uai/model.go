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

// ReadModelFile reads a model file, decompressing it if needed, within the
// default limits (model.DefaultLimits).
func ReadModelFile(path string) (*model.Model, error) {
	return ReadModelFileLimits(path, model.Limits{})
}

// ReadModelFileLimits reads a model file within lim (zero fields: the
// defaults): its decompressed text is at most lim.MaxBytes().
func ReadModelFileLimits(path string, lim model.Limits) (*model.Model, error) {
	lim = lim.OrDefault()
	data, err := ReadAllLimit(path, lim.MaxBytes())
	if err != nil {
		return nil, err
	}
	return ParseModelLimits(path, data, lim)
}

// ParseModel parses a model in the UAI format from data within the default
// limits; name is used in errors. Any whitespace layout is accepted. Table
// entries are probabilities phi >= 0: phi = 0 becomes a forbidden entry,
// others ln phi, exact also for subnormal phi and for phi beyond the
// float64 range (internal/logprob). A table with every entry zero is read
// as it is: the model is infeasible, which sdrmap.Solve reports as such.
func ParseModel(name string, data []byte) (*model.Model, error) {
	return ParseModelLimits(name, data, model.Limits{})
}

// ParseModelLimits is ParseModel within lim (zero fields: the defaults):
// the number of variables, the cardinalities, the number of factors and
// their table sizes are checked against it as they are read, before
// anything of their size is allocated.
func ParseModelLimits(name string, data []byte, lim model.Limits) (*model.Model, error) {
	lim = lim.OrDefault()
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
	if int64(n) >= lim.MaxN {
		return nil, s.errf("%s", lim.ErrN(int64(n)+1))
	}
	m.Card = make([]int, n)
	dim := int64(1)
	for i := range m.Card {
		c, err := s.intWhy("cardinality of variable "+strconv.Itoa(i), int(min(lim.MaxN, math.MaxInt32)), ", the limit on N (--max-n raises it)")
		if err != nil {
			return nil, err
		}
		if c == 0 {
			return nil, s.errf("variable %d has cardinality 0", i)
		}
		if dim += int64(c); dim > lim.MaxN {
			return nil, s.errf("%s", lim.ErrN(dim))
		}
		m.Card[i] = c
	}
	nf, err := s.count("number of factors")
	if err != nil {
		return nil, err
	}
	if int64(nf) > lim.MaxEntries {
		return nil, s.errf("%s", lim.ErrEntries(strconv.Itoa(nf)+" factors", int64(nf)))
	}
	m.Factors = make([]model.Factor, nf)
	entries := int64(0)
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
			if int64(size) > (lim.MaxEntries-entries)/int64(m.Card[v]) {
				return nil, s.errf("%s", lim.ErrEntries("factors 0.."+strconv.Itoa(f), entries+int64(size)*int64(m.Card[v])))
			}
			size *= m.Card[v]
		}
		entries += int64(size)
		m.Factors[f].Scope = scope
		sizes[f] = size
	}
	for f := range m.Factors {
		cnt, err := s.intWhy("number of entries of factor "+strconv.Itoa(f), int(min(lim.MaxEntries, math.MaxInt)), ", the limit on table entries (--max-entries raises it)")
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
		for k := range t.Log {
			ln, zero, err := s.lnEntry(f)
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
