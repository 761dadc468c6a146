package sdpad

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/sdr"
)

// dense is the primal step of Algorithm 1: Xbar as a dense N x N matrix,
// projected by a dense eigendecomposition (of order N - n on the face).
type dense struct {
	prob   *sdr.Problem
	face   *sdr.Face     // the minimal face, U of order N x (N - n)
	onFace bool          // project onto the face (else onto the PSD cone)
	gamma  float64       // step length: Xbar_k = (1 - gamma) Xbar_{k-1} + gamma Proj(...)
	p      *mat.SymDense // with gamma != 1: Proj(...), the PSD point reported
	rep    *sdr.Sym      // and its pattern
	n      int

	x, v   *mat.SymDense    // Xbar_{k-1}, then scratch for V and Xbar_k
	sd     *mat.SymDense    // dense dual slack for certificates
	vc, sf *mat.SymDense    // compressed V (face mode) and compressed slack, order N - n
	eig    *eigen.Projector // order N
	eigF   *eigen.Projector // order N - n
	hurry  func() bool      // ctx ended (its deadline, the time limit, or an interrupt) and N > hurryDenseMax: no closing certificate (nil: always one)
	pos    int              // positive eigenvalues in the last projection
	sum    *mat.SymDense    // sum of the iterates since the last restart
	cnt    int              // their number
}

// hurryDenseMax is the largest N whose closing certificate, an
// eigendecomposition that cannot be stopped, is taken after the caller's
// context ended (a deadline or an interrupt): a small fraction of a second.
const hurryDenseMax = 1000

func newDense(prob *sdr.Problem, face bool, gamma float64) *dense {
	n, d := prob.N(), prob.N()-prob.NumVars()
	dn := &dense{
		prob: prob, n: n, gamma: gamma,
		x: mat.NewSymDense(n, nil), v: mat.NewSymDense(n, nil), sd: mat.NewSymDense(n, nil),
		face: prob.Face(), onFace: face, vc: mat.NewSymDense(d, nil), sf: mat.NewSymDense(d, nil),
		eig: eigen.NewProjector(n), eigF: eigen.NewProjector(d),
	}
	if gamma != 1 {
		dn.p, dn.rep = mat.NewSymDense(n, nil), sdr.NewSym(prob)
	}
	return dn
}

func (dn *dense) project(slack *sdr.Sym, mu, _ float64, x *sdr.Sym) (float64, bool) {
	dn.v.CopySym(dn.x)
	slack.AddTo(dn.v, -1/mu)
	var ok bool
	if dn.onFace {
		dn.face.Compress(dn.vc, dn.v)
		if dn.pos, ok = dn.eigF.Project(dn.vc, dn.vc); !ok {
			return 0, false
		}
		dn.face.Expand(dn.v, dn.vc)
	} else if dn.pos, ok = dn.eig.Project(dn.v, dn.v); !ok {
		return 0, false
	}
	dx := diffNorm(dn.v, dn.x)
	if dn.p != nil {
		dn.p, dn.v = dn.v, dn.p
		dn.rep.FromDense(dn.p)
		relaxStep(dn.v, dn.p, dn.x, dn.gamma)
	}
	dn.x, dn.v = dn.v, dn.x
	x.FromDense(dn.x)
	return dx, true
}

func (dn *dense) start(f *mat.Dense, x *sdr.Sym) {
	dn.x.SymOuterK(1, f)
	if dn.onFace {
		dn.face.Compress(dn.vc, dn.x)
		dn.face.Expand(dn.x, dn.vc)
	}
	x.FromDense(dn.x)
}

// certify computes the eigenvalues of the dual slack compressed to the face
// (for the certified bound, docs/relaxation.md, Certified bound, and the dual infeasibility in face mode)
// and, without face mode or when closing, of the whole slack (docs/relaxation.md, Protocol); none
// once ctx's deadline (the time limit) has passed or after an interrupt,
// unless N is at most hurryDenseMax (skipped).
func (dn *dense) certify(slack *sdr.Sym, y, z []float64, mode certMode) (sdr.Certificate, bool, bool) {
	if mode == certHurry && dn.hurry != nil && dn.hurry() {
		return skipped(dn.prob, slack), false, true
	}
	raw := dn.sd.RawSymmetric()
	for i := range dn.n {
		clear(raw.Data[i*raw.Stride+i : i*raw.Stride+dn.n])
	}
	slack.AddTo(dn.sd, 1)
	dn.face.Compress(dn.sf, dn.sd)
	comp, ok := dn.eigF.Values(dn.sf)
	if !ok {
		return sdr.Certificate{}, false, false
	}
	var full []float64
	if !dn.onFace || mode != certRun {
		if full, ok = dn.eig.Values(dn.sd); !ok {
			return sdr.Certificate{}, false, false
		}
	}
	c, err := dn.prob.CertifyEigen(y, z, full, comp)
	return c, true, err == nil
}

func (dn *dense) rank() (int, int) { return dn.pos, 0 }

func (dn *dense) attach(r *Result) {
	r.X = dn.x
	if dn.p != nil {
		r.X = dn.p
	}
}

func (dn *dense) reported() *sdr.Sym { return dn.rep }

// relaxStep sets dst = (1 - gamma) x + gamma p (upper triangles).
func relaxStep(dst, p, x *mat.SymDense, gamma float64) {
	rd, rp, rx := dst.RawSymmetric(), p.RawSymmetric(), x.RawSymmetric()
	for i := range rd.N {
		d := rd.Data[i*rd.Stride+i : i*rd.Stride+rd.N]
		a := rp.Data[i*rp.Stride+i : i*rp.Stride+rd.N]
		for j, v := range rx.Data[i*rx.Stride+i : i*rx.Stride+rd.N] {
			d[j] = (1-gamma)*v + gamma*a[j]
		}
	}
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
