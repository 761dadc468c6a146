package toulbar2

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// This file generates random toulbar2 files covering what the readers
// accept: default costs with listed tuples, dense tables, costs at or
// beyond the bound, constants, arities 0 to 4, shared functions, and for
// cfn names, decimals and maximization.

type genFunc struct {
	scope []int
	costs []int64 // dense, last scope variable fastest, in units of 10^-prec
}

type genProblem struct {
	card  []int
	funcs []genFunc
	bound int64 // in units
	prec  int   // cfn only
	max   bool  // cfn only
}

func genRandom(rng *rand.Rand, cfn bool) *genProblem {
	g := &genProblem{card: make([]int, 2+rng.IntN(5))}
	for i := range g.card {
		g.card[i] = 1 + rng.IntN(4)
	}
	if cfn {
		g.prec = rng.IntN(3)
		g.max = rng.IntN(4) == 0
	}
	unit := int64(1)
	for range g.prec {
		unit *= 10
	}
	g.bound = (20 + rng.Int64N(60)) * unit
	nf := 1 + rng.IntN(6)
	for range nf {
		a := min(rng.IntN(5), len(g.card))
		if rng.IntN(3) == 0 {
			a = min(1+rng.IntN(2), len(g.card))
		}
		scope := rng.Perm(len(g.card))[:a]
		size := 1
		for _, v := range scope {
			size *= g.card[v]
		}
		f := genFunc{scope: scope, costs: make([]int64, size)}
		for k := range f.costs {
			f.costs[k] = rng.Int64N(10 * unit)
			if g.max || (cfn && rng.IntN(4) == 0) {
				f.costs[k] -= 5 * unit
			}
			if rng.IntN(12) == 0 {
				f.costs[k] = g.bound + rng.Int64N(3)
				if g.max {
					f.costs[k] = -g.bound - rng.Int64N(3)
				}
			}
		}
		g.funcs = append(g.funcs, f)
	}
	if g.max {
		g.bound = -g.bound
	}
	return g
}

// tuples returns the tuple of entry k of f.
func (g *genProblem) tuple(f *genFunc, k int) []int {
	x := make([]int, len(f.scope))
	for j := len(f.scope) - 1; j >= 0; j-- {
		c := g.card[f.scope[j]]
		x[j] = k % c
		k /= c
	}
	return x
}

// mode picks the most frequent cost of f as its default.
func mode(costs []int64) int64 {
	count := map[int64]int{}
	best, bc := int64(0), -1
	for _, c := range costs {
		count[c]++
		if count[c] > bc || (count[c] == bc && c < best) {
			best, bc = c, count[c]
		}
	}
	return best
}

func (g *genProblem) wcsp(rng *rand.Rand) string {
	var b strings.Builder
	maxd := 0
	for _, c := range g.card {
		maxd = max(maxd, c)
	}
	fmt.Fprintf(&b, "gen %d %d %d %d\n", len(g.card), maxd, len(g.funcs), g.bound)
	for i, c := range g.card {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, c)
	}
	b.WriteByte('\n')
	type def struct {
		card  []int
		costs []int64
		occ   int
	}
	var shares []def
	for _, f := range g.funcs {
		card := make([]int, len(f.scope))
		for j, v := range f.scope {
			card[j] = g.card[v]
		}
		d := mode(f.costs)
		reuse := 0
		for _, s := range shares {
			if fmt.Sprint(s.card) == fmt.Sprint(card) && fmt.Sprint(s.costs) == fmt.Sprint(f.costs) {
				reuse = s.occ
			}
		}
		arity := len(f.scope)
		share := reuse == 0 && arity > 0 && rng.IntN(3) == 0
		if share {
			shares = append(shares, def{card, f.costs, len(shares) + 1})
			arity = -arity
		}
		fmt.Fprint(&b, arity)
		for _, v := range f.scope {
			fmt.Fprint(&b, " ", v)
		}
		if reuse > 0 {
			fmt.Fprintf(&b, " %d %d\n", d, -reuse)
			continue
		}
		var lines []string
		for k, c := range f.costs {
			if c == d {
				continue
			}
			line := ""
			for _, x := range g.tuple(&f, k) {
				line += strconv.Itoa(x) + " "
			}
			lines = append(lines, line+strconv.FormatInt(c, 10))
		}
		if len(f.scope) == 0 {
			lines = nil // the constant is its default cost
		}
		fmt.Fprintf(&b, " %d %d\n", d, len(lines))
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// dec writes a cost in units of 10^-prec as a decimal.
func (g *genProblem) dec(c int64) string {
	if g.prec == 0 {
		return strconv.FormatInt(c, 10)
	}
	s := strconv.FormatInt(c, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for len(s) <= g.prec {
		s = "0" + s
	}
	s = s[:len(s)-g.prec] + "." + s[len(s)-g.prec:]
	if neg {
		s = "-" + s
	}
	return s
}

func (g *genProblem) cfn(rng *rand.Rand) string {
	var b strings.Builder
	cmp := "<"
	if g.max {
		cmp = ">"
	}
	fmt.Fprintf(&b, "{\"problem\": {\"name\": \"gen\", \"mustbe\": \"%s%s\"},\n\"variables\": {", cmp, g.dec(g.bound))
	for i, c := range g.card {
		if i > 0 {
			b.WriteString(", ")
		}
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&b, "\"x%d\": %d", i, c)
			continue
		}
		fmt.Fprintf(&b, "\"x%d\": [", i)
		for k := range c {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "\"v%d_%d\"", i, k)
		}
		b.WriteString("]")
	}
	b.WriteString("},\n\"functions\": {\n")
	named := map[string]int{}
	for fi, f := range g.funcs {
		if fi > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "\"f%d\": {\"scope\": [", fi)
		for j, v := range f.scope {
			if j > 0 {
				b.WriteString(", ")
			}
			if rng.IntN(4) == 0 {
				fmt.Fprint(&b, v)
			} else {
				fmt.Fprintf(&b, "\"x%d\"", v)
			}
		}
		b.WriteString("], ")
		key := fmt.Sprint(f.costs)
		for _, v := range f.scope {
			key += "/" + strconv.Itoa(g.card[v])
		}
		if src, ok := named[key]; ok && len(f.scope) > 0 {
			fmt.Fprintf(&b, "\"costs\": \"f%d\"}", src)
			continue
		}
		named[key] = fi
		// Dense only up to arity 3: toulbar2 1.1.1 counts the costs of a
		// dense table of arity 4 twice (measured: the same table as a
		// default cost with listed tuples gives half the optimum).
		if (rng.IntN(2) == 0 && len(f.scope) <= 3) || len(f.scope) == 0 {
			b.WriteString("\"costs\": [")
			for k, c := range f.costs {
				if k > 0 {
					b.WriteString(", ")
				}
				b.WriteString(g.dec(c))
			}
			b.WriteString("]}")
			continue
		}
		d := mode(f.costs)
		fmt.Fprintf(&b, "\"defaultcost\": %s, \"costs\": [", g.dec(d))
		first := true
		for k, c := range f.costs {
			if c == d {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			for j, x := range g.tuple(&f, k) {
				v := f.scope[j]
				if rng.IntN(2) == 0 {
					fmt.Fprintf(&b, "%d, ", x)
				} else if strings.Contains(b.String(), fmt.Sprintf("\"v%d_0\"", v)) {
					fmt.Fprintf(&b, "\"v%d_%d\", ", v, x)
				} else {
					fmt.Fprintf(&b, "%d, ", x)
				}
			}
			b.WriteString(g.dec(c))
		}
		b.WriteString("]}")
	}
	b.WriteString("}}\n")
	return b.String()
}
