package sdr

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/internal/fsum"
)

// PrimalObjective returns <C, X> (X read on the pattern, where C lives).
func (p *Problem) PrimalObjective(x *Sym) float64 { return p.C.Dot(x) }

// DualObjective returns the dual objective -<b,y> of the minimization form
// (package doc, docs/relaxation.md, Protocol), with compensated summation.
func (p *Problem) DualObjective(y []float64) float64 {
	var s fsum.Sum
	for k, b := range p.B {
		if b != 0 {
			s.Add(-b * y[k])
		}
	}
	return s.Value()
}

// Gap returns the relative duality gap of docs/relaxation.md, Protocol,
// |dobj - pobj| / (1 + |dobj| + |pobj|).
func Gap(pobj, dobj float64) float64 {
	return math.Abs(dobj-pobj) / (1 + math.Abs(dobj) + math.Abs(pobj))
}

// PrimalInfeasibility returns the primal part of the Protocol's (docs/relaxation.md) inf,
// (||A(X) - b||_2 + ||min(P(X), 0)||_2) / (1 + ||b||_2), reading X on the
// pattern. ax and px are scratch of lengths Y.Len and NumZ (nil: allocated).
func (p *Problem) PrimalInfeasibility(x *Sym, ax, px []float64) float64 {
	ax = p.A(x, ax)
	px = p.P(x, px)
	ra, rp, nb := 0.0, 0.0, 0.0
	for k, v := range ax {
		d := v - p.B[k]
		ra += d * d
		nb += p.B[k] * p.B[k]
	}
	for _, v := range px {
		if v < 0 {
			rp += v * v
		}
	}
	return (math.Sqrt(ra) + math.Sqrt(rp)) / (1 + math.Sqrt(nb))
}

// Certificate is what dense eigenvalue computations of the dual slack
// S' = C + A*(y) - P*(z) give (docs/relaxation.md, Protocol, Certified bound), for y and z >= 0: on the whole
// space, and compressed to the minimal face F = {U Y U^T : Y PSD} (see
// Face). Every feasible Xbar is U Y U^T with Y PSD and trace(Y) = n+1, so
// <C,Xbar> >= -<b,y> + (n+1) min(0, lambda_min(U^T S' U)); by interlacing
// lambda_min(U^T S' U) >= lambda_min(S'), so the face gives the better bound.
//
// Rounding: the eigenvalues are found by a backward stable method
// (eigen.Projector.Values: LAPACK's dsyev via gonum, or OpenBLAS's dsyevd),
// which returns the eigenvalues of a matrix within about N eps ||S'||_2 of
// the computed one; forming S' perturbs each entry by a few
// ulps of |C| + |A*(y)| + |P*(z)|, and the compression by U (orthonormal to
// working precision) by a few more. The bounds therefore use lambda_min -
// Margin with Margin = max(N, 16) * 1e-15 * (||C||_F + ||A*(y)||_F +
// ||P*(z)||_F) (about 4.5 N eps times a bound on ||S'||_2), and are lowered
// by a further 8 eps of their magnitude for the final sums.
type Certificate struct {
	LambdaMin     float64 // computed smallest eigenvalue of S' (NaN if not computed)
	LambdaMinFace float64 // computed smallest eigenvalue of U^T S' U (NaN if not computed)
	Margin        float64 // rounding margin subtracted from the eigenvalues in the bounds

	// DualInfeasibility is the Protocol's (docs/relaxation.md) ||S' - (S')_+||_F / (1 + ||C||_F), the norm
	// of the negative eigenvalues of S' (NaN if not computed).
	DualInfeasibility float64
	// FaceDualInfeasibility is the same for U^T S' U: the distance of S'
	// to the dual cone of the face, {S : U^T S U PSD}, over 1 + ||C||_F.
	FaceDualInfeasibility float64

	// LowerBound is a certified lower bound on min <C,Xbar> over the SDR:
	// -<b,y> + (n+1) min(0, lambda - Margin), less rounding, with the
	// larger computed lambda.
	LowerBound float64

	// EnergyBound = LowerBound - Const (less rounding) is a certified lower
	// bound on the energy E(x) = -f(x) of every assignment; -EnergyBound is
	// the upper bound UB (docs/relaxation.md, Certified bound) on max f (f including Const).
	EnergyBound float64
}

// Certify computes the eigenvalues of S' = C + A*(y) - P*(z) and of its
// compression to the face densely and returns the dual infeasibilities and
// the certified bounds (docs/relaxation.md, Protocol, Certified bound). z must be >= 0 (checked). It costs two
// dense eigenvalue computations, of orders N and N - n.
func (p *Problem) Certify(y, z []float64) (Certificate, error) {
	if err := p.checkDual(y, z); err != nil {
		return Certificate{}, err
	}
	s := NewSym(p)
	p.DualSlack(s, y, z)
	sd := s.ToDense()
	face := p.Face()
	sf := mat.NewSymDense(face.Dim(), nil)
	face.Compress(sf, sd)
	var full, comp []float64
	for _, c := range []struct {
		m   *mat.SymDense
		out *[]float64
	}{{sd, &full}, {sf, &comp}} {
		vals, ok := eigen.NewProjector(c.m.SymmetricDim()).Values(c.m)
		if !ok {
			return Certificate{}, fmt.Errorf("sdr: eigenvalues of the dual slack did not converge")
		}
		*c.out = vals
	}
	return p.CertifyEigen(y, z, full, comp)
}

// CertifyEigen is Certify with the eigenvalues already computed by a
// backward stable dense method: full those of S' = C + A*(y) - P*(z) (N of
// them), face those of U^T S' U (N - n of them, U of Face); either may be
// nil, not both.
func (p *Problem) CertifyEigen(y, z, full, face []float64) (Certificate, error) {
	if err := p.checkDual(y, z); err != nil {
		return Certificate{}, err
	}
	if full == nil && face == nil {
		return Certificate{}, fmt.Errorf("sdr: certificate without eigenvalues")
	}
	if full != nil && len(full) != p.N() || face != nil && len(face) != p.N()-p.NumVars() {
		return Certificate{}, fmt.Errorf("sdr: %d and %d eigenvalues for orders %d and %d", len(full), len(face), p.N(), p.N()-p.NumVars())
	}
	c := p.newCertificate(y, z)
	normC := p.C.Norm()
	lambda := math.Inf(-1)
	for _, e := range []struct {
		vals      []float64
		lmin, inf *float64
	}{{full, &c.LambdaMin, &c.DualInfeasibility}, {face, &c.LambdaMinFace, &c.FaceDualInfeasibility}} {
		if e.vals == nil {
			continue
		}
		lmin, neg := math.Inf(1), 0.0
		for _, v := range e.vals {
			if math.IsNaN(v) {
				return Certificate{}, fmt.Errorf("sdr: NaN eigenvalue of the dual slack")
			}
			lmin = min(lmin, v)
			if v < 0 {
				neg += v * v
			}
		}
		*e.lmin, *e.inf = lmin, math.Sqrt(neg)/(1+normC)
		lambda = max(lambda, lmin)
	}
	c.LowerBound, c.EnergyBound = p.Bound(y, lambda-c.Margin)
	return c, nil
}

// CertifyPartial is the certificate from a few eigenvalues of S' (face
// false) or of U^T S' U (face true) found by an iterative method: vals are
// the k smallest eigenvalue estimates, ascending, and lambda is a lower bound
// on the smallest eigenvalue (eigen.LowerBound: a Ritz value less its
// residual). The bounds use lambda - Margin. The dual infeasibility is
// bounded from above by partialNeg over 1 + ||C||_F.
func (p *Problem) CertifyPartial(y, z, vals []float64, lambda float64, face bool) (Certificate, error) {
	if err := p.checkDual(y, z); err != nil {
		return Certificate{}, err
	}
	order := p.slackOrder(face)
	if len(vals) == 0 || len(vals) > order || math.IsNaN(lambda) {
		return Certificate{}, fmt.Errorf("sdr: partial certificate from %d eigenvalues of %d, lambda %v", len(vals), order, lambda)
	}
	for _, v := range vals {
		if math.IsNaN(v) {
			return Certificate{}, fmt.Errorf("sdr: NaN eigenvalue of the dual slack")
		}
	}
	c := p.newCertificate(y, z)
	inf := partialNeg(vals, order, 0) / (1 + p.C.Norm())
	if face {
		c.LambdaMinFace, c.FaceDualInfeasibility = vals[0], inf
	} else {
		c.LambdaMin, c.DualInfeasibility = vals[0], inf
	}
	c.LowerBound, c.EnergyBound = p.Bound(y, min(lambda, vals[0])-c.Margin)
	return c, nil
}

// slackOrder is the order of S' (face false) or of U^T S' U (face true).
func (p *Problem) slackOrder(face bool) int {
	if face {
		return p.N() - p.NumVars()
	}
	return p.N()
}

// partialNeg bounds the norm of the negative eigenvalues of a slack of the
// given order whose smallest eigenvalues are estimated by vals + t: those
// of vals + t and, for each of the order - len(vals) not computed, the
// largest of them if negative.
func partialNeg(vals []float64, order int, t float64) float64 {
	neg, last := 0.0, math.Inf(-1)
	for _, v := range vals {
		neg += min(0, v+t) * min(0, v+t)
		last = max(last, v+t)
	}
	last = min(0, last)
	neg += float64(order-len(vals)) * last * last
	return math.Sqrt(neg)
}

// ShiftDual returns y + t w, where w is 1 on E0 and on every E1_i and E2_ia
// and 0 elsewhere: A*(w) = I and <b,w> = n+1, so the slack of y + t w is
// S' + t I (on the face, U^T S' U + t I) and its dual objective
// -<b,y> - (n+1) t. This is the identity behind the certified bound (docs/relaxation.md), which is the
// dual objective of y + t w at t = -lambda_min.
func (p *Problem) ShiftDual(y []float64, t float64) []float64 {
	s := append([]float64(nil), y...)
	s[0] += t
	for k := p.Y.E1; k < p.Y.E3; k++ {
		s[k] += t
	}
	return s
}

// BestShift returns a t >= 0 for which ShiftDual(y, t) has a small larger
// of the Protocol's (docs/relaxation.md) gap to pobj and dual infeasibility (the smallest over 0, -v for
// the negative estimates v in vals, and shiftGrid steps up to -min(vals)),
// with those two. vals estimates the smallest eigenvalues of the slack of
// y (on the face when face is true), dobj is -<b,y>, and the dual
// infeasibility is bounded from vals + t as in CertifyPartial. A shift
// trades dual infeasibility for gap: at t = -max(vals) the eigenvalues not
// computed no longer count, at t = -min(vals) none do.
func (p *Problem) BestShift(pobj, dobj float64, vals []float64, face bool) (t, gap, dinf float64) {
	order, n1, scale := p.slackOrder(face), float64(p.NumVars()+1), 1+p.C.Norm()
	gap, dinf = Gap(pobj, dobj), partialNeg(vals, order, 0)/scale
	try := func(s float64) {
		g, d := Gap(pobj, dobj-n1*s), partialNeg(vals, order, s)/scale
		if max(g, d) < max(gap, dinf) {
			t, gap, dinf = s, g, d
		}
	}
	top := -slices.Min(vals)
	if !(top > 0) {
		return 0, gap, dinf
	}
	for j := 1; j <= shiftGrid; j++ {
		try(top * float64(j) / shiftGrid)
	}
	for _, v := range vals {
		if v < 0 {
			try(-v)
		}
	}
	return t, gap, dinf
}

// shiftGrid is the number of equal steps BestShift tries.
const shiftGrid = 64

// newCertificate returns a certificate with its rounding margin set and
// the eigenvalue figures NaN.
func (p *Problem) newCertificate(y, z []float64) Certificate {
	ay, pz := NewSym(p), NewSym(p)
	p.AStar(ay, 1, y)
	p.PStar(pz, 1, z)
	return Certificate{
		Margin:    float64(max(p.N(), 16)) * 1e-15 * (p.C.Norm() + ay.Norm() + pz.Norm()),
		LambdaMin: math.NaN(), LambdaMinFace: math.NaN(),
		DualInfeasibility: math.NaN(), FaceDualInfeasibility: math.NaN(),
	}
}

// checkDual verifies the lengths of y and z and that z >= 0.
func (p *Problem) checkDual(y, z []float64) error {
	if len(y) != p.Y.Len || len(z) != p.NumZ {
		return fmt.Errorf("sdr: certificate for %d and %d dual values, want %d and %d", len(y), len(z), p.Y.Len, p.NumZ)
	}
	for k, v := range z {
		if !(v >= 0) {
			return fmt.Errorf("sdr: certificate needs z >= 0, z[%d] = %v", k, v)
		}
	}
	return nil
}

// Bound returns the certified bounds (docs/relaxation.md, Certified bound) from y and a number lambda known to be at most
// lambda_min(C + A*(y) - P*(z)) for some z >= 0: lower = -<b,y> + (n+1)
// min(0, lambda) on min <C,Xbar>, and energy = lower - Const on the energy of
// every assignment, both lowered by 8 eps of their magnitude for rounding.
func (p *Problem) Bound(y []float64, lambda float64) (lower, energy float64) {
	const eps = 0x1p-52
	by := p.DualObjective(y)
	t := float64(p.NumVars()+1) * min(0, lambda)
	lower = by + t
	lower -= 8 * eps * (math.Abs(by) + math.Abs(t))
	energy = lower - p.Const
	energy -= 8 * eps * (math.Abs(lower) + math.Abs(p.Const))
	return lower, energy
}
