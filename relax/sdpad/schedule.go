package sdpad

import "math"

// adapt updates mu for the next iteration (docs/relaxation.md, SDPAD).
func (st *state) adapt(k int) {
	s := &st.s
	switch s.Schedule {
	case Geometric:
		st.mu *= s.Rho
		if s.MuMax > 0 {
			st.mu = min(st.mu, s.MuMax)
		}
	case Balanced:
		if !s.balanceDue(k) || !st.it.Certified {
			return
		}
		rp, rd, ratio := st.it.PrimalInfeasibility, st.it.DualInfeasibility, s.BalanceRatio
		if s.BalanceGapRatio > 0 {
			gp, gd := st.gapParts()
			rp, rd, ratio = max(rp, gp), max(rd, gd), s.BalanceGapRatio
		}
		if rp == 0 || rd == 0 {
			return
		}
		if r := rp / rd; r > ratio || r < 1/ratio {
			st.mu = s.clampMu(st.mu * min(s.BalanceFactor, max(1/s.BalanceFactor, math.Sqrt(r))))
		}
	}
}

// gapParts splits the gap of the iterate (docs/relaxation.md, Protocol),
// whose numerator <C, X> + <b, y> is <S', X> - <y, A(X) - b> + <z, P(X)>
// at the primal point X, into the part of the dual step, |<S', X>|, and
// that of the constraints, |<C, X> + <b, y> - <S', X>|, both relative as
// the gap is.
func (st *state) gapParts() (primal, dual float64) {
	it := &st.it
	den := 1 + math.Abs(it.PrimalObjective) + math.Abs(it.DualObjective)
	sx := st.slack.Dot(st.primalPoint())
	return math.Abs(it.PrimalObjective-it.DualObjective-sx) / den, math.Abs(sx) / den
}

// balanceDue reports whether residual balancing adapts mu after iteration
// k: at BalanceFirst, 2 BalanceFirst, 4 BalanceFirst, ... below
// BalanceEvery, then at every multiple of BalanceEvery.
func (s *Settings) balanceDue(k int) bool {
	if k%s.BalanceEvery == 0 {
		return true
	}
	if s.BalanceFirst <= 0 || k >= s.BalanceEvery || k%s.BalanceFirst != 0 {
		return false
	}
	q := k / s.BalanceFirst
	return q&(q-1) == 0
}

// clampMu returns mu limited to [MuMin, MuMax] (no upper limit when MuMax
// is 0).
func (s *Settings) clampMu(mu float64) float64 {
	mu = max(mu, s.MuMin)
	if s.MuMax > 0 {
		mu = min(mu, s.MuMax)
	}
	return mu
}
