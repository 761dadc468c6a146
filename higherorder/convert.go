// Package higherorder converts a model with factors of any arity into an
// equivalent model with factors of arity <= 2 only, which the second-order
// relaxation and the pairwise solvers accept.
//
// Variables of cardinality 1 are dropped from every scope (their only value
// contributes nothing), factors over the same set of variables are summed,
// and each remaining factor of arity k > 2 is
//   - replaced by unary and pairwise terms when its table is exactly such a
//     sum (the residual of its least-squares projection onto the sums of
//     functions of at most two of its variables vanishes), otherwise
//   - encoded with auxiliary variables whose states are joint configurations
//     of some of its variables, tied to them by consistency edges that are
//     0 where the configuration agrees with the variable's value and
//     forbidden elsewhere (see Encoding).
//
// Factors whose scope lies inside the scope of an encoded factor (higher
// order or pairwise) are absorbed into its table instead of keeping their
// own terms, and the forbidden entries of unary factors prune its
// configurations. An auxiliary variable over a set of variables is shared by
// every encoded factor that joins that set. The original variables keep
// their indices; auxiliary variables follow them. For every original
// assignment x, E'(Converted(x)) = E(x), and every converted assignment y of
// finite energy satisfies y = Converted(Original(y)).
package higherorder

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sdrmap/sdrmap/model"
)

// DefaultTol is the default tolerance of the decomposition test.
const DefaultTol = 1e-12

// Encoding chooses how a non-decomposable factor becomes pairwise.
type Encoding int

const (
	// EncodeAuto picks, per factor, among the joint encoding and the splits,
	// the one that adds the fewest auxiliary states (reusing an auxiliary
	// variable an earlier factor created costs none), then the one whose
	// groups more factors could share, then the smallest pattern; remaining
	// ties go to the joint encoding.
	EncodeAuto Encoding = iota
	// EncodeJoint uses one auxiliary variable over the factor's allowed
	// joint configurations, with the factor's values as its unary table and
	// a consistency edge to each variable of the scope.
	EncodeJoint
	// EncodeSplit splits the scope into two groups A and B (the bipartition
	// chosen as by EncodeAuto); a group of two or more variables becomes an
	// auxiliary variable over its configurations that extend to an allowed
	// entry of every factor sharing it, a group of one is its variable, and
	// the factor's table becomes the edge between the two:
	// w(x) = W(x_A, x_B).
	EncodeSplit
)

// Settings controls the conversion. The zero value is the recommended one.
type Settings struct {
	// Tol is the tolerance of the decomposition test: a factor is replaced
	// by unary and pairwise terms when they reproduce every entry within
	// Tol*max(1, max|w|). 0 means DefaultTol; < 0 disables decomposition.
	Tol      float64
	Encoding Encoding
}

// group is a table over an ascending scope of variables of cardinality >= 2:
// the sum of the factors src (indices into the source model).
type group struct {
	scope []int
	model.Table
	src     []int
	host    *group // absorbing group, if absorbed
	role    int
	changed bool  // terms were absorbed into it
	pruners []int // unary factors whose forbidden entries were or'ed in
}

const (
	roleKeep      = iota // arity <= 2: copied
	roleDecompose        // replaced by unary and pairwise terms
	roleEncode           // encoded with auxiliary variables
	roleAbsorbed         // summed into host
)

// Convert returns a model with factors of arity <= 2 only, equivalent to m
// (which it leaves unchanged), and the map between the assignments of the
// two. It fails on a malformed factor and, naming the factors involved, when
// a factor to encode or an auxiliary variable is left without an allowed
// configuration (the model is then infeasible).
func Convert(m *model.Model, s Settings) (*model.Model, *Map, error) {
	if s.Tol == 0 {
		s.Tol = DefaultTol
	}
	groups, err := mergeScopes(m)
	if err != nil {
		return nil, nil, err
	}
	n := m.NumVars()
	mp := &Map{Vars: n, card: slices.Clone(m.Card)}
	mp.Stats.Before = Measure(m)
	for _, g := range groups {
		mp.Stats.Merged += len(g.src) - 1
	}
	assignRoles(m.Card, groups, s.Tol, &mp.Stats)

	b := &builder{card: slices.Clone(m.Card), index: map[[2]int]int{}}
	var hosts []*group
	for _, g := range groups {
		switch g.role {
		case roleKeep:
			b.add(g.scope, g.Table)
		case roleDecompose:
			d, _ := decompose(cardsOf(m.Card, g.scope), &g.Table, s.Tol)
			b.addDecomposition(g.scope, d)
			mp.Stats.Decomposed++
		case roleEncode:
			if g.ForbiddenCount() == len(g.Log) {
				return nil, nil, fmt.Errorf("factor %d (scope %v%s): every configuration is forbidden: %w", g.src[0], m.Factors[g.src[0]].Scope, absorbedNote(groups, g), model.ErrInfeasible)
			}
			if s.Tol > 0 && g.Forbidden == nil && g.changed {
				// Absorbed terms may have cancelled the interactions.
				if d, ok := decompose(cardsOf(m.Card, g.scope), &g.Table, s.Tol); ok {
					b.addDecomposition(g.scope, d)
					mp.Stats.Decomposed++
					continue
				}
			}
			hosts = append(hosts, g)
		}
	}
	if mp.Aux, err = b.encode(hosts, s.Encoding); err != nil {
		return nil, nil, err
	}
	mp.Stats.Encoded = len(hosts)
	out := &model.Model{Card: b.card, Factors: b.factors, Bayes: m.Bayes}
	mp.Stats.Aux = len(mp.Aux)
	mp.Stats.After = Measure(out)
	return out, mp, nil
}

// absorbedNote describes the factors summed into g, for error messages.
func absorbedNote(groups []*group, g *group) string {
	var others []int
	others = append(others, g.src[1:]...)
	for _, h := range groups {
		if h.host == g {
			others = append(others, h.src...)
		}
	}
	note := ""
	if len(others) > 0 {
		slices.Sort(others)
		note = fmt.Sprintf(", with factors %v summed into it", others)
	}
	if len(g.pruners) > 0 {
		note += fmt.Sprintf(", pruned by the forbidden values of unary factors %v", g.pruners)
	}
	return note
}

// mergeScopes checks the factors of m and returns one group per distinct set
// of variables of cardinality >= 2, in order of first appearance.
func mergeScopes(m *model.Model) ([]*group, error) {
	var groups []*group
	byScope := map[string]*group{}
	for fi := range m.Factors {
		f := &m.Factors[fi]
		if err := checkFactor(m, fi); err != nil {
			return nil, err
		}
		var scope []int
		for _, v := range f.Scope {
			if m.Card[v] > 1 {
				scope = append(scope, v)
			}
		}
		// Dropping cardinality-1 variables leaves the table layout unchanged.
		sorted := slices.Sorted(slices.Values(scope))
		t := reorder(m.Card, scope, &f.Table, sorted)
		key := scopeKey(sorted)
		if g, ok := byScope[key]; ok {
			addSub(m.Card, g.scope, &g.Table, sorted, &t, false)
			g.src = append(g.src, fi)
			continue
		}
		g := &group{scope: sorted, Table: t, src: []int{fi}}
		byScope[key] = g
		groups = append(groups, g)
	}
	return groups, nil
}

func checkFactor(m *model.Model, fi int) error {
	f := &m.Factors[fi]
	seen := map[int]bool{}
	n := 1
	for _, v := range f.Scope {
		if v < 0 || v >= m.NumVars() || seen[v] {
			return fmt.Errorf("factor %d: scope %v must hold distinct variables 0..%d", fi, f.Scope, m.NumVars()-1)
		}
		seen[v] = true
		n *= m.Card[v]
	}
	if len(f.Log) != n || (f.Forbidden != nil && len(f.Forbidden) != n) {
		return fmt.Errorf("factor %d: table has %d entries, scope %v needs %d", fi, len(f.Log), f.Scope, n)
	}
	return nil
}

func scopeKey(scope []int) string {
	var sb strings.Builder
	for _, v := range scope {
		sb.WriteString(strconv.Itoa(v))
		sb.WriteByte(',')
	}
	return sb.String()
}

// assignRoles decides what becomes of each group. Higher-order groups are
// visited by decreasing arity: one inside an encoded group is absorbed into
// the smallest such, otherwise it is decomposed if it can be and encoded if
// not. Pairwise groups inside an encoded group are absorbed too, and unary
// forbidden entries are or'ed into every encoded group holding the variable.
func assignRoles(card []int, groups []*group, tol float64, st *Stats) {
	order := slices.Clone(groups)
	slices.SortStableFunc(order, func(a, b *group) int { return len(b.scope) - len(a.scope) })
	hostsOf := map[int][]*group{} // variable -> encoded groups holding it
	container := func(scope []int) *group {
		var best *group
		for _, h := range hostsOf[scope[0]] {
			if isSubset(scope, h.scope) && (best == nil || len(h.Log) < len(best.Log)) {
				best = h
			}
		}
		return best
	}
	for _, g := range order {
		g.role = roleKeep
		if len(g.scope) < 2 {
			continue
		}
		if h := container(g.scope); h != nil {
			g.host, g.role = h, roleAbsorbed
			continue
		}
		if len(g.scope) == 2 {
			continue
		}
		if tol > 0 {
			if _, ok := decompose(cardsOf(card, g.scope), &g.Table, tol); ok {
				g.role = roleDecompose
				continue
			}
		}
		g.role = roleEncode
		for _, v := range g.scope {
			hostsOf[v] = append(hostsOf[v], g)
		}
	}
	for _, g := range order {
		switch {
		case g.role == roleAbsorbed:
			addSub(card, g.host.scope, &g.host.Table, g.scope, &g.Table, false)
			g.host.changed = true
			st.Absorbed += len(g.src)
		case len(g.scope) == 1 && g.Forbidden != nil:
			for _, h := range hostsOf[g.scope[0]] {
				addSub(card, h.scope, &h.Table, g.scope, &g.Table, true)
				h.pruners = append(h.pruners, g.src...)
			}
		}
	}
}

// isSubset reports whether ascending a is a subset of ascending b.
func isSubset(a, b []int) bool {
	i := 0
	for _, v := range b {
		if i < len(a) && a[i] == v {
			i++
		}
	}
	return i == len(a)
}

// builder accumulates the factors of the converted model, one per scope.
type builder struct {
	card    []int
	factors []model.Factor
	index   map[[2]int]int // {i, j} with i < j, {i, -1} or {-1, -1} -> factor
}

// add sums t, a table over scope (arity <= 2, any order), into the factor of
// that scope.
func (b *builder) add(scope []int, t model.Table) {
	key := [2]int{-1, -1}
	sorted := slices.Sorted(slices.Values(scope))
	copy(key[:], sorted)
	if k, ok := b.index[key]; ok {
		addSub(b.card, sorted, &b.factors[k].Table, scope, &t, false)
		return
	}
	if !slices.Equal(scope, sorted) {
		t = reorder(b.card, scope, &t, sorted)
	}
	b.index[key] = len(b.factors)
	b.factors = append(b.factors, model.Factor{Scope: sorted, Table: t})
}

// addDecomposition adds the unary and pairwise terms of d over scope.
func (b *builder) addDecomposition(scope []int, d *decomposition) {
	for p, v := range scope {
		b.add([]int{v}, model.Table{Log: d.unary[p]})
		for q := p + 1; q < len(scope); q++ {
			if f := d.pair[p][q]; f != nil {
				b.add([]int{v, scope[q]}, model.Table{Log: f})
			}
		}
	}
}
