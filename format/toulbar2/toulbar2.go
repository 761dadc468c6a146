// Package toulbar2 reads and writes cost function networks in toulbar2's
// formats: .wcsp (integer costs, variables and values by index) and .cfn
// (JSON-like, named variables and values, decimal costs, minimization or
// maximization), plain or compressed (.gz, .xz).
//
// # Energy convention
//
// toulbar2 minimizes the sum of the costs of its cost functions (maximizes
// it for a .cfn file whose "mustbe" starts with ">"). A cost c becomes the
// log potential Log = -c (Log = +c when maximizing), so the model energy
// E(x) = -sum Log is toulbar2's cost of x (its negation when maximizing).
// A zero-arity cost function, toulbar2's constant, is a factor of arity 0
// and stays in the energy.
//
// toulbar2 accepts an assignment only when its total cost stays below the
// file's bound UB (above it, maximizing: the wcsp header's upper bound,
// the cfn's "mustbe"). The model cannot hold that global condition; it
// forbids what is decided tuple by tuple, and Problem keeps the bound
// (Feasible) for the commands to report the rest:
//
//   - wcsp: a tuple whose cost is at least UB is forbidden, as the format
//     states (its costs are non-negative, so no assignment using it stays
//     below UB);
//   - cfn: a tuple is forbidden when its cost plus the least costs of all
//     other cost functions reaches UB, so that no assignment using it can
//     stay below UB. toulbar2 1.1.1 forbids no tuple of a cfn file by its
//     own cost (measured: a tuple of cost 28 under "<27" with a cost
//     function of cost -5 elsewhere gives a solution of cost 23), and
//     neither does this reader.
//
// The zero-arity constant is never forbidden on its own (unless it alone
// with the others' least costs reaches the bound, when nothing is
// feasible).
//
// Costs are exact decimals: a wcsp cost is an integer, a cfn cost has at
// most Precision digits after the point (the digits of the "mustbe"
// number). The energy of every assignment is then a multiple of
// Resolution, and any lower bound on it may be rounded up to the next
// multiple (RoundBound, up to 12 digits), as toulbar2 does with its
// integer costs. A cfn cost with more digits is read as written and clears
// Exact (toulbar2 1.1.1 drops the fraction of such a cost: measured,
// "1.234" at precision 2 costs 1.00).
//
// Cost functions in intension: a wcsp file's binary arithmetic and
// disjunctive functions (>=, >, <=, <, =, disj, sdisj; arithTable) are
// tabulated. Not read: the global ones, any function in intension in a cfn
// file ("type" with "params"), and interval variables (negative domain
// sizes); each is refused with an error naming the file, line and
// function.
package toulbar2

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/model"
)

// Problem is a cost function network read from a toulbar2 file.
type Problem struct {
	Model    *model.Model
	Name     string
	Maximize bool // cfn "mustbe" ">": toulbar2 maximizes the costs; Model's energy is their negation
	// Bound is the file's bound on the total cost: toulbar2 accepts no
	// assignment whose total cost reaches it (the package doc says which
	// tuples the model forbids for it). +Inf when the file gives none.
	Bound float64
	// Precision is the number of decimal digits of the costs (0 for wcsp).
	Precision int
	// Exact reports that every cost has at most Precision decimal digits,
	// so that every energy is a multiple of Resolution().
	Exact bool
	// VarNames and ValueNames are the names of a cfn file (nil for wcsp;
	// ValueNames[i] nil for a variable given by its domain size).
	VarNames   []string
	ValueNames [][]string
}

// Format returns "wcsp" or "cfn" for a path ending in .wcsp or .cfn,
// possibly followed by .gz or .xz, and "" otherwise.
func Format(path string) string {
	p := strings.ToLower(path)
	for _, z := range []string{".gz", ".xz"} {
		p = strings.TrimSuffix(p, z)
	}
	switch filepath.Ext(p) {
	case ".wcsp":
		return "wcsp"
	case ".cfn":
		return "cfn"
	}
	return ""
}

// ReadFile reads a .wcsp or .cfn file (Format), decompressing it if
// needed, within the default limits (model.DefaultLimits).
func ReadFile(path string) (*Problem, error) { return ReadFileLimits(path, model.Limits{}) }

// ReadFileLimits is ReadFile within lim (zero fields: the defaults): at
// most lim.MaxBytes() of text, lim.MaxEntries table entries in all and a
// lifted dimension N = 1 + sum of the domain sizes below lim.MaxN.
func ReadFileLimits(path string, lim model.Limits) (*Problem, error) {
	lim = lim.OrDefault()
	data, err := uai.ReadAllLimit(path, lim.MaxBytes())
	if err != nil {
		return nil, err
	}
	switch Format(path) {
	case "wcsp":
		return ParseWCSPLimits(path, data, lim)
	case "cfn":
		return ParseCFNLimits(path, data, lim)
	}
	return nil, fmt.Errorf("%s: not a toulbar2 file (.wcsp or .cfn, possibly .gz or .xz)", path)
}

// Cost returns the cost toulbar2 reports for an assignment of energy e:
// e itself, or -e when maximizing.
func (p *Problem) Cost(e float64) float64 {
	if p.Maximize {
		return -e
	}
	return e
}

// Feasible reports whether an assignment of energy e has a total cost
// strictly within the file's bound, as toulbar2 requires of a solution.
func (p *Problem) Feasible(e float64) bool { return !p.reaches(p.Cost(e)) }

// Resolution returns 10^-Precision when every energy is a multiple of it
// (Exact), and 0 otherwise.
func (p *Problem) Resolution() float64 {
	if !p.Exact {
		return 0
	}
	return math.Pow10(-p.Precision)
}

// RoundBound returns the lower bound b on the energy rounded up to the next
// multiple of Resolution(), after lowering b by 1e-6 of the resolution
// (and 1e-12 relative) for its rounding errors; never below b, and b itself
// when the costs are not exact or b is infinite.
func (p *Problem) RoundBound(b float64) float64 {
	r := p.Resolution()
	if r == 0 || p.Precision > maxDigits || math.IsInf(b, 0) || math.IsNaN(b) {
		return b
	}
	scale := math.Pow10(p.Precision)
	u := b * scale
	k := math.Ceil(u - 1e-6 - 1e-12*math.Abs(u))
	if k/scale < b {
		return b
	}
	return k / scale
}

// reaches reports whether a total cost v is at or beyond the bound, in
// units of 10^-Precision when the costs are exact (so that the rounding
// errors of a sum of decimals do not decide).
func (p *Problem) reaches(v float64) bool {
	b := p.Bound
	if p.Exact && p.Precision <= maxDigits {
		scale := pow10[p.Precision]
		v, b = math.Round(v*scale), math.Round(b*scale)
	}
	if p.Maximize {
		return v <= b
	}
	return v >= b
}

// logOf returns the log potential of cost c.
func (p *Problem) logOf(c float64) float64 {
	if p.Maximize {
		return c
	}
	return 0 - c
}

// table returns the cost table of costs (in the model's order, last scope
// variable fastest): a tuple is forbidden when c + rest reaches the bound,
// rest being the least total the other cost functions can add (0 for the
// wcsp format, whose tuples are forbidden by their own cost).
func (p *Problem) table(costs []float64, rest float64) model.Table {
	t := model.Table{Log: make([]float64, len(costs))}
	for k, c := range costs {
		if p.reaches(c + rest) {
			t.Forbid(k)
		} else {
			t.Log[k] = p.logOf(c)
		}
	}
	return t
}

// maxDigits is the largest precision at which costs are compared and
// bounds rounded in units of 10^-Precision (beyond it, doubles do not hold
// the units of typical costs exactly).
const maxDigits = 12

var pow10 = [maxDigits + 1]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12}

// ParseError is a malformed toulbar2 file: the file, the line (1-based: of
// the offending token, or the last line when the file ends early) and the
// problem.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }
