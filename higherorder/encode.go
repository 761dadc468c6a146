package higherorder

import (
	"fmt"
	"math/bits"

	"github.com/sdrmap/sdrmap/model"
)

// auxPlan is an auxiliary variable over the joint configurations of scope,
// shared by every encoded factor that joins exactly these variables. Its
// domain is the configurations that extend to an allowed entry of every one
// of them (any other makes the energy +Inf).
type auxPlan struct {
	scope   []int
	allowed []bool // per configuration of scope (table index)
	users   []int  // first source factor of each encoded factor using it
}

// choice is the encoding of one factor: the groups of scope positions (as
// bit masks; one group for the joint encoding, two for a split) and the
// auxiliary variable of each group of two or more (nil for one).
type choice struct {
	g     *group
	masks []int
	plans []*auxPlan
}

// candidates returns the encodings allowed by enc for arity k: the joint
// one, and the bipartitions {A, B} with position 0 in A (only the halves in
// scope order beyond arity 10).
func candidates(k int, enc Encoding) [][]int {
	full := 1<<k - 1
	var c [][]int
	if enc != EncodeSplit {
		c = append(c, []int{full})
	}
	if enc != EncodeJoint {
		if k <= 10 {
			for a := 1; a < full; a += 2 {
				c = append(c, []int{a, full &^ a})
			}
		} else {
			c = append(c, []int{1<<(k/2) - 1, full &^ (1<<(k/2) - 1)})
		}
	}
	return c
}

// reachable returns, per configuration of the positions in mask, whether it
// extends to an allowed entry of g.
func (b *builder) reachable(g *group, mask int) []bool {
	sub := maskScope(g.scope, mask)
	idx := project(cardsOf(b.card, g.scope), subStride(b.card, g.scope, sub))
	seen := make([]bool, size(cardsOf(b.card, sub)))
	for e, i := range idx {
		if !g.IsForbidden(e) {
			seen[i] = true
		}
	}
	return seen
}

func count(s []bool) int {
	n := 0
	for _, ok := range s {
		if ok {
			n++
		}
	}
	return n
}

// encode encodes the factors hosts with auxiliary variables and returns
// them. Each factor takes the candidate encoding that adds the fewest
// auxiliary states, counting as free an auxiliary variable that an earlier
// factor already created over the same variables; ties go to the groups
// that more factors could share, then to the smaller pattern.
func (b *builder) encode(hosts []*group, enc Encoding) ([]Aux, error) {
	cands := make([][][]int, len(hosts))
	freq := map[string]int{} // group of variables -> factors that could join it
	for h, g := range hosts {
		cands[h] = candidates(len(g.scope), enc)
		seen := map[string]bool{}
		for _, c := range cands[h] {
			for _, mask := range c {
				if key := scopeKey(maskScope(g.scope, mask)); bits.OnesCount(uint(mask)) > 1 && !seen[key] {
					seen[key] = true
					freq[key]++
				}
			}
		}
	}
	plans := map[string]*auxPlan{}
	var order []*auxPlan
	choices := make([]choice, len(hosts))
	for h, g := range hosts {
		reach := map[int][]bool{}
		get := func(mask int) []bool {
			if _, ok := reach[mask]; !ok {
				reach[mask] = b.reachable(g, mask)
			}
			return reach[mask]
		}
		best := -1
		var bestN, bestShare, bestPat int
		for ci, c := range cands[h] {
			states, share, pat := 0, 0, 0
			node := make([]int, len(c)) // cardinality of each group's node
			for i, mask := range c {
				if bits.OnesCount(uint(mask)) == 1 {
					node[i] = b.card[g.scope[bits.TrailingZeros(uint(mask))]]
					continue
				}
				key := scopeKey(maskScope(g.scope, mask))
				d := count(get(mask))
				share += freq[key]
				if p, ok := plans[key]; ok {
					node[i] = min(d, count(p.allowed))
					continue
				}
				node[i] = d
				states += d
				pat += d * d
				for _, v := range maskScope(g.scope, mask) {
					pat += d * b.card[v]
				}
			}
			if len(node) == 2 {
				pat += node[0] * node[1]
			}
			if best < 0 || states < bestN || (states == bestN && (share > bestShare || (share == bestShare && pat < bestPat))) {
				best, bestN, bestShare, bestPat = ci, states, share, pat
			}
		}
		ch := choice{g: g, masks: cands[h][best], plans: make([]*auxPlan, len(cands[h][best]))}
		for i, mask := range ch.masks {
			if bits.OnesCount(uint(mask)) == 1 {
				continue
			}
			sub := maskScope(g.scope, mask)
			key := scopeKey(sub)
			p, ok := plans[key]
			if !ok {
				p = &auxPlan{scope: sub, allowed: make([]bool, len(get(mask)))}
				copy(p.allowed, get(mask))
				plans[key] = p
				order = append(order, p)
			} else {
				for k, r := range get(mask) {
					p.allowed[k] = p.allowed[k] && r
				}
			}
			p.users = append(p.users, g.src[0])
			ch.plans[i] = p
		}
		choices[h] = ch
	}

	aux := make([]Aux, 0, len(order))
	byPlan := map[*auxPlan]int{}
	for _, p := range order {
		var configs []int
		for k, ok := range p.allowed {
			if ok {
				configs = append(configs, k)
			}
		}
		if len(configs) == 0 {
			return nil, fmt.Errorf("factors %v joined over variables %v: no configuration is allowed by all of them: %w", p.users, p.scope, model.ErrInfeasible)
		}
		byPlan[p] = len(aux)
		aux = append(aux, b.newAux(p, configs))
	}
	for _, ch := range choices {
		g := ch.g
		if len(ch.masks) == 1 {
			// Joint: the factor is the auxiliary variable's unary table.
			a := &aux[byPlan[ch.plans[0]]]
			t := model.Table{Log: make([]float64, len(a.Configs))}
			for s, e := range a.Configs {
				t.Log[s] = g.Log[e]
			}
			b.add([]int{a.Var}, t)
			continue
		}
		// Split: the factor is the edge W(x_A, x_B) = w(x) between the nodes.
		vars := make([]int, 2)
		state := make([][]int, 2) // entry of g -> state of the node, or -1
		for i, mask := range ch.masks {
			sub := maskScope(g.scope, mask)
			proj := project(cardsOf(b.card, g.scope), subStride(b.card, g.scope, sub))
			if ch.plans[i] == nil {
				vars[i], state[i] = sub[0], proj
				continue
			}
			a := &aux[byPlan[ch.plans[i]]]
			vars[i], state[i] = a.Var, make([]int, len(proj))
			for e, k := range proj {
				state[i][e] = int(a.index[k])
			}
		}
		db := b.card[vars[1]]
		t := model.Table{Log: make([]float64, b.card[vars[0]]*db)}
		for k := range t.Log {
			t.Forbid(k)
		}
		for e := range g.Log {
			sa, sb := state[0][e], state[1][e]
			if !g.IsForbidden(e) && sa >= 0 && sb >= 0 {
				t.Forbidden[sa*db+sb] = false
				t.Log[sa*db+sb] = g.Log[e]
			}
		}
		if t.ForbiddenCount() == 0 {
			t.Forbidden = nil
		}
		b.add(vars, t)
	}
	return aux, nil
}

// newAux adds an auxiliary variable over the configurations configs (table
// indices over p.scope) with a consistency edge to each variable of the
// scope: 0 where the configuration has the variable's value, forbidden
// elsewhere.
func (b *builder) newAux(p *auxPlan, configs []int) Aux {
	cards := cardsOf(b.card, p.scope)
	st := strides(cards)
	a := Aux{Var: len(b.card), Scope: p.scope, Configs: configs, Factors: p.users, stride: st}
	b.card = append(b.card, len(configs))
	for q, v := range p.scope {
		// Scope {v, aux}: entry x_v*D + s.
		t := model.Table{Log: make([]float64, cards[q]*len(configs))}
		for k := range t.Log {
			t.Forbid(k)
		}
		for s, c := range configs {
			t.Forbidden[c/st[q]%cards[q]*len(configs)+s] = false
		}
		b.add([]int{v, a.Var}, t)
	}
	a.index = make([]int32, size(cards))
	for k := range a.index {
		a.index[k] = -1
	}
	for s, c := range configs {
		a.index[c] = int32(s)
	}
	return a
}

// maskScope returns the variables of scope at the positions in mask.
func maskScope(scope []int, mask int) []int {
	var s []int
	for p, v := range scope {
		if mask>>p&1 == 1 {
			s = append(s, v)
		}
	}
	return s
}
