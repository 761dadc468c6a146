package sdpad

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"sdrmap/sdr"
)

// state is the iteration of Algorithm 1 (§5) on a dense Xbar.
type state struct {
	prob *sdr.Problem
	s    Settings
	n    int

	x, v     *mat.SymDense // Xbar_{k-1}, then scratch for V and Xbar_k
	sd       *mat.SymDense // dense dual slack for certificates
	face     *sdr.Face     // the minimal face, U of order N x (N - n)
	vc, sf   *mat.SymDense // compressed V (face mode) and compressed slack, order N - n
	xp1, xp2 *sdr.Sym      // Xbar_{k-1}, Xbar_{k-2} on the pattern
	xt       *sdr.Sym      // extrapolation 2 Xbar_{k-1} - Xbar_{k-2}
	slack    *sdr.Sym      // S' = C + A*(y) - P*(z)
	y, z     []float64
	ty, pz   []float64 // scratch of lengths len(y), len(z)
	eig      *eigen    // order N
	eigF     *eigen    // order N - n
	normB    float64
	normC    float64
	mu       float64

	it       iterate
	bestLow  float64 // best certified bound on min <C,Xbar>
	bestE    float64 // best certified energy bound
	lastCert int     // iteration of the last certificate
	dinf     float64 // exact dual infeasibility (§8) of the last certificate
	dinfFace float64 // dual infeasibility with respect to the face
}

func newState(prob *sdr.Problem, s Settings) *state {
	n := prob.N()
	st := &state{
		prob: prob, s: s, n: n,
		x: mat.NewSymDense(n, nil), v: mat.NewSymDense(n, nil), sd: mat.NewSymDense(n, nil),
		xp1: sdr.NewSym(prob), xp2: sdr.NewSym(prob), xt: sdr.NewSym(prob), slack: sdr.NewSym(prob),
		y: make([]float64, prob.Y.Len), z: make([]float64, prob.NumZ),
		ty: make([]float64, prob.Y.Len), pz: make([]float64, prob.NumZ),
		face: prob.Face(), vc: mat.NewSymDense(n-prob.NumVars(), nil), sf: mat.NewSymDense(n-prob.NumVars(), nil),
		eig: newEigen(n), eigF: newEigen(n - prob.NumVars()), normC: prob.C.Norm(), mu: s.MuMin,
		bestLow: math.Inf(-1), bestE: math.Inf(-1), dinf: math.NaN(), dinfFace: math.NaN(),
	}
	for _, b := range prob.B {
		st.normB += b * b
	}
	if s.Schedule == Balanced {
		st.mu = s.Mu0
		if st.mu <= 0 {
			st.mu = max(s.MuMin, st.normC/math.Sqrt(float64(n)))
		}
	}
	st.normB = math.Sqrt(st.normB)
	return st
}

// step performs one iteration of Algorithm 1 and the cheap measures of §8.
func (st *state) step() bool {
	p, mu := st.prob, st.mu
	st.xt.CopyFrom(st.xp1)
	st.xt.Scale(2)
	st.xt.AddScaled(-1, st.xp2)
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
		for k, v := range st.pz {
			st.z[k] = max(0, st.z[k]-mu*v)
		}
	}
	p.DualSlack(st.slack, st.y, st.z)
	st.v.CopySym(st.x)
	st.slack.AddTo(st.v, -1/mu)
	if st.s.Face {
		st.face.Compress(st.vc, st.v)
		if _, ok := st.eigF.project(st.vc, st.vc); !ok {
			return false
		}
		st.face.Expand(st.v, st.vc)
	} else if _, ok := st.eig.project(st.v, st.v); !ok {
		return false
	}
	dx := diffNorm(st.v, st.x)
	st.x, st.v = st.v, st.x
	st.xp1, st.xp2 = st.xp2, st.xp1
	st.xp1.FromDense(st.x)

	it := &st.it
	it.Mu = mu
	it.PrimalObjective = p.PrimalObjective(st.xp1)
	it.DualObjective = p.DualObjective(st.y)
	it.Gap = sdr.Gap(it.PrimalObjective, it.DualObjective)
	it.PrimalInfeasibility = st.pinf()
	it.DualResidual = mu * dx / (1 + st.normC)
	it.DualInfeasibility = math.NaN()
	it.Certified = false
	return !math.IsNaN(it.PrimalObjective+it.DualObjective+dx) && !math.IsInf(dx, 0)
}

// pinf returns the primal infeasibility of §8 of Xbar_k (without the P part
// when P is dropped) and leaves A(Xbar_k) - b in ty.
func (st *state) pinf() float64 {
	p := st.prob
	p.A(st.xp1, st.ty)
	ra := 0.0
	for k, b := range p.B {
		st.ty[k] -= b
		ra += st.ty[k] * st.ty[k]
	}
	rp := 0.0
	if !st.s.dropP {
		p.P(st.xp1, st.pz)
		for _, v := range st.pz {
			if v < 0 {
				rp += v * v
			}
		}
	}
	return (math.Sqrt(ra) + math.Sqrt(rp)) / (1 + st.normB)
}

// diffNorm returns ||a - b||_F of two dense symmetric matrices (upper
// triangles stored).
func diffNorm(a, b *mat.SymDense) float64 {
	ra, rb := a.RawSymmetric(), b.RawSymmetric()
	var diag, off float64
	for i := range ra.N {
		x := ra.Data[i*ra.Stride+i : i*ra.Stride+ra.N]
		y := rb.Data[i*rb.Stride+i : i*rb.Stride+ra.N]
		d := x[0] - y[0]
		diag += d * d
		for j := 1; j < len(x); j++ {
			d := x[j] - y[j]
			off += d * d
		}
	}
	return math.Sqrt(diag + 2*off)
}
