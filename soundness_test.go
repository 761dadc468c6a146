package sdrmap

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/model"
)

// tinyText is a random tiny model in UAI text, with the decimal of every
// entry kept for the oracle: 2 to 4 variables of 1 to 3 states, a unary
// factor each and up to 4 more of arity 0 to 3, entries drawn from ordinary
// probabilities, subnormals, values below and above the float64 range
// (1e-400, 1e500), large ones, and zeros (forbidden).
func tinyText(r *rand.Rand) (string, *model.Model, [][]string) {
	n := 2 + r.IntN(3)
	m := &model.Model{Card: make([]int, n)}
	for i := range m.Card {
		m.Card[i] = 1 + r.IntN(3)
	}
	var scopes [][]int
	for i := range n {
		scopes = append(scopes, []int{i})
	}
	for range r.IntN(5) {
		scopes = append(scopes, r.Perm(n)[:r.IntN(min(n, 3)+1)])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "MARKOV\n%d\n%s\n%d\n", n, strings.Trim(fmt.Sprint(m.Card), "[]"), len(scopes))
	for _, s := range scopes {
		fmt.Fprintf(&b, "%d %s\n", len(s), strings.Trim(fmt.Sprint(s), "[]"))
	}
	scale := r.IntN(4) // 0: ordinary; 1: subnormal and underflow; 2: huge; 3: all mixed
	var tokens [][]string
	for _, s := range scopes {
		size := 1
		for _, v := range s {
			size *= m.Card[v]
		}
		toks := make([]string, size)
		for k := range toks {
			toks[k] = tinyEntry(r, scale)
		}
		tokens = append(tokens, toks)
		fmt.Fprintf(&b, "%d\n%s\n", size, strings.Join(toks, " "))
	}
	return b.String(), m, tokens
}

func tinyEntry(r *rand.Rand, scale int) string {
	if r.Float64() < 0.12 {
		return "0"
	}
	mant := 1 + 9*r.Float64()
	kind := scale
	if scale == 3 {
		kind = r.IntN(3)
	}
	switch kind {
	case 1:
		return fmt.Sprintf("%.6fe%d", mant, -310-r.IntN(200)) // subnormal or below the float64 range
	case 2:
		return fmt.Sprintf("%.6fe%d", mant, 250+r.IntN(300)) // huge, up to beyond the float64 range
	}
	return fmt.Sprintf("%.6f", r.Float64())
}

// bigLog returns ln of the decimal tok in 200-bit arithmetic: tok = mant
// 2^e, ln = e ln 2 + 2 atanh((mant-1)/(mant+1)) summed as a series; an
// oracle independent of internal/logprob and of math.Log.
func bigLog(tok string) *big.Float {
	const prec = 200
	x, _, err := big.ParseFloat(tok, 10, prec, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	mant := new(big.Float).SetPrec(prec)
	e := x.MantExp(mant)
	r := seriesLog(new(big.Float).SetPrec(prec).SetInt64(2))
	r.Mul(r, new(big.Float).SetInt64(int64(e)))
	return r.Add(r, seriesLog(mant))
}

func seriesLog(y *big.Float) *big.Float {
	const prec = 200
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	z := new(big.Float).SetPrec(prec).Sub(y, one)
	z.Quo(z, new(big.Float).SetPrec(prec).Add(y, one))
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum, term := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec).Set(z)
	eps := new(big.Float).SetMantExp(one, -prec)
	for k := int64(0); ; k++ {
		t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetInt64(2*k+1))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(eps) < 0 {
			return sum.Add(sum, sum)
		}
		term.Mul(term, z2)
	}
}

// oracle holds the exact logs of a tiny model's entries (nil: zero).
type oracle struct {
	m    *model.Model
	logs [][]*big.Float
	size float64 // sum over factors of the largest |ln phi|: the energies' scale
}

func newOracle(m *model.Model, tokens [][]string) *oracle {
	o := &oracle{m: m}
	for _, toks := range tokens {
		ls := make([]*big.Float, len(toks))
		top := 0.0
		for k, t := range toks {
			if t != "0" {
				ls[k] = bigLog(t)
				f, _ := ls[k].Float64()
				top = max(top, math.Abs(f))
			}
		}
		o.logs = append(o.logs, ls)
		o.size += top
	}
	return o
}

// energy returns -sum ln phi of x in 200-bit arithmetic, rounded once, and
// false when x uses a zero entry.
func (o *oracle) energy(x []int) (float64, bool) {
	s := new(big.Float).SetPrec(200)
	for fi := range o.m.Factors {
		l := o.logs[fi][o.m.Index(&o.m.Factors[fi], x)]
		if l == nil {
			return math.Inf(1), false
		}
		s.Sub(s, l)
	}
	f, _ := s.Float64()
	return f, true
}

// optimum enumerates the assignments that agree with clamp.
func (o *oracle) optimum(clamp []int) float64 {
	best := math.Inf(1)
	x := make([]int, o.m.NumVars())
	var rec func(v int)
	rec = func(v int) {
		if v == len(x) {
			if e, ok := o.energy(x); ok {
				best = min(best, e)
			}
			return
		}
		for a := range o.m.Card[v] {
			if clamp[v] < 0 || clamp[v] == a {
				x[v] = a
				rec(v + 1)
			}
		}
	}
	rec(0)
	return best
}

// TestTinySoundness is issue 45's soundness check: random tiny models with
// entries from 1e-510 to 1e550 (subnormals, values below and above the
// float64 range, zeros), read from UAI text, solved by every registered
// solver. The bound is never above the brute-force optimum, the energy
// reported is the assignment's true energy (computed in 200-bit arithmetic
// from the decimals), an optimal answer has the optimum's energy and an
// infeasible one is right. 1,000 models; 150 with -short.
func TestTinySoundness(t *testing.T) {
	models := 1000
	if testing.Short() {
		models = 150
	}
	r := rand.New(rand.NewPCG(45, 1))
	runs := map[string]int{}
	took := map[string]time.Duration{}
	for trial := range models {
		text, shape, tokens := tinyText(r)
		m, err := uai.ParseModel("tiny.uai", []byte(text))
		if err != nil {
			t.Fatalf("model %d: %v\n%s", trial, err, text)
		}
		var ev model.Evidence
		if r.IntN(4) == 0 {
			v := r.IntN(m.NumVars())
			ev = model.Evidence{{Var: v, Value: r.IntN(m.Card[v])}}
		}
		shape.Factors = m.Factors
		o := newOracle(shape, tokens)
		clamp, _ := ev.Clamps(m)
		opt := o.optimum(clamp)
		tol := 1e-9 * (1 + o.size)
		for _, name := range Solvers() {
			t0 := time.Now()
			res, err := Solve(context.Background(), m, Settings{Solver: name, Evidence: ev})
			took[name] += time.Since(t0)
			if err != nil {
				if name == "cyclic" && strings.Contains(err.Error(), "--solver cyclic needs") {
					continue
				}
				t.Fatalf("model %d, %s: %v\n%s", trial, name, err, text)
			}
			runs[name]++
			fail := func(format string, args ...any) {
				t.Errorf("model %d (evidence %v), %s: %s\n%s", trial, ev, name, fmt.Sprintf(format, args...), text)
			}
			if math.IsInf(opt, 1) {
				if res.Answer != InfeasibleModel && res.Answer != NoAssignment {
					fail("answer %v with energy %v on an infeasible model", res.Answer, res.Energy)
				}
				continue
			}
			if res.Answer == InfeasibleModel {
				fail("answer infeasible, optimum %v", opt)
			}
			if res.Bound > opt+tol {
				fail("bound %.17g above the optimum %.17g", res.Bound, opt)
			}
			if res.Assignment != nil {
				e, _ := o.energy(res.Assignment)
				if math.Abs(e-res.Energy) > tol && !(math.IsInf(e, 1) && math.IsInf(res.Energy, 1)) {
					fail("energy %.17g reported, %.17g true", res.Energy, e)
				}
				if e < opt-tol {
					fail("energy %v below the optimum %v", e, opt)
				}
			}
			if res.Answer == Optimal && math.Abs(res.Energy-opt) > tol {
				fail("answer optimal at energy %.17g, optimum %.17g", res.Energy, opt)
			}
		}
	}
	t.Logf("%d models, solver runs %v, time %v", models, runs, took)
}
