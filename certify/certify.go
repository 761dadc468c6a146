// Package certify computes certified lower bounds (docs/relaxation.md, Certified bound) for dual points
// of the SDR from a few smallest eigenpairs of the dual slack, found by an
// iterative eigensolver (package eigen: LOBPCG, or Lanczos where the
// caller asks) on the implicit operator: no N x N matrix is formed; Refine
// improves a dual point's bound by a bundle method on the bound itself.
// It is shared by every relaxation solver and by the SDR driver (package
// relax/driver); it knows no solver.
package certify

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// Settings of the eigensolves behind a certificate: Rank smallest
// eigenpairs; a screening solve to Tol in at most MaxIter iterations, a
// tight one to CloseTol in at most CloseMaxIter.
type Settings struct {
	Rank         int
	Tol          float64
	MaxIter      int
	CloseTol     float64
	CloseMaxIter int
}

// DefaultSettings are those of SDPAD-LR's certificates.
func DefaultSettings() Settings {
	return Settings{Rank: 8, Tol: 1e-6, MaxIter: 50, CloseTol: 1e-9, CloseMaxIter: 500}
}

func (s Settings) check() error {
	if s.Rank <= 0 || !(s.Tol > 0) || !(s.CloseTol > 0) || s.MaxIter <= 0 || s.CloseMaxIter <= 0 {
		return errors.New("certify: need Rank, Tol, MaxIter, CloseTol, CloseMaxIter positive")
	}
	return nil
}

// Slack is the dual slack S' = C + A*(y) - P*(z) of a problem as an
// operator, compressed to the minimal face (U^T S' U, sdr.Face) when Face
// is not nil. Set moves it to another dual point; S is for reading.
type Slack struct {
	Prob *sdr.Problem
	S    *sdr.Sym
	Face *sdr.Face // nil: the whole PSD cone

	c       *sdr.FaceSym // U^T S U when Face is not nil
	ux, sux *mat.Dense   // scratch, N x c
}

// NewSlack returns the slack operator of (y, z) for prob, on its minimal
// face when onFace.
func NewSlack(prob *sdr.Problem, y, z []float64, onFace bool) *Slack {
	op := &Slack{Prob: prob, S: sdr.NewSym(prob)}
	if onFace {
		op.Face = prob.Face()
		op.c = op.Face.NewFaceSym()
	}
	op.Set(y, z)
	return op
}

// Set makes op the slack of (y, z).
func (op *Slack) Set(y, z []float64) {
	op.Prob.DualSlack(op.S, y, z)
	if op.Face != nil {
		op.c.Set(op.S)
	}
}

// Dim is the order of the operator: N, or the face's dimension.
func (op *Slack) Dim() int {
	if op.Face != nil {
		return op.Face.Dim()
	}
	return op.Prob.N()
}

// Apply sets dst = U^T S' U x (S' x on the PSD cone). On the face a single
// vector (Lanczos) goes through the sparse sdr.FaceSym, which is faster
// there; a block goes through Xbar's coordinates (Face.Lift, S.MulMat,
// Face.Restrict), whose sweep by variable is faster on dense blocks
// (BenchmarkFaceSym).
func (op *Slack) Apply(dst, x *mat.Dense) {
	if op.Face == nil {
		op.S.MulMat(dst, x)
		return
	}
	n := op.Prob.N()
	_, c := x.Dims()
	if c == 1 {
		op.c.MulMat(dst, x)
		return
	}
	if op.ux == nil || op.ux.RawMatrix().Cols < c {
		op.ux, op.sux = mat.NewDense(n, c, nil), mat.NewDense(n, c, nil)
	}
	ux := op.ux.Slice(0, n, 0, c).(*mat.Dense)
	sux := op.sux.Slice(0, n, 0, c).(*mat.Dense)
	op.Face.Lift(ux, x)
	op.S.MulMat(sux, ux)
	op.Face.Restrict(dst, sux)
}

// Partial returns the certificate of (y, z) from the k smallest eigenpairs
// of op (the slack of (y, z), on the face when onFace), the eigenvectors
// found (a warm start for the next call) and whether the eigensolver
// converged. The bound rests on the smallest Ritz value less its residual
// (eigen.LowerBound): rigorous for the eigenvalue it approximates, and a
// bound on lambda_min unless the eigensolver missed a smaller one. An
// eigensolve that s.Stop cut short (before convergence and MaxIter) gives
// no bound (-Inf): its Ritz values may be far above lambda_min (one
// iteration gave -78055 above the energy -201387 on a 316 x 316 x 5 Potts
// grid).
//
// s.Lanczos selects the eigensolver (eigen.Settings): the factor ALM asks
// for Lanczos, SDPAD-LR keeps LOBPCG, which its warm starts suit.
func Partial(prob *sdr.Problem, op eigen.Operator, y, z []float64, onFace bool, k int, warm *mat.Dense, s eigen.Settings) (c sdr.Certificate, vecs *mat.Dense, exact bool, err error) {
	res, err := eigen.Smallest(op, min(k, op.Dim()), warm, s)
	if err != nil && !errors.Is(err, eigen.ErrNotConverged) {
		return sdr.Certificate{}, nil, false, err
	}
	c, err = prob.CertifyPartial(y, z, res.Values, eigen.LowerBound(res), onFace)
	exact = res.Converged == len(res.Values)
	if !exact && res.Iterations < s.MaxIter {
		c.LowerBound, c.EnergyBound = math.Inf(-1), math.Inf(-1)
	}
	return c, res.Vectors, exact, err
}

// Face returns the certificate (docs/relaxation.md, Certified bound) of the dual point (y, z >= 0) from the
// Rank smallest eigenpairs of the compressed slack U^T S' U (sdr.Face).
// warm (N x k, may be nil) seeds the search in Xbar's coordinates, with
// vectors near the slack's smallest eigenvectors (such as a point the slack
// should annihilate, sdr.Problem.Point).
//
// A first, loose eigensolve (Tol, MaxIter) screens the point: its smallest
// Ritz value theta is at least lambda_min, so no certificate of this point
// exceeds the energy bound from theta. When that is below target, the loose
// certificate is returned; otherwise the eigensolve goes on to CloseTol.
// target = -Inf always takes the tight one. exact reports that the last
// eigensolve converged; the bound rests on the smallest Ritz value less its
// residual either way (see Partial). When ctx ends (its deadline: the
// caller's time limit), the eigensolves stop at their next iteration and
// the certificate gives no bound.
func Face(ctx context.Context, prob *sdr.Problem, y, z []float64, warm *mat.Dense, target float64, s Settings) (c sdr.Certificate, exact bool, err error) {
	if err := s.check(); err != nil {
		return sdr.Certificate{}, false, err
	}
	op := NewSlack(prob, y, z, true)
	var w *mat.Dense
	if warm != nil {
		_, k := warm.Dims()
		w = mat.NewDense(op.Dim(), k, nil)
		op.Face.Restrict(w, warm)
	}
	c, vecs, exact, err := Partial(prob, op, y, z, true, s.Rank, w, eigen.Settings{Tol: s.Tol, MaxIter: s.MaxIter, Stop: solver.Done(ctx)})
	if err != nil {
		return sdr.Certificate{}, false, err
	}
	if _, reach := prob.Bound(y, c.LambdaMinFace); reach < target {
		return c, exact, nil
	}
	c, _, exact, err = Partial(prob, op, y, z, true, s.Rank, vecs, eigen.Settings{Tol: s.CloseTol, MaxIter: s.CloseMaxIter, Stop: solver.Done(ctx)})
	if err != nil {
		return sdr.Certificate{}, false, err
	}
	return c, exact, nil
}
