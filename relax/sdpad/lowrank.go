package sdpad

import (
	"context"
	"errors"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/certify"
	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// certifyMaxIter caps the eigensolver iterations of a low-rank certificate
// during the run (warm-started, the slack changing little between two;
// when it does not converge, its dual infeasibility steers mu but cannot
// stop the run), closeCertifyMaxIter those of the closing one and
// hurryCertifyMaxIter those after an interrupt or the time limit;
// closeCertifyTol is the eigensolver tolerance of the closing one, whose
// bound loses (n+1) times the residual of lambda_min.
const (
	certifyMaxIter      = 50
	closeCertifyMaxIter = 500
	hurryCertifyMaxIter = 5
	closeCertifyTol     = 1e-9
	minEigenTol         = 1e-12
)

// hurryGrace is how long the hurried certificate may run after an
// interrupt: the run still ends within about a second of a signal, and
// small problems keep a bound.
const hurryGrace = 300 * time.Millisecond

// SolveLR runs SDPAD-LR, the paper's Algorithm 2 (docs/relaxation.md, SDPAD-LR): the iteration
// of Solve with Xbar = Y Y^T, Y of N x r, and the projection replaced by the
// top-r eigenpairs of V = Y Y^T - S'/mu, found by LOBPCG (package eigen) on
// the implicit operator and warm-started from the previous iteration's
// eigenvectors. No N x N matrix is formed: memory is O(N r + pattern). With
// Settings.Face the iteration runs on the minimal face as Solve does,
// Xbar = U Z Z^T U^T with Z of order (N - n) x r, V compressed by U. Rank
// control as in the paper (Rank, MaxRank, RankDelta, RankEvery), except that
// mu is not reset when the rank grows.
//
// The projection is truncated to r eigenpairs, so the dual residual no
// longer bounds the dual infeasibility: the protocol stop always uses a
// certificate, whose dual infeasibility comes from the CertifyRank smallest
// eigenvalues of the (compressed) dual slack and is an upper estimate when
// they are all negative (sdr.CertifyPartial). The certified bound (docs/relaxation.md, Certified bound)
// rests on the smallest Ritz value less its residual: rigorous for the
// eigenvalue it approximates, and a bound on lambda_min unless LOBPCG
// missed a smaller eigenvalue from its random start (see eigen.LowerBound).
func SolveLR(ctx context.Context, prob *sdr.Problem, s Settings) (*Result, error) {
	if err := s.check(prob); err != nil {
		return nil, err
	}
	s.BalanceFirst, s.BalanceGapRatio = 0, 0 // Solve only
	lr := newLowRank(prob, &s)
	grace, release := solver.Grace(ctx, hurryGrace)
	defer release()
	lr.hurry = func() bool {
		st := solver.StopStatus(ctx)
		return st == solver.OutOfTime || st == solver.Interrupted && grace()
	}
	lr.stop = solver.Done(ctx)
	st := newState(prob, s, lr)
	return st.run(ctx, "sdpad-lr"), nil
}

// lowRank is the primal step of SDPAD-LR. It keeps W = Z Z^T, the
// iterate in face coordinates (Xbar = U W U^T; U = I on the PSD cone), and
// Y = U Z for the pattern of Xbar.
type lowRank struct {
	prob  *sdr.Problem
	s     *Settings
	face  *sdr.Face // nil on the PSD cone
	d, r  int       // order of W, current rank
	z, zp *mat.Dense
	y     *mat.Dense // N x r
	sigma []float64  // eigenvalues of the last projection, descending

	warm         *mat.Dense // eigenvectors of the last projection
	warmC, warmF *mat.Dense // eigenvectors of the last certificates (face, PSD cone)

	slack   *sdr.Sym // operator data of the current call
	mu      float64
	wide    *mat.Dense // N x c scratch (c grows on demand)
	wide2   *mat.Dense
	small   []float64  // r x c scratch of applyV
	k       int        // projections done
	matvecs int        // operator applications in the last projection
	sum     *mat.Dense // its first cols columns W: W W^T approximates the sum of Z Z^T since the last restart
	cols    int
	cnt     int         // their number
	stop    func() bool // the run's deadline or interrupt: ends eigensolves early (nil: never)
	hurry   func() bool // ctx's deadline (the time limit) passed, or an interrupt hurryGrace ago: ends the hurried closing certificate (nil: never)
}

func newLowRank(prob *sdr.Problem, s *Settings) *lowRank {
	lr := &lowRank{prob: prob, s: s, d: prob.N()}
	if s.Face {
		lr.face = prob.Face()
		lr.d = lr.face.Dim()
	}
	lr.resize(min(s.Rank, lr.d))
	return lr
}

// resize sets the rank to r, keeping the columns of Z and Z_{k-1} (padded
// with zeros).
func (lr *lowRank) resize(r int) {
	grow := func(m *mat.Dense, rows int) *mat.Dense {
		out := mat.NewDense(rows, r, nil)
		if m != nil {
			_, c := m.Dims()
			out.Slice(0, rows, 0, c).(*mat.Dense).Copy(m)
		}
		return out
	}
	lr.z, lr.zp = grow(lr.z, lr.d), grow(lr.zp, lr.d)
	lr.y = grow(lr.y, lr.prob.N())
	lr.r = r
}

// scratch returns two N x c views of the scratch blocks.
func (lr *lowRank) scratch(c int) (*mat.Dense, *mat.Dense) {
	n := lr.prob.N()
	if lr.wide == nil || lr.wide.RawMatrix().Cols < c {
		lr.wide, lr.wide2 = mat.NewDense(n, c, nil), mat.NewDense(n, c, nil)
	}
	return lr.wide.Slice(0, n, 0, c).(*mat.Dense), lr.wide2.Slice(0, n, 0, c).(*mat.Dense)
}

// applySlack sets dst = U^T S' U x (S' x on the PSD cone) for x of d x c.
func (lr *lowRank) applySlack(dst, x *mat.Dense, onFace bool) {
	if !onFace {
		lr.slack.MulMat(dst, x)
		return
	}
	_, c := x.Dims()
	ux, sux := lr.scratch(c)
	lr.face.Lift(ux, x)
	lr.slack.MulMat(sux, ux)
	lr.face.Restrict(dst, sux)
}

// applyV sets dst = Z Z^T x - U^T S' U x / mu, the operator of the projection.
func (lr *lowRank) applyV(dst, x *mat.Dense) {
	lr.applySlack(dst, x, lr.face != nil)
	dr := dst.RawMatrix()
	for i := range dr.Rows {
		row := dr.Data[i*dr.Stride : i*dr.Stride+dr.Cols]
		for j := range row {
			row[j] *= -1 / lr.mu
		}
	}
	zr, xr := lr.z.RawMatrix(), x.RawMatrix()
	if cap(lr.small) < lr.r*xr.Cols {
		lr.small = make([]float64, lr.r*xr.Cols)
	}
	t := blas64.General{Rows: lr.r, Cols: xr.Cols, Stride: xr.Cols, Data: lr.small[:lr.r*xr.Cols]}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, zr, xr, 0, t)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, zr, t, 1, dr)
}

func (lr *lowRank) project(slack *sdr.Sym, mu, acc float64, x *sdr.Sym) (float64, bool) {
	lr.slack, lr.mu = slack, mu
	lr.k++
	s := lr.s
	if lr.k%s.RankEvery == 0 && lr.r < min(s.MaxRank, lr.d) && len(lr.sigma) == lr.r &&
		lr.sigma[0] > 0 && lr.sigma[lr.r-1] > s.RankDelta*lr.sigma[0] {
		lr.resize(min(2*lr.r, s.MaxRank, lr.d))
	}
	// No guard vectors (Guard < 0): with the default guard this
	// warm-started, inexact solve cost more time and iterations
	// (bench/results/2026-11-22/NOTES.md, "SDP solvers on a 10 x 10 Potts grid").
	op := eigen.Func{N: lr.d, F: lr.applyV}
	res, err := eigen.Largest(op, lr.r, lr.warm, eigen.Settings{Tol: min(s.EigenTol, max(acc, minEigenTol)), MaxIter: s.EigenMaxIter, NoVerify: true, Seed: uint64(lr.k), Guard: -1, Stop: lr.stop})
	// ErrNotConverged leaves an inexact projection, which later iterations refine.
	if err != nil && !errors.Is(err, eigen.ErrNotConverged) {
		return 0, false
	}
	lr.matvecs, lr.warm, lr.sigma = res.MatVecs, res.Vectors, res.Values
	lr.z, lr.zp = lr.zp, lr.z
	lr.z.Copy(res.Vectors)
	zr := lr.z.RawMatrix()
	for j, v := range res.Values {
		f := math.Sqrt(max(v, 0))
		for i := range zr.Rows {
			zr.Data[i*zr.Stride+j] *= f
		}
	}
	lr.lift()
	x.PatternOf(lr.y)
	return factorDiff(lr.z, lr.zp), true
}

func (lr *lowRank) start(f *mat.Dense, x *sdr.Sym) {
	_, c := f.Dims()
	w := f
	if lr.face != nil {
		w = mat.NewDense(lr.d, c, nil)
		lr.face.Restrict(w, f)
	}
	lr.resize(min(max(lr.r, c), lr.s.MaxRank, lr.d))
	var svd mat.SVD
	if svd.Factorize(w, mat.SVDThin) {
		var u mat.Dense
		svd.UTo(&u)
		vals := svd.Values(nil)
		k := min(lr.r, len(vals))
		lr.sigma = make([]float64, lr.r)
		lr.warm = mat.NewDense(lr.d, k, nil)
		lr.warm.Copy(&u)
		for j := range k {
			lr.sigma[j] = vals[j] * vals[j]
			for i := range lr.d {
				lr.z.Set(i, j, u.At(i, j)*vals[j])
			}
		}
	}
	lr.zp.Copy(lr.z)
	lr.lift()
	x.PatternOf(lr.y)
}

// lift sets Y = U Z (Y = Z on the PSD cone).
func (lr *lowRank) lift() {
	if lr.face != nil {
		lr.face.Lift(lr.y, lr.z)
	} else {
		lr.y.Copy(lr.z)
	}
}

// factorDiff returns ||A A^T - B B^T||_F from r x r Gram products:
// ||A^T A||^2 + ||B^T B||^2 - 2 ||A^T B||^2.
func factorDiff(a, b *mat.Dense) float64 {
	var g mat.Dense
	sq := func(x, y *mat.Dense) float64 {
		g.Reset()
		g.Mul(x.T(), y)
		n := mat.Norm(&g, 2)
		return n * n
	}
	return math.Sqrt(max(0, sq(a, a)+sq(b, b)-2*sq(a, b)))
}

// certify computes the certificate from the smallest eigenpairs of the
// compressed slack and, when closing on the face, of the whole slack (the
// PSD-cone dual infeasibility). The eigensolves stop at the run's deadline,
// except a hurried one (after an interrupt): it stops after
// hurryCertifyMaxIter iterations or hurryGrace after the interrupt; past
// that, or past ctx's deadline (the time limit), no eigensolve is made
// (one cut short gives no bound, see certify.Partial) and the dual
// infeasibility is the upper estimate ||S'||_F / (1 + ||C||_F).
func (lr *lowRank) certify(slack *sdr.Sym, y, z []float64, mode certMode) (sdr.Certificate, bool, bool) {
	lr.slack = slack
	onFace := lr.face != nil
	tol, iters, stop := lr.s.CertifyTol, certifyMaxIter, lr.stop
	switch mode {
	case certClose:
		tol, iters = min(tol, closeCertifyTol), closeCertifyMaxIter
	case certHurry:
		if lr.hurry != nil && lr.hurry() {
			return skipped(lr.prob, slack), false, true
		}
		iters, stop = hurryCertifyMaxIter, lr.hurry
	}
	c, exact, ok := lr.partial(y, z, onFace, tol, iters, stop)
	if !ok || !onFace || mode != certClose {
		return c, exact, ok
	}
	full, _, ok := lr.partial(y, z, false, tol, iters, stop)
	if !ok {
		return c, false, false
	}
	c.LambdaMin, c.DualInfeasibility = full.LambdaMin, full.DualInfeasibility
	if full.LowerBound > c.LowerBound {
		c.LowerBound, c.EnergyBound = full.LowerBound, full.EnergyBound
	}
	return c, exact, true
}

// partial computes the CertifyRank smallest eigenpairs of U^T S' U (onFace)
// or of S', warm-started from the previous certificate, and the certificate
// they give; exact reports that the eigensolver converged. stop (nil: none)
// ends the eigensolve early.
func (lr *lowRank) partial(y, z []float64, onFace bool, tol float64, iters int, stop func() bool) (c sdr.Certificate, exact, ok bool) {
	n, warm := lr.prob.N(), &lr.warmF
	if onFace {
		n, warm = lr.d, &lr.warmC
	}
	op := eigen.Func{N: n, F: func(dst, x *mat.Dense) { lr.applySlack(dst, x, onFace) }}
	c, vecs, exact, err := certify.Partial(lr.prob, op, y, z, onFace, lr.s.CertifyRank, *warm, eigen.Settings{Tol: tol, MaxIter: iters, Seed: uint64(lr.k), Stop: stop})
	if vecs != nil {
		*warm = vecs
	}
	return c, exact, err == nil
}

func (lr *lowRank) attach(r *Result) { r.Factor = lr.y }

func (lr *lowRank) rank() (int, int) {
	pos := 0
	for _, v := range lr.sigma {
		if v > 0 {
			pos++
		}
	}
	return pos, lr.matvecs
}

func (lr *lowRank) reported() *sdr.Sym { return nil }
