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
		if k%s.BalanceEvery != 0 || !st.it.Certified {
			return
		}
		rp, rd := st.it.PrimalInfeasibility, st.it.DualInfeasibility
		if rp == 0 || rd == 0 {
			return
		}
		if r := rp / rd; r > s.BalanceRatio || r < 1/s.BalanceRatio {
			st.mu = s.clampMu(st.mu * min(s.BalanceFactor, max(1/s.BalanceFactor, math.Sqrt(r))))
		}
	}
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
