package toulbar2

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sdrmap/sdrmap/model"
)

// Header is what the writers put beside a model's costs: the problem name,
// a bound on the energy to keep, and names. The zero value writes generated
// names and a bound of its own.
type Header struct {
	Name string
	// Bound, when HasBound, is the bound on the total cost (the energy) to
	// write, kept when every cost that is not forbidden stays below it as
	// the format requires (see the package doc); otherwise the writers
	// choose 1 + the sum of the largest non-negative costs of the functions,
	// which no assignment of finite energy reaches.
	Bound      float64
	HasBound   bool
	VarNames   []string   // cfn only
	ValueNames [][]string // cfn only; nil entries: the domain size
}

// HeaderOf returns the header that writes p as read: its name, names, and
// bound on the energy (the negated lower bound when p maximizes).
func HeaderOf(p *Problem) Header {
	h := Header{Name: p.Name, Bound: p.Bound, HasBound: !math.IsInf(p.Bound, 0), VarNames: p.VarNames, ValueNames: p.ValueNames}
	if p.Maximize {
		h.Bound = -p.Bound
	}
	return h
}

// costTables returns the cost of every entry of every factor (-Log), NaN
// for forbidden entries, with per factor the least and largest finite cost.
func costTables(m *model.Model) (costs [][]float64, least, most []float64) {
	costs = make([][]float64, len(m.Factors))
	least = make([]float64, len(m.Factors))
	most = make([]float64, len(m.Factors))
	for fi := range m.Factors {
		f := &m.Factors[fi]
		c := make([]float64, len(f.Log))
		least[fi], most[fi] = math.Inf(1), math.Inf(-1)
		for k, v := range f.Log {
			if f.IsForbidden(k) {
				c[k] = math.NaN()
				continue
			}
			c[k] = 0 - v
			least[fi], most[fi] = min(least[fi], c[k]), max(most[fi], c[k])
		}
		costs[fi] = c
	}
	return costs, least, most
}

// bounds returns the upper bound ub to write and the cost of a forbidden
// entry: ub exceeds every total of finite costs (or is h.Bound, if every
// finite tuple with the others' least costs stays below it: perTuple false,
// the cfn rule; every finite cost below it: perTuple true, the wcsp rule),
// and forbidden + the others' least costs reaches ub.
func bounds(h Header, least, most []float64, perTuple bool) (ub, forbidden float64) {
	var top, neg float64
	for fi := range least {
		if math.IsInf(least[fi], 1) {
			continue // all forbidden
		}
		top += max(0, most[fi])
		neg += min(0, least[fi])
	}
	ub = math.Ceil(top) + 1
	if h.HasBound && !math.IsInf(h.Bound, 0) && !math.IsNaN(h.Bound) {
		ok := true
		var rest float64
		for fi := range least {
			if !math.IsInf(least[fi], 1) {
				rest += least[fi]
			}
		}
		for fi := range most {
			if math.IsInf(most[fi], -1) {
				continue
			}
			v := most[fi]
			if !perTuple {
				v += rest - least[fi]
			}
			ok = ok && v+1e-9*max(1, math.Abs(h.Bound)) < h.Bound // a margin for sums of decimals
		}
		if ok {
			ub = h.Bound
		}
	}
	forbidden = ub
	if !perTuple {
		forbidden = math.Ceil(ub-neg) + 1
	}
	return ub, forbidden
}

// integer returns the integer that cost c is within 1e-9 relative of (a
// cost read back from UAI, exp then ln, is within a few ulps of the
// integer written), and false if there is none.
func integer(c float64) (int64, bool) {
	r := math.Round(c)
	if math.Abs(c-r) > 1e-9*max(1, math.Abs(c)) || math.Abs(r) > 1<<53 {
		return 0, false
	}
	return int64(r), true
}

// WriteWCSP writes m in the wcsp format (ParseWCSP reads it back with the
// same energies): costs -Log, which must be integers (within 1e-9
// relative, written rounded); forbidden entries at the upper bound
// (Header.Bound). The format holds non-negative costs: a function with a
// negative cost is shifted up by its least cost and the constant (a
// zero-arity function, added if there is none) down by as much, and if
// the constant would become negative, the positive least costs move into
// it too; a model whose least costs sum below 0 is refused.
// Each function lists the tuples whose cost differs from its most frequent
// one, the default.
func WriteWCSP(w io.Writer, m *model.Model, h Header) error {
	costs, least, most := costTables(m)
	for fi, c := range costs {
		for k, v := range c {
			if math.IsNaN(v) {
				continue
			}
			if _, ok := integer(v); !ok {
				return fmt.Errorf("factor %d, entry %d: cost %v is not an integer: the wcsp format holds integer costs (write .cfn instead)", fi, k, v)
			}
		}
	}
	scopes := make([][]int, len(m.Factors))
	constant := -1
	var shift float64
	for fi := range m.Factors {
		scopes[fi] = m.Factors[fi].Scope
		if len(scopes[fi]) == 0 && constant < 0 {
			constant = fi
			continue
		}
		if l := least[fi]; l < 0 && !math.IsInf(l, 1) {
			l = math.Round(l)
			for k := range costs[fi] {
				costs[fi][k] -= l
			}
			least[fi], most[fi] = least[fi]-l, most[fi]-l
			shift += l
		}
	}
	if shift != 0 && constant < 0 {
		constant = len(costs)
		costs, scopes = append(costs, []float64{0}), append(scopes, nil)
		least, most = append(least, 0), append(most, 0)
	}
	if constant >= 0 {
		c := &costs[constant][0]
		if !math.IsNaN(*c) && *c+shift < 0 {
			// Move the positive least costs into the constant too.
			for fi := range costs {
				if l := least[fi]; fi != constant && l > 0 && !math.IsInf(l, 1) {
					for k := range costs[fi] {
						costs[fi][k] -= l
					}
					least[fi], most[fi] = 0, most[fi]-l
					shift += l
				}
			}
		}
		if !math.IsNaN(*c) {
			*c += shift
			least[constant], most[constant] = *c, *c
		}
		if *c < 0 {
			return fmt.Errorf("the functions' least costs sum to %v, below 0: the wcsp format holds non-negative costs (write .cfn instead)", *c)
		}
	}
	ub, _ := bounds(h, least, most, true)
	ubi, ok := integer(ub)
	if !ok {
		return fmt.Errorf("upper bound %v is not an integer below 2^53", ub)
	}
	bw := bufio.NewWriter(w)
	maxd := 0
	for _, c := range m.Card {
		maxd = max(maxd, c)
	}
	fmt.Fprintf(bw, "%s %d %d %d %d\n", wcspName(h.Name), m.NumVars(), maxd, len(costs), ubi)
	b := make([]byte, 0, 64)
	for i, c := range m.Card {
		if i > 0 {
			bw.WriteByte(' ')
		}
		bw.WriteString(strconv.Itoa(c))
	}
	bw.WriteByte('\n')
	for fi := range costs {
		scope := scopes[fi]
		units := make([]int64, len(costs[fi]))
		for k, v := range costs[fi] {
			if math.IsNaN(v) {
				units[k] = ubi
			} else {
				units[k], _ = integer(v)
			}
		}
		def := mostFrequent(units)
		n := 0
		for _, u := range units {
			if u != def {
				n++
			}
		}
		b = append(b[:0], strconv.Itoa(len(scope))...)
		for _, v := range scope {
			b = append(append(b, ' '), strconv.Itoa(v)...)
		}
		b = append(append(b, ' '), strconv.FormatInt(def, 10)...)
		b = append(append(b, ' '), strconv.Itoa(n)...)
		bw.Write(append(b, '\n'))
		x := make([]int, len(scope))
		for _, u := range units {
			if u != def {
				b = b[:0]
				for _, v := range x {
					b = append(strconv.AppendInt(b, int64(v), 10), ' ')
				}
				bw.Write(append(strconv.AppendInt(b, u, 10), '\n'))
			}
			next(x, scope, m.Card)
		}
	}
	return bw.Flush()
}

// next advances the tuple x over scope to the next one, last variable
// fastest.
func next(x, scope, card []int) {
	for j := len(x) - 1; j >= 0; j-- {
		if x[j]++; x[j] < card[scope[j]] {
			return
		}
		x[j] = 0
	}
}

func mostFrequent(units []int64) int64 {
	count := make(map[int64]int, 8)
	best, bc := int64(0), 0
	for _, u := range units {
		count[u]++
		if c := count[u]; c > bc || (c == bc && u < best) {
			best, bc = u, c
		}
	}
	return best
}

// wcspName returns name as one token ("sdrmap" if empty).
func wcspName(name string) string {
	name = strings.Join(strings.Fields(name), "_")
	if name == "" {
		return "sdrmap"
	}
	return name
}

// decimal formats v as the shortest decimal without exponent that reads
// back to v.
func decimal(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// WriteCFN writes m in the cfn format as JSON: costs -Log as the shortest
// decimals that read back to the same doubles, dense tables (up to arity
// 3; beyond, a default cost with listed tuples), "mustbe" "<UB"
// with as many decimals as the costs have (toulbar2's precision; a model
// converted from UAI has costs of up to 17 significant digits, more than
// toulbar2's 64-bit integer costs hold at that precision), forbidden
// entries at a cost that with the others' least costs reaches UB.
func WriteCFN(w io.Writer, m *model.Model, h Header) error {
	costs, least, most := costTables(m)
	prec := 0
	for _, c := range costs {
		for _, v := range c {
			if !math.IsNaN(v) {
				prec = max(prec, decimals(decimal(v)))
			}
		}
	}
	ub, forbidden := bounds(h, least, most, false)
	prec = max(prec, decimals(decimal(ub)))
	bw := bufio.NewWriter(w)
	name := h.Name
	if name == "" {
		name = "sdrmap"
	}
	fmt.Fprintf(bw, "{\"problem\": {\"name\": %s, \"mustbe\": \"<%s\"},\n\"variables\": {", quote(name), strconv.FormatFloat(ub, 'f', prec, 64))
	vname := func(i int) string {
		if i < len(h.VarNames) && h.VarNames[i] != "" {
			return h.VarNames[i]
		}
		return "x" + strconv.Itoa(i)
	}
	for i, c := range m.Card {
		if i > 0 {
			bw.WriteString(", ")
		}
		fmt.Fprintf(bw, "%s: ", quote(vname(i)))
		if i < len(h.ValueNames) && len(h.ValueNames[i]) == c {
			bw.WriteByte('[')
			for k, s := range h.ValueNames[i] {
				if k > 0 {
					bw.WriteString(", ")
				}
				bw.WriteString(quote(s))
			}
			bw.WriteByte(']')
		} else {
			bw.WriteString(strconv.Itoa(c))
		}
	}
	bw.WriteString("},\n\"functions\": {")
	fs := decimal(forbidden)
	for fi := range m.Factors {
		f := &m.Factors[fi]
		if fi > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, "\n\"f%d\": {\"scope\": [", fi)
		for j, v := range f.Scope {
			if j > 0 {
				bw.WriteString(", ")
			}
			bw.WriteString(quote(vname(v)))
		}
		bw.WriteString("], ")
		str := make([]string, len(costs[fi]))
		for k, v := range costs[fi] {
			if str[k] = fs; !math.IsNaN(v) {
				str[k] = decimal(v)
			}
		}
		if len(f.Scope) < 4 {
			fmt.Fprintf(bw, "\"costs\": [%s]}", strings.Join(str, ", "))
			continue
		}
		// Arity 4 and more as a default cost with listed tuples: toulbar2
		// 1.1.1 counts a dense table of arity 4 twice (measured).
		count := map[string]int{}
		def := str[0]
		for _, v := range str {
			if count[v]++; count[v] > count[def] {
				def = v
			}
		}
		fmt.Fprintf(bw, "\"defaultcost\": %s, \"costs\": [", def)
		x := make([]int, len(f.Scope))
		sep := ""
		for _, v := range str {
			if v != def {
				for _, xv := range x {
					fmt.Fprintf(bw, "%s%d", sep, xv)
					sep = ", "
				}
				fmt.Fprintf(bw, ", %s", v)
			}
			next(x, f.Scope, m.Card)
		}
		bw.WriteString("]}")
	}
	bw.WriteString("}}\n")
	return bw.Flush()
}

// quote writes a name as a JSON string.
func quote(s string) string { return strconv.Quote(s) }
