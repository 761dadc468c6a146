package factor

import (
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/certify"
	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/sdr"
)

// dual returns the dual point (y, z >= 0) of the SDR, in its own units,
// that the ALM gives at V (docs/relaxation.md, Factor ALM): the rows E3, E4 of y and z
// are the multipliers lam + sigma h and max(0, mu - sigma g) at V (those
// of the last update; a binary variable's E3 from binaryMultipliers), E1
// and E2 are 0, and E0 is set so that S V lies in the span of the v_i =
// e_0 - sum_a e_ia, S = C + A*(y) - P*(z).
//
// Why this is the right point: the factor's affine set is {V V^T : X in
// the minimal face F, X_00 = 1}, and on F E1_i acts as E0 and E2_ia as
// -sum_b E3_iab (1_i = e_0 there), so the ALM minimizes a convex L(X) over
// F with X_00 = 1. At a rank-deficient local minimum of L in V, the
// gradient m plus y0 e_0 e_0^T is PSD on F and annihilates V there, with
// y0 fixed by the first column: stationarity makes the rows of block i of
// R = m V equal to some -c_i, and S V = sum_i v_i c_i^T asks row 0 of R +
// y0 e_0 e_1^T to be sum_i c_i. The certificate on the face (sdr.Face)
// then proves the ALM's value up to its violations; every (y, z >= 0)
// gives a valid bound (docs/relaxation.md, Certified bound).
func (a *alm) dual(v *mat.Dense) (y, z []float64) {
	p := a.prob
	n, r := v.Dims()
	if a.r == nil || a.r.RawMatrix().Cols != r {
		a.r = mat.NewDense(n, r, nil)
	}
	a.m.MulMat(a.r, v)
	a.binaryMultipliers(v)
	y = make([]float64, p.Y.Len)
	copy(y[p.Y.E3:], a.lam[p.Y.E3:])
	y0 := -a.r.At(0, 0)
	for i, mi := range p.Card {
		s := 0.0
		for b := range mi {
			s += a.r.At(p.Offset[i]+b, 0)
		}
		y0 -= s / float64(mi)
	}
	y[0] = y0
	for k := range y {
		y[k] *= a.scale
	}
	z = make([]float64, len(a.mu))
	for k, m := range a.mu {
		z[k] = m * a.scale
	}
	return y, z
}

// binaryMultipliers sets the E3 multiplier of each binary variable, which
// the ALM keeps on its sphere without a penalty (tangent), so that its rows
// of R = m V agree along u_i = v_i0 - v_i1: the multiplier y adds
// (y/2) v_i1 and (y/2) v_i0 to them, moving R_i0 - R_i1 by -(y/2) u_i. R is
// updated with it.
func (a *alm) binaryMultipliers(v *mat.Dense) {
	p := a.prob
	vr, rr := v.RawMatrix(), a.r.RawMatrix()
	r := vr.Cols
	for i, mi := range p.Card {
		if mi != 2 {
			continue
		}
		v0, v1 := rowPair(vr, p.Offset[i])
		r0, r1 := rowPair(rr, p.Offset[i])
		uu, ur := 0.0, 0.0
		for c := range r {
			u := v0[c] - v1[c]
			uu += u * u
			ur += u * (r0[c] - r1[c])
		}
		if uu == 0 {
			continue
		}
		d := 2 * ur / uu
		a.lam[p.Y.E3Start[i]] += d
		for c := range r {
			r0[c] += d / 2 * v1[c]
			r1[c] += d / 2 * v0[c]
		}
	}
}

// certifier computes certificates (docs/relaxation.md, Certified bound) of dual points on the minimal face
// (certify.Partial on U^T S U), warm-started from its previous vectors, by
// Lanczos: near a solution the slack has many small eigenvalues close
// together, and there LOBPCG ran out of iterations with residuals larger
// than lambda_min itself (the bound losing n+1 times the residual), where
// Lanczos converged in the same budget (bench/results/2026-11-25/NOTES.md,
// "Lanczos certificates").
type certifier struct {
	prob *sdr.Problem
	op   *certify.Slack
	k    int
	warm *mat.Dense // face coordinates, d x k
}

func newCertifier(prob *sdr.Problem, k int) *certifier {
	op := certify.NewSlack(prob, make([]float64, prob.Y.Len), make([]float64, prob.NumZ), true)
	return &certifier{prob: prob, op: op, k: max(1, min(k, op.Dim()))}
}

// certify returns the certificate of (y, z) from the k smallest eigenpairs
// of U^T S U to relative tolerance tol, with at most iters iterations
// (fewer when stop says so: then the bound is -Inf, certify.Partial), and
// those eigenvectors in Xbar's coordinates (N x k) with their Rayleigh
// quotients: the directions of negative curvature where these are negative.
func (cf *certifier) certify(y, z []float64, tol float64, iters int, seed uint64, stop func() bool) (sdr.Certificate, *mat.Dense, []float64, error) {
	cf.op.Set(y, z)
	c, vecs, _, err := certify.Partial(cf.prob, cf.op, y, z, true, cf.k, cf.warm, eigen.Settings{Tol: tol, MaxIter: iters, Seed: seed, Stop: stop, Lanczos: true})
	if err != nil {
		return sdr.Certificate{}, nil, nil, err
	}
	cf.warm = vecs
	d, k := vecs.Dims()
	sv := mat.NewDense(d, k, nil)
	cf.op.Apply(sv, vecs)
	vals := make([]float64, k)
	for j := range k {
		vals[j] = mat.Dot(vecs.ColView(j), sv.ColView(j)) / mat.Dot(vecs.ColView(j), vecs.ColView(j))
	}
	lifted := mat.NewDense(cf.prob.N(), k, nil)
	cf.op.Face.Lift(lifted, vecs)
	return c, lifted, vals, nil
}
