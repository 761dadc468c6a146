package higherorder

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/mapsolver/exact"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

var encodings = []Encoding{EncodeAuto, EncodeJoint, EncodeSplit}

// forEach calls f on every assignment of the cardinalities card.
func forEach(card []int, f func(x []int)) {
	x := make([]int, len(card))
	for {
		f(x)
		v := len(x) - 1
		for ; v >= 0; v-- {
			x[v]++
			if x[v] < card[v] {
				break
			}
			x[v] = 0
		}
		if v < 0 {
			return
		}
	}
}

func sameEnergy(a, b float64) bool {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a))
}

// randomHigherOrder draws a tiny model with factors up to arity 4, and adds
// at random a factor that is a sum of pairwise terms, a factor over the
// scope of another in another order, factors over a subset of a scope, and
// factors that share a pair of variables (a shared auxiliary variable whose
// domain the forbidden entries of both prune).
func randomHigherOrder(r *rand.Rand, trial int) *model.Model {
	m := randmodel.New(r, randmodel.Options{
		Vars: 1 + r.IntN(5), MaxCard: 4, Factors: r.IntN(7), MaxArity: 4,
		Forbidden: []float64{0, 0.1, 0.4}[trial%3], Constant: true,
	})
	n := m.NumVars()
	if n >= 3 && r.IntN(2) == 0 {
		scope := r.Perm(n)[:3+r.IntN(n-2)]
		m.Factors = append(m.Factors, model.Factor{Scope: scope, Table: randomPairwiseTable(r, cardsOf(m.Card, scope))})
	}
	if n >= 4 && r.IntN(3) == 0 {
		perm := r.Perm(n)
		for _, v := range perm[2 : 3+r.IntN(n-2)] {
			scope := []int{perm[0], perm[1], v}
			t := model.Table{Log: make([]float64, size(cardsOf(m.Card, scope)))}
			for k := range t.Log {
				if r.Float64() < 0.3 {
					t.Forbid(k)
				} else {
					t.Log[k] = r.NormFloat64()
				}
			}
			m.Factors = append(m.Factors, model.Factor{Scope: scope, Table: t})
		}
	}
	for _, f := range slices.Clone(m.Factors) {
		if len(f.Scope) < 2 || r.IntN(3) > 0 {
			continue
		}
		sc := slices.Clone(f.Scope)
		r.Shuffle(len(sc), func(i, j int) { sc[i], sc[j] = sc[j], sc[i] })
		if r.IntN(2) == 0 {
			sc = sc[:1+r.IntN(len(sc)-1)]
		}
		t := model.Table{Log: make([]float64, size(cardsOf(m.Card, sc)))}
		for k := range t.Log {
			if r.Float64() < 0.1 {
				t.Forbid(k)
			} else {
				t.Log[k] = r.NormFloat64()
			}
		}
		m.Factors = append(m.Factors, model.Factor{Scope: sc, Table: t})
	}
	return m
}

// TestEquivalence converts hundreds of random tiny higher-order models with
// every encoding and checks: arity <= 2; E'(Converted(x)) = E(x) for every
// original x; every converted assignment of finite energy is
// Converted(Original(y)) (all of them enumerated when few, otherwise every
// change of one auxiliary state); and, with random evidence carried over by
// Map.Evidence, the exact solver on the converted pairwise view finds the
// brute-force optimum of the original, and its solution maps back to an
// original assignment of that energy that respects the evidence.
func TestEquivalence(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	var infeasible, encoded, decomposed, absorbed, merged, shared, enumerated int
	for trial := 0; trial < 1000; trial++ {
		m := randomHigherOrder(r, trial)
		ev := randmodel.Evidence(r, m, 0.25)
		clamp, err := ev.Clamps(m)
		if err != nil {
			t.Fatal(err)
		}
		free := make([]int, m.NumVars())
		for i := range free {
			free[i] = -1
		}
		bestAll, _ := randmodel.BruteForce(m, free)
		want, _ := randmodel.BruteForce(m, clamp)
		for _, enc := range encodings {
			conv, mp, err := Convert(m, Settings{Encoding: enc})
			if err != nil {
				if !errors.Is(err, model.ErrInfeasible) || !math.IsInf(bestAll, 1) {
					t.Fatalf("trial %d: %v (optimum %v)", trial, err, bestAll)
				}
				infeasible++
				continue
			}
			encoded += mp.Stats.Encoded
			decomposed += mp.Stats.Decomposed
			absorbed += mp.Stats.Absorbed
			merged += mp.Stats.Merged
			for _, a := range mp.Aux {
				if len(a.Factors) > 1 {
					shared++
				}
			}
			if conv.MaxArity() > 2 {
				t.Fatalf("trial %d: converted model has arity %d", trial, conv.MaxArity())
			}
			if mp.Stats.After != Measure(conv) || mp.Stats.Aux != conv.NumVars()-m.NumVars() {
				t.Fatalf("trial %d: stats %+v", trial, mp.Stats)
			}
			forEach(m.Card, func(x []int) {
				y := mp.Converted(x)
				if e, f := m.Energy(x), conv.Energy(y); !sameEnergy(e, f) {
					t.Fatalf("trial %d enc %d: x %v energy %v, converted %v energy %v", trial, enc, x, e, y, f)
				}
				if !slices.Equal(mp.Original(y), x) {
					t.Fatalf("trial %d: Original(Converted(%v)) = %v", trial, x, mp.Original(y))
				}
				for k, a := range mp.Aux {
					for s := range conv.Card[a.Var] {
						if s == y[a.Var] {
							continue
						}
						y2 := slices.Clone(y)
						y2[a.Var] = s
						if e := conv.Energy(y2); !math.IsInf(e, 1) {
							t.Fatalf("trial %d: aux %d changed to state %d keeps energy %v", trial, k, s, e)
						}
					}
				}
			})
			if size(conv.Card) <= 20000 {
				enumerated++
				forEach(conv.Card, func(y []int) {
					e := conv.Energy(y)
					if math.IsInf(e, 1) {
						return
					}
					x := mp.Original(y)
					if !slices.Equal(mp.Converted(x), y) || !sameEnergy(m.Energy(x), e) {
						t.Fatalf("trial %d: converted %v energy %v maps to %v energy %v", trial, y, e, x, m.Energy(x))
					}
				})
			}

			evc, err := mp.Evidence(ev)
			if err != nil {
				t.Fatal(err)
			}
			p, err := conv.Pairwise(evc)
			if err != nil {
				if !math.IsInf(want, 1) {
					t.Fatalf("trial %d: %v, but brute force finds %v", trial, err, want)
				}
				continue
			}
			res, err := exact.Solve(context.Background(), p, exact.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if math.IsInf(want, 1) {
				if res.Status != solver.Infeasible {
					t.Fatalf("trial %d: infeasible, exact says %v %v", trial, res.Status, res.Energy)
				}
				continue
			}
			if res.Status != solver.Solved || !sameEnergy(res.Energy, want) {
				t.Fatalf("trial %d enc %d: exact %v %v on the converted model, brute force %v", trial, enc, res.Status, res.Energy, want)
			}
			x := mp.Original(p.Expand(res.Assignment))
			if !sameEnergy(m.Energy(x), want) {
				t.Fatalf("trial %d: solution maps back to energy %v, want %v", trial, m.Energy(x), want)
			}
			for v, c := range clamp {
				if c >= 0 && x[v] != c {
					t.Fatalf("trial %d: solution breaks the evidence on variable %d", trial, v)
				}
			}
		}
	}
	t.Logf("encoded %d, decomposed %d, absorbed %d, merged %d factors; %d shared auxiliary variables; %d infeasible conversions; %d converted spaces enumerated",
		encoded, decomposed, absorbed, merged, shared, infeasible, enumerated)
	if encoded == 0 || decomposed == 0 || absorbed == 0 || merged == 0 || shared == 0 || infeasible == 0 {
		t.Error("the generator does not exercise every rule")
	}
}
