package higherorder

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/model"
)

// table returns a table over cards with random values and the entries
// forbid forbidden.
func table(r *rand.Rand, cards []int, forbid ...int) model.Table {
	t := model.Table{Log: make([]float64, size(cards))}
	for k := range t.Log {
		t.Log[k] = r.NormFloat64()
	}
	for _, k := range forbid {
		t.Forbid(k)
	}
	return t
}

func factor(r *rand.Rand, card []int, scope []int, forbid ...int) model.Factor {
	return model.Factor{Scope: scope, Table: table(r, cardsOf(card, scope), forbid...)}
}

// TestRules checks each rule on a hand-made model.
func TestRules(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	card := []int{2, 3, 2, 2, 1}

	// A sum of pairwise terms is decomposed: no auxiliary variable.
	m := &model.Model{Card: card, Factors: []model.Factor{
		{Scope: []int{0, 1, 2}, Table: randomPairwiseTable(r, []int{2, 3, 2})},
	}}
	conv, mp, err := Convert(m, Settings{})
	if err != nil || mp.Stats.Decomposed != 1 || mp.Stats.Aux != 0 || conv.MaxArity() != 2 {
		t.Fatalf("decomposable factor: err %v stats %+v", err, mp.Stats)
	}
	// Not with decomposition disabled.
	if _, mp, _ = Convert(m, Settings{Tol: -1}); mp.Stats.Decomposed != 0 || mp.Stats.Aux == 0 {
		t.Fatalf("decomposition disabled: stats %+v", mp.Stats)
	}

	// Cardinality-1 variables leave the scope: arity 3 becomes 2.
	m = &model.Model{Card: card, Factors: []model.Factor{factor(r, card, []int{4, 0, 1})}}
	if conv, mp, err = Convert(m, Settings{}); err != nil || mp.Stats.Aux != 0 || conv.MaxArity() != 2 {
		t.Fatalf("cardinality-1 variable: err %v stats %+v", err, mp.Stats)
	}

	// Same scope in another order is merged; a higher-order and a pairwise
	// factor inside a larger scope are absorbed: one auxiliary variable over
	// the allowed joint configurations, pruned by the unary forbidden entry
	// (x1 != 2) and the forbidden entry of the absorbed pair.
	m = &model.Model{Card: card, Factors: []model.Factor{
		factor(r, card, []int{0, 1, 2, 3}, 0),
		factor(r, card, []int{3, 2, 1, 0}),
		factor(r, card, []int{1, 0, 3}),
		factor(r, card, []int{2, 3}, 3),
		factor(r, card, []int{1}, 2),
	}}
	conv, mp, err = Convert(m, Settings{Encoding: EncodeJoint})
	if err != nil {
		t.Fatal(err)
	}
	st := mp.Stats
	if st.Merged != 1 || st.Absorbed != 2 || st.Encoded != 1 || st.Aux != 1 {
		t.Fatalf("merge and absorb: stats %+v", st)
	}
	// 24 configurations; x1 = 2 drops 8, (x2, x3) = (1, 1) drops 4 of the
	// remaining 16, and (0, 0, 0, 0) one more.
	if got := conv.Card[len(card)]; got != 11 {
		t.Fatalf("auxiliary domain has %d states, want 11", got)
	}
	// Four consistency edges, the aux unary and the unary of x1: nothing
	// else.
	if len(conv.Factors) != 6 {
		t.Fatalf("%d factors: %v", len(conv.Factors), conv.Factors)
	}

	// Split: 2*3*2*2 with the fewest auxiliary states.
	conv, mp, err = Convert(m, Settings{Encoding: EncodeSplit})
	if err != nil || mp.Stats.Aux == 0 || mp.Stats.After.N >= mp.Stats.Before.N+11 {
		t.Fatalf("split: err %v stats %+v", err, mp.Stats)
	}

	// Every configuration forbidden, directly or through an absorbed factor.
	m = &model.Model{Card: card, Factors: []model.Factor{
		factor(r, card, []int{0}),
		factor(r, card, []int{0, 1, 2}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
	}}
	if _, _, err = Convert(m, Settings{}); err == nil || !strings.Contains(err.Error(), "factor 1 ") || !strings.Contains(err.Error(), "infeasible") {
		t.Fatalf("all-forbidden factor: %v", err)
	}
	m = &model.Model{Card: card, Factors: []model.Factor{
		factor(r, card, []int{0, 1, 2}, 6, 7, 8, 9, 10, 11), // allowed only with x0 = 0
		factor(r, card, []int{2, 0}, 0, 2),                  // forbids x0 = 0
	}}
	if _, _, err = Convert(m, Settings{}); err == nil || !strings.Contains(err.Error(), "factor 0 ") || !strings.Contains(err.Error(), "factors [1] summed") {
		t.Fatalf("all-forbidden after absorption: %v", err)
	}

	m = &model.Model{Card: card, Factors: []model.Factor{
		factor(r, card, []int{0, 1, 2}, 6, 7, 8, 9, 10, 11), // allowed only with x0 = 0
		factor(r, card, []int{0}, 0),                        // forbids x0 = 0
	}}
	if _, _, err = Convert(m, Settings{}); err == nil || !strings.Contains(err.Error(), "factor 0 ") || !strings.Contains(err.Error(), "unary factors [1]") {
		t.Fatalf("all-forbidden after pruning: %v", err)
	}

	// Malformed factors.
	m = &model.Model{Card: card, Factors: []model.Factor{{Scope: []int{0, 0}, Table: model.Table{Log: make([]float64, 4)}}}}
	if _, _, err = Convert(m, Settings{}); err == nil {
		t.Fatal("repeated variable accepted")
	}
	m = &model.Model{Card: card, Factors: []model.Factor{{Scope: []int{0, 1}, Table: model.Table{Log: make([]float64, 5)}}}}
	if _, _, err = Convert(m, Settings{}); err == nil {
		t.Fatal("short table accepted")
	}
}

// TestAutoPicksSplit: a non-decomposable 7x7x7 factor needs 343 joint
// states but only 49 with a pair joined and the third variable kept.
func TestAutoPicksSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	card := []int{7, 7, 7}
	m := &model.Model{Card: card, Factors: []model.Factor{factor(r, card, []int{0, 1, 2})}}
	for _, c := range []struct {
		enc  Encoding
		aux  int
		want int
	}{{EncodeAuto, 1, 49}, {EncodeSplit, 1, 49}, {EncodeJoint, 1, 343}} {
		conv, mp, err := Convert(m, Settings{Encoding: c.enc})
		if err != nil {
			t.Fatal(err)
		}
		if mp.Stats.Aux != c.aux || mp.Stats.After.N-mp.Stats.Before.N != c.want || conv.MaxArity() != 2 {
			t.Fatalf("encoding %d: stats %+v", c.enc, mp.Stats)
		}
	}
}

// TestSharedAux: two factors that can both be split around the pair
// (x0, x1) share one auxiliary variable over it, whose domain is the pair
// configurations both allow.
func TestSharedAux(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	card := []int{3, 3, 3, 3}
	// Entries x0*9 + x1*3 + x2: forbid (x0, x1) = (0, 0) in the first
	// factor and (1, 1) in the second.
	m := &model.Model{Card: card, Factors: []model.Factor{
		factor(r, card, []int{0, 1, 2}, 0, 1, 2),
		factor(r, card, []int{0, 1, 3}, 12, 13, 14),
	}}
	conv, mp, err := Convert(m, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if mp.Stats.Encoded != 2 || len(mp.Aux) != 1 {
		t.Fatalf("stats %+v", mp.Stats)
	}
	a := mp.Aux[0]
	if len(a.Scope) != 2 || a.Scope[0] != 0 || a.Scope[1] != 1 || len(a.Factors) != 2 || conv.Card[a.Var] != 7 {
		t.Fatalf("aux %+v with %d states", a, conv.Card[a.Var])
	}
}

// TestEvidence checks the evidence carried over: validation, and the
// clamping of auxiliary variables whose variables are all observed.
func TestEvidence(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	card := []int{2, 3, 2, 2}
	m := &model.Model{Card: card, Factors: []model.Factor{factor(r, card, []int{0, 1, 2}, 0), factor(r, card, []int{1, 2, 3})}}
	conv, mp, err := Convert(m, Settings{Encoding: EncodeJoint, Tol: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []model.Evidence{{{Var: 4, Value: 0}}, {{Var: -1, Value: 0}}, {{Var: 1, Value: 3}}, {{Var: 0, Value: 0}, {Var: 0, Value: 1}}} {
		if _, err := mp.Evidence(bad); err == nil {
			t.Errorf("evidence %v accepted", bad)
		}
	}
	ev := model.Evidence{{Var: 1, Value: 2}, {Var: 2, Value: 1}, {Var: 3, Value: 0}}
	evc, err := mp.Evidence(ev)
	if err != nil {
		t.Fatal(err)
	}
	// The second factor's aux is clamped, the first one's is not.
	if len(evc) != 4 || evc[3].Var != mp.Aux[1].Var || mp.Aux[1].Configs[evc[3].Value] != 2*4+1*2+0 {
		t.Fatalf("converted evidence %v, aux %+v", evc, mp.Aux)
	}
	p, err := conv.Pairwise(evc)
	if err != nil || p.NumVars() != 2 {
		t.Fatalf("pairwise view: err %v", err)
	}
	// Evidence on the forbidden configuration (0, 0, 0) of the first factor
	// leaves its aux free and without an allowed state.
	evc, err = mp.Evidence(model.Evidence{{Var: 0, Value: 0}, {Var: 1, Value: 0}, {Var: 2, Value: 0}})
	if err != nil || len(evc) != 3 {
		t.Fatalf("evidence on a forbidden configuration: %v %v", evc, err)
	}
}
