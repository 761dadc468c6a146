package sdpad

import (
	"math"

	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// certifyTail is the smallest number of iterations between two extra
// certificates taken because the gap and the primal infeasibility already
// meet the tolerance while the cheap dual residual does not.
const certifyTail = 5

// certify takes a certificate of the current dual iterate (docs/relaxation.md, Protocol, Certified bound) and
// keeps the best bound.
func (st *state) certify(k int, mode certMode) bool {
	c, exact, ok := st.pr.certify(st.slack, st.y, st.z, mode)
	if !ok {
		return false
	}
	st.it.Exact = exact
	st.lastCert = k
	st.dinf, st.dinfFace = c.DualInfeasibility, c.FaceDualInfeasibility
	st.it.DualInfeasibility = st.dualInf()
	st.it.Certified = true
	if c.LowerBound > st.bestLow {
		st.bestLow = c.LowerBound
		st.bestY = append(st.bestY[:0], st.y...)
		st.bestZ = append(st.bestZ[:0], st.z...)
	}
	if c.EnergyBound > st.bestE {
		st.bestE = c.EnergyBound
	}
	st.it.Bound = st.bestLow
	return true
}

// skipped is the certificate not taken past the caller's deadline: no
// bound, and ||S'||_F / (1 + ||C||_F), which bounds both dual
// infeasibilities from above (U has orthonormal columns).
func skipped(prob *sdr.Problem, slack *sdr.Sym) sdr.Certificate {
	dinf := slack.Norm() / (1 + prob.C.Norm())
	nan, inf := math.NaN(), math.Inf(-1)
	return sdr.Certificate{LambdaMin: nan, LambdaMinFace: nan, DualInfeasibility: dinf, FaceDualInfeasibility: dinf, LowerBound: inf, EnergyBound: inf}
}

// dualInf returns the dual infeasibility of the last certificate that the
// stopping rule uses: against the PSD cone (docs/relaxation.md, Protocol), or the face's dual cone.
func (st *state) dualInf() float64 {
	if st.s.Face {
		return st.dinfFace
	}
	return st.dinf
}

// converged applies the protocol rule (docs/relaxation.md, Protocol) with the dual infeasibility
// when it was just computed, else with the dual residual when it bounds it
// from above (an exact projection).
func (st *state) converged() bool {
	it, tol := &st.it, st.s.Tol
	if it.Gap > tol || it.PrimalInfeasibility > tol {
		return false
	}
	return (st.residualBound && it.DualResidual <= tol) || (it.Certified && it.Exact && it.DualInfeasibility <= tol)
}

// paperStop is the paper's rule: min(mu ||Xbar_k - Xbar_{k-1}||_F,
// ||A(Xbar_k) - b||) <= Eps (ty holds A(Xbar_k) - b).
func (st *state) paperStop() bool {
	ra := 0.0
	for _, v := range st.ty {
		ra += v * v
	}
	return min(st.it.DualResidual*(1+st.normC), math.Sqrt(ra)) <= st.s.Eps
}

// final turns a stop at the iteration limit into SolvedInaccurate when the
// last iterate meets TolLoose, and a stop by the paper's rule
// (provisionally SolvedInaccurate) into Solved when it meets Tol.
func (st *state) final(status solver.Status) solver.Status {
	it := &st.it
	inf := max(it.PrimalInfeasibility, st.dualInf())
	switch status {
	case solver.SolvedInaccurate:
		if it.Gap <= st.s.Tol && inf <= st.s.Tol {
			return solver.Solved
		}
		return solver.SolvedInaccurate
	case solver.MaxIterations:
		if it.Gap <= st.s.TolLoose && inf <= st.s.TolLoose {
			return solver.SolvedInaccurate
		}
	}
	return status
}
