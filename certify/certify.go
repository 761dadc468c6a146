// Package certify computes certified lower bounds (spec §9) for dual points
// of the SDR from a few smallest eigenpairs of the dual slack, found by an
// iterative eigensolver (package eigen: LOBPCG, or Lanczos where the
// caller asks) on the implicit operator: no N x N matrix is formed; Refine
// improves a dual point's bound by per-variable shifts of its multipliers.
// It is shared by every relaxation solver and by the SDR driver (package
// relax/driver); it knows no solver.
package certify

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
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
// is not nil. Set S with Problem.DualSlack before use.
type Slack struct {
	Prob *sdr.Problem
	S    *sdr.Sym
	Face *sdr.Face // nil: the whole PSD cone

	ux, sux *mat.Dense // scratch, N x c
}

// NewSlack returns the slack operator of (y, z) for prob, on its minimal
// face when onFace.
func NewSlack(prob *sdr.Problem, y, z []float64, onFace bool) *Slack {
	op := &Slack{Prob: prob, S: sdr.NewSym(prob)}
	if onFace {
		op.Face = prob.Face()
	}
	prob.DualSlack(op.S, y, z)
	return op
}

// Dim is the order of the operator: N, or the face's dimension.
func (op *Slack) Dim() int {
	if op.Face != nil {
		return op.Face.Dim()
	}
	return op.Prob.N()
}

// Apply sets dst = U^T S' U x (S' x on the PSD cone).
func (op *Slack) Apply(dst, x *mat.Dense) {
	if op.Face == nil {
		op.S.MulMat(dst, x)
		return
	}
	n := op.Prob.N()
	_, c := x.Dims()
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

// Face returns the certificate (§9) of the dual point (y, z >= 0) from the
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

// Shift returns y moved along the block identities: y + d_0 E0 + sum_i
// d_i (E1_i + sum_a E2_ia). That adds D = diag(d_0, d_1 I, ..., d_n I) to
// the slack and -(d_0 + sum_i d_i) to the dual objective -<b,y>, since
// <D, Xbar> = Xbar_00 + sum_i tr X_ii = d_0 + sum_i d_i on the feasible set:
// a dual point as valid as y, for any d (len n+1, d[0] = d_0).
func Shift(prob *sdr.Problem, y, d []float64) []float64 {
	out := append([]float64(nil), y...)
	out[0] += d[0]
	for i, mi := range prob.Card {
		out[prob.Y.E1+i] += d[i+1]
		for a := range mi {
			out[prob.Y.E2+prob.Offset[i]-1+a] += d[i+1]
		}
	}
	return out
}

// Refine looks for a better certificate of (y, z) among the points
// Shift(y, d) (spec §9 with the block trace constraints). Each round
// computes the Rank smallest eigenpairs of the face slack to Tol (at most
// MaxIter iterations, warm-started; Lanczos on sparse models,
// refineSparseEdges) and adds, for each negative pair (lambda, u), the
// shift d_i = |lambda| ||u_i|| sum_l ||u_l|| (u_i: u's entries of variable
// i, u_0 its row 0), which dominates |lambda| u u^T (Cauchy-Schwarz) at the
// cost (sum_i ||u_i||)^2 |lambda| instead of the (n+1) |lambda| of §9:
// far less when u is concentrated on few variables, as near an almost
// converged relaxation. A round with no negative Ritz
// value either lowers every d_i by the certified lambda_min when that is
// positive or, when its eigenpairs are loose, continues the eigensolve. It
// returns the best point of at most rounds+1 certificates (y itself if none
// improved on it) with its certificate; ctx's end stops it, and an
// eigensolve it cuts short gives no bound (-Inf, as Partial).
func Refine(ctx context.Context, prob *sdr.Problem, y, z []float64, rounds int, s Settings) ([]float64, sdr.Certificate, error) {
	if err := s.check(); err != nil {
		return nil, sdr.Certificate{}, err
	}
	if len(y) != prob.Y.Len || len(z) != prob.NumZ {
		return nil, sdr.Certificate{}, fmt.Errorf("certify: dual point of %d and %d values, want %d and %d", len(y), len(z), prob.Y.Len, prob.NumZ)
	}
	op := NewSlack(prob, y, z, true)
	n, nv := prob.N(), prob.NumVars()
	es := eigen.Settings{Tol: s.Tol, MaxIter: s.MaxIter, Stop: solver.Done(ctx), Lanczos: len(prob.Edges) <= refineSparseEdges*nv}
	best, cur := y, y
	bestC := sdr.Certificate{LowerBound: math.Inf(-1), EnergyBound: math.Inf(-1)}
	var warm *mat.Dense
	for round := 0; round <= rounds && ctx.Err() == nil; round++ {
		prob.DualSlack(op.S, cur, z)
		res, err := eigen.Smallest(op, min(s.Rank, op.Dim()), warm, es)
		if err != nil && !errors.Is(err, eigen.ErrNotConverged) {
			return nil, sdr.Certificate{}, err
		}
		c, err := prob.CertifyPartial(cur, z, res.Values, eigen.LowerBound(res), true)
		if err != nil {
			return nil, sdr.Certificate{}, err
		}
		if res.Converged < len(res.Values) && res.Iterations < s.MaxIter {
			break // cut short: no bound
		}
		if c.LowerBound > bestC.LowerBound {
			best, bestC = cur, c
		}
		warm = res.Vectors
		d := make([]float64, nv+1)
		if lo := min(eigen.LowerBound(res), res.Values[0]); lo > 0 {
			// PSD with room: every d_i lower by lo keeps it so.
			for i := range d {
				d[i] = -lo
			}
			cur = Shift(prob, cur, d)
			continue
		}
		u := mat.NewDense(n, 1, nil)
		norms := make([]float64, nv+1)
		moved := false
		for j, l := range res.Values {
			if l >= 0 {
				break
			}
			op.Face.Lift(u, res.Vectors.Slice(0, op.Dim(), j, j+1).(*mat.Dense))
			col := u.RawMatrix().Data
			nrm := floats.Norm(col, 2)
			if nrm == 0 {
				continue
			}
			norms[0] = math.Abs(col[0]) / nrm
			sum := norms[0]
			for i, mi := range prob.Card {
				o := prob.Offset[i]
				norms[i+1] = floats.Norm(col[o:o+mi], 2) / nrm
				sum += norms[i+1]
			}
			for i, w := range norms {
				d[i] -= l * w * sum
			}
			moved = true
		}
		switch {
		case moved:
			cur = Shift(prob, cur, d)
		case res.Converged == len(res.Values):
			return best, bestC, nil
		}
		// Otherwise no negative Ritz value but a loose one: iterate on.
	}
	return best, bestC, nil
}

// refineSparseEdges: Refine's rounds use Lanczos on models with at most
// that many edges per variable (the grids; auto's sparse models) and
// LOBPCG on denser ones. On the grids Lanczos's eigenpairs gave the better
// refined bounds (Grids_20: -11116 against -11123) and faster (the
// 10 x 10 x 4 grid); on the dense models LOBPCG's approximate eigenpairs
// led to better shifts than Lanczos's or exact ones (deer_0034 at a fixed
// SDPAD iterate: -10684 against -10714 and -10714; deer_0294 -30277
// against -30306 and -30309). BENCHMARKS.md, "Lanczos certificates".
const refineSparseEdges = 3
