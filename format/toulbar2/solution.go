package toulbar2

import (
	"bytes"
	"strconv"
	"strings"
)

// IsSolution reports whether data looks like a toulbar2 solution (what
// toulbar2 -w writes: the values of all variables on one line) rather than
// a UAI result, which starts with MAP or MPE.
func IsSolution(data []byte) bool {
	f := bytes.Fields(data)
	if len(f) == 0 {
		return false
	}
	k := strings.ToUpper(string(f[0]))
	return k != "MAP" && k != "MPE"
}

// ParseSolution parses a toulbar2 solution of p: one value per variable,
// in order, each its index or (cfn) its name; name is used in errors.
func (p *Problem) ParseSolution(name string, data []byte) ([]int, error) {
	m := p.Model
	var x []int
	line, last, v := 1, 1, 0
	for _, l := range strings.Split(string(data), "\n") {
		for _, t := range strings.Fields(l) {
			if v >= m.NumVars() {
				return nil, &ParseError{File: name, Line: line, Msg: "more values than the " + strconv.Itoa(m.NumVars()) + " variables"}
			}
			k := -1
			if v < len(p.ValueNames) {
				for j, s := range p.ValueNames[v] {
					if s == t {
						k = j
					}
				}
			}
			if k < 0 {
				var err error
				if k, err = strconv.Atoi(t); err != nil || k < 0 || k >= m.Card[v] {
					return nil, &ParseError{File: name, Line: line, Msg: "value " + strconv.Quote(clip(t)) + " of variable " + strconv.Itoa(v) + ": neither a value name nor an index in 0.." + strconv.Itoa(m.Card[v]-1)}
				}
			}
			x = append(x, k)
			v, last = v+1, line
		}
		line++
	}
	if v != m.NumVars() {
		return nil, &ParseError{File: name, Line: last, Msg: strconv.Itoa(v) + " values for " + strconv.Itoa(m.NumVars()) + " variables"}
	}
	return x, nil
}
