package higherorder

import (
	"math"

	"github.com/sdrmap/sdrmap/internal/fsum"
	"github.com/sdrmap/sdrmap/model"
)

// size returns the number of joint configurations prod_p cards[p].
func size(cards []int) int {
	n := 1
	for _, c := range cards {
		n *= c
	}
	return n
}

// strides returns the UAI strides of cards (last position fastest):
// index = sum_p x_p * strides[p].
func strides(cards []int) []int {
	s := make([]int, len(cards))
	k := 1
	for p := len(cards) - 1; p >= 0; p-- {
		s[p] = k
		k *= cards[p]
	}
	return s
}

// project enumerates the configurations x of cards in table order and
// returns, for each, sum_p x_p * stride[p]: the index of x in another table
// laid out by stride (stride 0 for the positions that table ignores).
func project(cards, stride []int) []int {
	out := make([]int, size(cards))
	x := make([]int, len(cards))
	idx := 0
	for k := range out {
		out[k] = idx
		for p := len(cards) - 1; p >= 0; p-- {
			x[p]++
			idx += stride[p]
			if x[p] < cards[p] {
				break
			}
			idx -= x[p] * stride[p]
			x[p] = 0
		}
	}
	return out
}

// cardsOf returns the cardinalities of the variables of scope.
func cardsOf(card, scope []int) []int {
	c := make([]int, len(scope))
	for p, v := range scope {
		c[p] = card[v]
	}
	return c
}

// subStride returns, per position of scope, the stride of that variable in a
// table over sub (0 if sub does not hold it).
func subStride(card, scope, sub []int) []int {
	st := strides(cardsOf(card, sub))
	out := make([]int, len(scope))
	for p, v := range scope {
		for q, u := range sub {
			if u == v {
				out[p] = st[q]
			}
		}
	}
	return out
}

// reorder returns t, a table over scope, as a table over newScope, a
// permutation of scope.
func reorder(card, scope []int, t *model.Table, newScope []int) model.Table {
	old := project(cardsOf(card, newScope), subStride(card, newScope, scope))
	out := model.Table{Log: make([]float64, len(old))}
	for k, o := range old {
		if t.IsForbidden(o) {
			out.Forbid(k)
		} else {
			out.Log[k] = t.Log[o]
		}
	}
	return out
}

// addSub adds sub, a table over a subset of scope, into t, a table over
// scope: t(x) += sub(x_sub), forbidden flags or'ed. With flagsOnly, only the
// forbidden flags are or'ed in.
func addSub(card, scope []int, t *model.Table, subScope []int, sub *model.Table, flagsOnly bool) {
	idx := project(cardsOf(card, scope), subStride(card, scope, subScope))
	for k, s := range idx {
		switch {
		case sub.IsForbidden(s):
			t.Forbid(k)
		case !flagsOnly && !t.IsForbidden(k):
			t.Log[k] += sub.Log[s]
		}
	}
}

// decomposition is the exact split of a table over positions 0..k-1 into
// w(x) = sum_p unary[p][x_p] + sum_{p<q} pair[p][q][x_p*m_q+x_q], where the
// constant is folded into unary[0] and pair[p][q] is nil when negligible.
type decomposition struct {
	unary [][]float64
	pair  [][][]float64
}

// decompose fits t (no forbidden entries) by its ANOVA terms of order <= 2:
// with mu_S the mean of w over the configurations that fix the positions S,
// f0 = mu, f_p = mu_p - mu, f_pq = mu_pq - mu_p - mu_q + mu. That is the
// least-squares projection onto the functions of at most two positions, so w
// is pairwise-decomposable iff the residual w - f0 - sum f_p - sum f_pq
// vanishes; it must stay within tol*max(1, max|w|) at every configuration.
func decompose(cards []int, t *model.Table, tol float64) (*decomposition, bool) {
	if t.ForbiddenCount() > 0 {
		return nil, false
	}
	k, n := len(cards), float64(len(t.Log))
	st := strides(cards)
	scale := 1.0
	var total fsum.Sum
	for _, w := range t.Log {
		scale = math.Max(scale, math.Abs(w))
		total.Add(w)
	}
	mu := total.Value() / n
	// Unary and pairwise means.
	uni := make([][]float64, k)
	for p := range uni {
		sums := make([]fsum.Sum, cards[p])
		for i, w := range t.Log {
			sums[i/st[p]%cards[p]].Add(w)
		}
		uni[p] = make([]float64, cards[p])
		for a := range sums {
			uni[p][a] = sums[a].Value()/(n/float64(cards[p])) - mu
		}
	}
	d := &decomposition{unary: uni, pair: make([][][]float64, k)}
	for p := range d.pair {
		d.pair[p] = make([][]float64, k)
		for q := p + 1; q < k; q++ {
			sums := make([]fsum.Sum, cards[p]*cards[q])
			for i, w := range t.Log {
				sums[i/st[p]%cards[p]*cards[q]+i/st[q]%cards[q]].Add(w)
			}
			f := make([]float64, len(sums))
			cnt := n / float64(len(sums))
			small := true
			for ab := range sums {
				a, b := ab/cards[q], ab%cards[q]
				f[ab] = sums[ab].Value()/cnt - uni[p][a] - uni[q][b] - mu
				small = small && math.Abs(f[ab]) <= tol*scale/float64(k*k)
			}
			if !small {
				d.pair[p][q] = f
			}
		}
	}
	for a := range uni[0] {
		uni[0][a] += mu
	}
	// Residual at every configuration.
	x := make([]int, k)
	for i, w := range t.Log {
		for p := range x {
			x[p] = i / st[p] % cards[p]
		}
		var s fsum.Sum
		s.Add(w)
		for p := range x {
			s.Add(-uni[p][x[p]])
			for q := p + 1; q < k; q++ {
				if f := d.pair[p][q]; f != nil {
					s.Add(-f[x[p]*cards[q]+x[q]])
				}
			}
		}
		if math.Abs(s.Value()) > tol*scale {
			return nil, false
		}
	}
	return d, true
}
