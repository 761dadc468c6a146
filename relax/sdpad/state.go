package sdpad

import (
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
)

// primal is the primal step of the iteration and the spectral work of the
// certificates: dense (Algorithm 1) or low rank (Algorithm 2).
type primal interface {
	// project sets Xbar_k = Proj(Xbar_{k-1} - slack/mu) (docs/relaxation.md, SDPAD, SDPAD-LR), or in
	// the dense Solve (1 - gamma) Xbar_{k-1} + gamma Proj(...)
	// (Settings.StepLength), writes Xbar_k on the pattern into x and
	// returns ||Proj(...) - Xbar_{k-1}||_F, the dual residual over mu. An
	// iterative method may stop at a relative accuracy acc.
	project(slack *sdr.Sym, mu, acc float64, x *sdr.Sym) (float64, bool)
	// certify returns the certificate (docs/relaxation.md, Protocol, Certified bound) of (y, z), whose dual slack
	// is slack. exact reports that its dual infeasibility may stop the
	// iteration (an estimate from an unconverged eigensolver only steers
	// mu).
	certify(slack *sdr.Sym, y, z []float64, mode certMode) (c sdr.Certificate, exact, ok bool)
	// start sets Xbar_0 to the projection of f f^T (Settings.Start) and
	// writes it on the pattern into x.
	start(f *mat.Dense, x *sdr.Sym)
	// accumulate adds Xbar_k to the running sum; restart sets Xbar_{k-1}
	// to the average, writes it on the pattern into x and clears the sum
	// (with x nil it only clears the sum).
	accumulate()
	restart(x *sdr.Sym)
	// rank returns the rank of the last projection and the eigensolver's
	// operator applications in it (0 for a dense method).
	rank() (r, matvecs int)
	// attach sets the primal part of a Result: X (dense) or Factor.
	attach(r *Result)
	// reported returns, on the pattern, the PSD point Proj(...) of the
	// last projection when it is not Xbar_k (dense, gamma != 1), else nil.
	reported() *sdr.Sym
}

// certMode says which certificate is asked for.
type certMode int

const (
	certRun   certMode = iota // during the iteration
	certClose                 // the closing one: adds the dual infeasibility against the PSD cone, tighter
	certHurry                 // the closing one of a run stopped by the clock or ctx: as cheap as possible
)

// projectAccuracy is the accuracy asked of an iterative projection,
// relative to the smaller infeasibility of the previous iterate.
const projectAccuracy = 1e-2

// state is the iteration of Algorithm 1 (docs/relaxation.md, SDPAD) with its primal step pr.
type state struct {
	prob *sdr.Problem
	s    Settings
	pr   primal

	xp1, xp2 *sdr.Sym // Xbar_{k-1}, Xbar_{k-2} on the pattern
	xt       *sdr.Sym // extrapolation 2 Xbar_{k-1} - Xbar_{k-2}
	slack    *sdr.Sym // S' = C + A*(y) - P*(z)
	y, z     []float64
	ty, pz   []float64 // scratch of lengths len(y), len(z)
	normB    float64
	normC    float64
	mu       float64
	gamma    float64 // the multiplier's step length (Settings.StepLength; 1 in SolveLR)

	it       Iterate
	bestLow  float64   // best certified bound on min <C,Xbar>
	bestE    float64   // best certified energy bound
	bestY    []float64 // the dual iterate of bestLow
	bestZ    []float64
	lastCert int           // iteration of the last certificate
	dinf     float64       // dual infeasibility (docs/relaxation.md, Protocol) of the last certificate
	dinfFace float64       // dual infeasibility with respect to the face
	avg      averager      // sums of the iterates since the last restart
	acc      *anderson     // Anderson acceleration (dense only), nil for none
	lastRow  time.Duration // time of the last row of the table
	rowK     int           // iteration of the last row

	// residualBound: the projection is exact, so the dual residual bounds
	// the dual infeasibility from above (not so for a truncated one).
	residualBound bool
}

func newState(prob *sdr.Problem, s Settings, pr primal) *state {
	st := &state{
		prob: prob, s: s, pr: pr,
		xp1: sdr.NewSym(prob), xp2: sdr.NewSym(prob), xt: sdr.NewSym(prob), slack: sdr.NewSym(prob),
		y: make([]float64, prob.Y.Len), z: make([]float64, prob.NumZ),
		ty: make([]float64, prob.Y.Len), pz: make([]float64, prob.NumZ),
		normC: prob.C.Norm(), mu: s.MuMin, gamma: 1,
		bestLow: math.Inf(-1), bestE: math.Inf(-1), dinf: math.NaN(), dinfFace: math.NaN(),
	}
	for _, b := range prob.B {
		st.normB += b * b
	}
	st.normB = math.Sqrt(st.normB)
	if s.Schedule == Balanced {
		st.mu = s.Mu0
		if st.mu <= 0 {
			st.mu = ratioMu(prob, s.MuMin)
		}
	}
	if w := s.Start; w != nil {
		copy(st.y, w.Y)
		for k, v := range w.Z {
			st.z[k] = max(v, 0)
		}
		if w.Mu > 0 {
			st.mu = s.clampMu(w.Mu)
		}
		pr.start(w.Factor, st.xp1)
		st.xp2.CopyFrom(st.xp1)
	}
	return st
}

// step performs one iteration of Algorithm 1 and the cheap measures of docs/relaxation.md, Protocol.
func (st *state) step() bool {
	p, mu := st.prob, st.mu
	st.xt.CopyFrom(st.xp1)
	st.xt.Scale(1 + 1/st.gamma)
	st.xt.AddScaled(-1/st.gamma, st.xp2)
	p.A(st.xt, st.ty)
	for k, b := range p.B {
		st.ty[k] -= b
	}
	p.ApplyAAtInv(st.ty)
	for k, t := range st.ty {
		st.y[k] += mu * t
	}
	if !st.s.dropP {
		p.P(st.xt, st.pz)
		zmu := mu
		if st.s.ExactZ {
			zmu = 2 * mu // (P P*)^{-1} = 2I
		}
		for k, v := range st.pz {
			st.z[k] = max(0, st.z[k]-zmu*v)
		}
	}
	p.DualSlack(st.slack, st.y, st.z)
	st.xp1, st.xp2 = st.xp2, st.xp1
	acc := math.Inf(1)
	if it := &st.it; it.K > 0 {
		acc = projectAccuracy * min(it.PrimalInfeasibility, it.DualResidual)
	}
	dx, ok := st.pr.project(st.slack, mu, acc, st.xp1)
	if !ok {
		return false
	}

	it := &st.it
	it.Mu = mu
	it.Rank, it.MatVecs = st.pr.rank()
	it.PrimalObjective = p.PrimalObjective(st.primalPoint())
	it.DualObjective = p.DualObjective(st.y)
	it.Gap = sdr.Gap(it.PrimalObjective, it.DualObjective)
	it.PrimalInfeasibility = st.pinf()
	it.DualResidual = mu * dx / (1 + st.normC)
	it.DualInfeasibility = math.NaN()
	it.Certified = false
	return !math.IsNaN(it.PrimalObjective+it.DualObjective+dx) && !math.IsInf(dx, 0)
}

// primalPoint is the primal iterate that the measures of docs/relaxation.md, Protocol, the result
// and the rounding take: Xbar_k, or with a step length gamma != 1 the PSD
// point Proj(...) of the last projection (Xbar_k then need not be PSD).
func (st *state) primalPoint() *sdr.Sym {
	if r := st.pr.reported(); r != nil {
		return r
	}
	return st.xp1
}

// pinf returns the primal infeasibility of docs/relaxation.md, Protocol of the primal point (without
// the P part when P is dropped) and leaves its A(Xbar) - b in ty.
func (st *state) pinf() float64 {
	p, x := st.prob, st.primalPoint()
	p.A(x, st.ty)
	ra := 0.0
	for k, b := range p.B {
		st.ty[k] -= b
		ra += st.ty[k] * st.ty[k]
	}
	rp := 0.0
	if !st.s.dropP {
		p.P(x, st.pz)
		for _, v := range st.pz {
			if v < 0 {
				rp += v * v
			}
		}
	}
	return (math.Sqrt(ra) + math.Sqrt(rp)) / (1 + st.normB)
}

// ratioMu is the initial penalty of residual balancing, ||C||_F / sqrt(N)
// (the ratio of the scales of S' and Xbar), at least muMin.
func ratioMu(prob *sdr.Problem, muMin float64) float64 {
	return max(muMin, prob.C.Norm()/math.Sqrt(float64(prob.N())))
}
