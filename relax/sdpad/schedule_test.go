package sdpad

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBalanceDue: with BalanceEvery 100 and BalanceFirst 20 mu is adapted
// after iterations 20, 40, 80 and every 100, and without BalanceFirst only
// every 100.
func TestBalanceDue(t *testing.T) {
	s := DefaultSettings()
	s.BalanceEvery, s.BalanceFirst = 100, 20
	var due []int
	for k := 1; k <= 300; k++ {
		if s.balanceDue(k) {
			due = append(due, k)
		}
	}
	if want := []int{20, 40, 80, 100, 200, 300}; !slices.Equal(due, want) {
		t.Fatalf("BalanceFirst 20: due at %v, want %v", due, want)
	}
	s.BalanceFirst = 0
	due = due[:0]
	for k := 1; k <= 300; k++ {
		if s.balanceDue(k) {
			due = append(due, k)
		}
	}
	if want := []int{100, 200, 300}; !slices.Equal(due, want) {
		t.Fatalf("BalanceFirst 0: due at %v, want %v", due, want)
	}
}

// TestGapParts checks the split of the gap at iterates of Solve's iteration
// against its terms computed from the operators: <S', X> and
// -<y, A(X) - b> + <z, P(X)>, whose sum is <C, X> + <b, y>.
func TestGapParts(t *testing.T) {
	p := build(t, gridPW(rand.New(rand.NewPCG(7, 8)), 3, 3))
	s := DefaultSettings()
	s.Mu0 = ratioMu(p, s.MuMin)
	dn := newDense(p, s.Face, s.StepLength)
	st := newState(p, s, dn)
	st.gamma = s.StepLength
	for k := 1; k <= 30; k++ {
		if !st.step() {
			t.Fatal("step failed")
		}
		st.it.K = k
		x := st.primalPoint()
		ax, px := p.A(x, nil), p.P(x, nil)
		cons := 0.0
		for i, b := range p.B {
			cons -= st.y[i] * (ax[i] - b)
		}
		for i, v := range px {
			cons += st.z[i] * v
		}
		sx := st.slack.Dot(x)
		it := &st.it
		den := 1 + math.Abs(it.PrimalObjective) + math.Abs(it.DualObjective)
		if d := it.PrimalObjective - it.DualObjective - sx - cons; math.Abs(d) > 1e-9*den {
			t.Fatalf("iteration %d: <C,X> + <b,y> - <S',X> - (constraint terms) = %g", k, d)
		}
		gp, gd := st.gapParts()
		if math.Abs(gp-math.Abs(cons)/den) > 1e-12 || math.Abs(gd-math.Abs(sx)/den) > 1e-12 {
			t.Fatalf("iteration %d: gapParts %g, %g, want %g, %g", k, gp, gd, math.Abs(cons)/den, math.Abs(sx)/den)
		}
		if it.Gap > gp+gd+1e-12 {
			t.Fatalf("iteration %d: gap %g above its parts %g + %g", k, it.Gap, gp, gd)
		}
	}
}
