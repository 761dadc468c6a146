package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/internal/halves"
)

// smallestLanczos computes the k smallest eigenpairs of op for Smallest
// by thick-restart Lanczos (Wu and Simon 2000) with full
// reorthogonalization: one operator application per step, on one vector,
// and a Rayleigh–Ritz step on the whole basis (H = Q^T A Q, explicit
// residuals) every lanczosCheck steps; when the basis holds lanczosBasis
// vectors it restarts from its k+Guard smallest Ritz vectors and the
// residual of the first unconverged one (the direction plain Lanczos would
// take next). Where the wanted eigenvalues are clustered, as in the dual
// slacks of the SDR on large grids, its Krylov space resolves the smallest
// one with fewer operator applications than LOBPCG's block iteration
// (bench/results/2026-11-25/NOTES.md, "Lanczos certificates").
//
// A warm start (the columns of warm, at most k+Guard) seeds the basis, and
// the residuals of all its unconverged wanted Ritz pairs extend it before
// the Krylov steps (TestLanczosWarm: 133 operator applications instead of
// 216 after a perturbation of 1e-6 with clustered eigenvalues). Settings
// mean what they mean for LOBPCG, except MaxIter, which caps the operator
// applications at MaxIter k (LOBPCG's most at MaxIter iterations);
// Result.Iterations is the applications divided by k, rounded up. Memory
// is 2 n lanczosBasis floats for the basis and its image. From splitFrom
// entries on, the products with the basis run on two halves of the entries
// at once.
func smallestLanczos(op Operator, k int, warm *mat.Dense, s Settings) (Result, error) {
	if err := checkArgs(op, k, warm); err != nil {
		return Result{}, err
	}
	n := op.Dim()
	s = s.withDefaults(k)
	keep := k + s.Guard
	m := max(lanczosBasis, 2*keep+8)
	if n <= m+1 {
		r, err := denseSolve(op, k, s.Tol, -1)
		for i := range r.Values {
			r.Values[i] = -r.Values[i]
		}
		return r, err
	}
	l := &lanczos{op: op, n: n, k: k, m: m, set: s, q: newGeneral(m, n), aq: newGeneral(m, n), h: mat.NewSymDense(m, nil)}
	return l.run(warm, keep)
}

// lanczosBasis is the largest basis of smallestLanczos, before a restart
// (at least 2(k+Guard)+8).
const lanczosBasis = 64

// lanczos is the state of smallestLanczos: the j basis vectors as the rows
// of q (each contiguous), their images as the rows of aq, h = Q^T A Q, and
// the last Rayleigh–Ritz step (theta ascending, y).
type lanczos struct {
	op      Operator
	n, k, m int
	set     Settings
	q, aq   blas64.General
	h       *mat.SymDense
	x, ax   *mat.Dense // n x c scratch for the operator
	matvecs int
	norm    float64
	theta   []float64
	y       *mat.Dense     // Ritz vectors of h, columns
	j       int            // basis vectors
	xt, axt blas64.General // Ritz vectors and their images, as rows (ritzVectors)
	krylov  [][]float64    // scratch of the Krylov steps
	old     []float64      // scratch of the restarts
}

func (l *lanczos) row(g blas64.General, j int) []float64 { return g.Data[j*g.Stride:][:l.n] }

// orthogonalize makes w orthogonal to the first j basis vectors (twice:
// "twice is enough").
func (l *lanczos) orthogonalize(w []float64, j int) {
	if j == 0 {
		return
	}
	c := make([]float64, j)
	for range 2 {
		l.project(c, w, j)
		l.subtract(w, c, j)
	}
}

// splitFrom is the length from which the products with the basis run on
// two halves of the entries at once (package halves): 0.63-0.68 of the
// time on one goroutine from 40,000 to 400,000 entries, 64 vectors
// (BenchmarkBasis).
const splitFrom = 1 << 15

// basis returns the first j basis vectors restricted to entries [lo, hi).
func (l *lanczos) basis(j, lo, hi int) blas64.General {
	return blas64.General{Rows: j, Cols: hi - lo, Stride: l.q.Stride, Data: l.q.Data[lo:]}
}

// project sets c to Q_j w, the products of w with the first j basis
// vectors; from splitFrom entries on, as the sum of the two halves'.
func (l *lanczos) project(c, w []float64, j int) {
	gemv := func(c []float64, lo, hi int) {
		blas64.Gemv(blas.NoTrans, 1, l.basis(j, lo, hi), blas64.Vector{N: hi - lo, Inc: 1, Data: w[lo:hi]}, 0, blas64.Vector{N: j, Inc: 1, Data: c})
	}
	if l.n < splitFrom {
		gemv(c, 0, l.n)
		return
	}
	c1 := make([]float64, j)
	halves.Run(func(h int) {
		lo, hi := halves.Range(l.n, h)
		gemv([][]float64{c, c1}[h], lo, hi)
	})
	floats.Add(c, c1)
}

// subtract sets w to w - Q_j^T c; from splitFrom entries on, each half of
// the entries on its own goroutine.
func (l *lanczos) subtract(w, c []float64, j int) {
	halves.Each(l.n, splitFrom, func(lo, hi int) {
		blas64.Gemv(blas.Trans, -1, l.basis(j, lo, hi), blas64.Vector{N: j, Inc: 1, Data: c}, 1, blas64.Vector{N: hi - lo, Inc: 1, Data: w[lo:hi]})
	})
}

// ritz diagonalizes h on the first j basis vectors.
func (l *lanczos) ritz(j int) error {
	var es mat.EigenSym
	if !es.Factorize(l.h.SliceSym(0, j).(*mat.SymDense), true) {
		return fmt.Errorf("%w: Rayleigh–Ritz eigensolve failed", ErrBreakdown)
	}
	l.theta = es.Values(nil)
	l.y = mat.NewDense(j, j, nil)
	es.VectorsTo(l.y)
	l.norm = max(l.norm, math.Abs(l.theta[0]), math.Abs(l.theta[j-1]))
	return nil
}

// run iterates from warm (nil: a random vector) until the k smallest
// pairs converge, the budget of operator applications is spent or Stop
// says so, restarting on the keep smallest Ritz vectors.
func (l *lanczos) run(warm *mat.Dense, keep int) (Result, error) {
	rng := rand.New(rand.NewPCG(l.set.Seed, 0x1a2c05))
	last := 0 // vectors appended by the last step, whose images are the next block
	if warm != nil {
		_, c := warm.Dims()
		vs := make([][]float64, min(c, keep))
		for i := range vs {
			vs[i] = mat.Col(nil, i, warm)
			if !finite(blas64.General{Rows: 1, Cols: l.n, Stride: l.n, Data: vs[i]}) {
				return Result{}, fmt.Errorf("eigen: warm start has a non-finite entry")
			}
		}
		var err error
		if last, err = l.extend(vs, rng, false); err != nil {
			return l.stats(), err
		}
	}
	first := last > 0 // a warm start: its residuals all extend the basis at the first check
	if !first {
		vs := make([][]float64, lanczosBlock)
		for i := range vs {
			vs[i] = make([]float64, l.n)
			for r := range vs[i] {
				vs[i][r] = rng.NormFloat64()
			}
		}
		var err error
		if last, err = l.extend(vs, rng, true); err != nil {
			return l.stats(), err
		}
	}
	budget := l.set.MaxIter * l.k
	since := 1
	if first {
		since = lanczosCheck
	}
	for {
		j := l.j
		full := j+lanczosBlock > l.m
		stop := l.set.Stop != nil && l.set.Stop()
		if full || since >= lanczosCheck || l.matvecs >= budget || stop {
			since = 0
			if err := l.ritz(j); err != nil {
				return l.stats(), err
			}
			conv, resid := l.residuals(j)
			switch {
			case conv == l.k:
				return l.finish(j, nil)
			case l.matvecs >= budget:
				return l.finish(j, fmt.Errorf("%w: %d of %d pairs met the tolerance after %d operator applications", ErrNotConverged, conv, l.k, l.matvecs))
			case stop:
				l.set.NoVerify = true
				return l.finish(j, fmt.Errorf("%w: %d of %d pairs met the tolerance when stopped after %d operator applications", ErrNotConverged, conv, l.k, l.matvecs))
			}
			if full {
				// Thick restart on the keep smallest Ritz vectors.
				y := l.y.Slice(0, j, 0, keep).(*mat.Dense).RawMatrix()
				for _, g := range []blas64.General{l.q, l.aq} {
					l.old = append(l.old[:0], g.Data[:j*g.Stride]...)
					old := blas64.General{Rows: j, Cols: l.n, Stride: g.Stride, Data: l.old}
					blas64.Gemm(blas.Trans, blas.NoTrans, 1, y, old, 0, blas64.General{Rows: keep, Cols: l.n, Stride: g.Stride, Data: g.Data})
				}
				l.h.Zero()
				for i := range keep {
					l.h.SetSym(i, i, l.theta[i])
				}
				l.j = keep
			}
			// The residuals of the first unconverged wanted pairs (one
			// block; in plain Lanczos all are parallel) extend the basis;
			// at the first check after a warm start, all of them.
			if !first {
				resid = resid[:min(len(resid), lanczosBlock)]
			}
			first = false
			n, err := l.extend(resid, rng, false)
			if err != nil {
				return l.stats(), err
			}
			if n > 0 {
				last = min(n, lanczosBlock)
				continue
			}
		}
		// A block Krylov step: the images of the last block, orthogonalized.
		vs := l.scratch(last)
		for i := range vs {
			copy(vs[i], l.row(l.aq, l.j-last+i))
		}
		n, err := l.extend(vs, rng, true)
		if err != nil {
			return l.stats(), err
		}
		last = max(n, 1)
		since++
	}
}

// lanczosBlock is the block size of the Krylov steps. Larger blocks make
// each operator application cheaper on the grids' slacks but converge so
// much more slowly per application that the certified bounds were looser
// (bench/results/2026-11-25/NOTES.md, "Lanczos certificates").
const lanczosBlock = 1

// lanczosCheck is the number of steps between Rayleigh–Ritz steps with
// explicit residuals (there is always one at a full basis).
const lanczosCheck = 8

// extend orthogonalizes the vectors vs against the basis and each other
// and appends those not (numerically) in its span, normalized, with their
// images (one block application of A) and the new columns of h. A
// dependent vector is replaced by a random one when random is set, else
// dropped. It returns the number appended.
func (l *lanczos) extend(vs [][]float64, rng *rand.Rand, random bool) (int, error) {
	j0 := l.j
	for _, v := range vs {
		if l.j == l.m {
			break
		}
		nv := floats.Norm(v, 2)
		l.orthogonalize(v, l.j)
		if !(floats.Norm(v, 2) > 1e-10*nv) {
			if !random {
				continue
			}
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			l.orthogonalize(v, l.j)
		}
		floats.Scale(1/floats.Norm(v, 2), v)
		copy(l.row(l.q, l.j), v)
		l.j++
	}
	c := l.j - j0
	if c == 0 {
		return 0, nil
	}
	if l.x == nil || l.x.RawMatrix().Cols != c {
		l.x, l.ax = mat.NewDense(l.n, c, nil), mat.NewDense(l.n, c, nil)
	}
	l.x.Copy(mat.NewDense(c, l.n, l.q.Data[j0*l.q.Stride:l.j*l.q.Stride]).T())
	l.op.Apply(l.ax, l.x)
	l.matvecs += c
	ax := l.ax.RawMatrix()
	if !finite(ax) {
		return 0, fmt.Errorf("%w: operator returned a non-finite value", ErrBreakdown)
	}
	for i := range c {
		a := l.row(l.aq, j0+i)
		for r := range l.n {
			a[r] = ax.Data[r*ax.Stride+i]
		}
		h := make([]float64, j0+i+1)
		l.project(h, a, len(h))
		for r, x := range h {
			l.h.SetSym(r, j0+i, x)
		}
	}
	return c, nil
}

// residuals computes the first k Ritz pairs on the basis of j vectors
// (ritzVectors) and returns how many leading ones meet the tolerance, by
// explicit residuals, and the residuals of those that do not (the rows of
// l.axt, which they overwrite).
func (l *lanczos) residuals(j int) (int, [][]float64) {
	k := min(l.k, j)
	l.ritzVectors(j, k)
	conv := -1
	var out [][]float64
	for i := range k {
		x, r := l.xt.Data[i*l.xt.Stride:][:l.n], l.axt.Data[i*l.axt.Stride:][:l.n]
		floats.AddScaled(r, -l.theta[i], x)
		if !(floats.Norm(r, 2) <= l.set.Tol*max(l.norm, tiny)) {
			if conv < 0 {
				conv = i
			}
			out = append(out, r)
		}
	}
	if conv < 0 {
		conv = k
	}
	return conv, out
}

// ritzVectors sets the rows of l.xt and l.axt to the first k Ritz vectors
// on the basis of j vectors and their images.
func (l *lanczos) ritzVectors(j, k int) {
	q := blas64.General{Rows: j, Cols: l.n, Stride: l.q.Stride, Data: l.q.Data}
	aq := blas64.General{Rows: j, Cols: l.n, Stride: l.aq.Stride, Data: l.aq.Data}
	yk := l.y.Slice(0, j, 0, k).(*mat.Dense).RawMatrix()
	if l.xt.Rows != k {
		l.xt, l.axt = newGeneral(k, l.n), newGeneral(k, l.n)
	}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, yk, q, 0, l.xt)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, yk, aq, 0, l.axt)
}

// scratch returns c vectors of length n, reused from call to call.
func (l *lanczos) scratch(c int) [][]float64 {
	for len(l.krylov) < c {
		l.krylov = append(l.krylov, make([]float64, l.n))
	}
	return l.krylov[:c]
}

// finish returns the k smallest Ritz pairs of the basis of j vectors, with
// explicit residuals (from a new application of A unless NoVerify), and
// err.
func (l *lanczos) finish(j int, err error) (Result, error) {
	k := min(l.k, j)
	res := Result{Values: append([]float64(nil), l.theta[:k]...), Vectors: mat.NewDense(l.n, k, nil),
		Residuals: make([]float64, k)}
	l.ritzVectors(j, k)
	if !l.set.NoVerify {
		x, ax := mat.NewDense(l.n, k, nil), mat.NewDense(l.n, k, nil)
		x.Copy(mat.NewDense(k, l.n, l.xt.Data).T())
		l.op.Apply(ax, x)
		l.matvecs += k
		if !finite(ax.RawMatrix()) {
			return l.stats(), fmt.Errorf("%w: operator returned a non-finite value", ErrBreakdown)
		}
		ar := ax.RawMatrix()
		for i := range k {
			row := l.axt.Data[i*l.axt.Stride:][:l.n]
			for r := range row {
				row[r] = ar.Data[r*ar.Stride+i]
			}
		}
	}
	for i := range k {
		v, av := l.xt.Data[i*l.xt.Stride:][:l.n], l.axt.Data[i*l.axt.Stride:][:l.n]
		nv := floats.Norm(v, 2)
		floats.AddScaled(av, -l.theta[i], v)
		res.Residuals[i] = floats.Norm(av, 2) / nv
		res.Vectors.SetCol(i, v)
	}
	res.MatVecs = l.matvecs
	res.Iterations = (l.matvecs + l.k - 1) / l.k
	for i := range k {
		if !(res.Residuals[i] <= l.set.Tol*max(l.norm, tiny)) {
			break
		}
		res.Converged++
	}
	return res, err
}

func (l *lanczos) stats() Result {
	return Result{MatVecs: l.matvecs, Iterations: (l.matvecs + l.k - 1) / l.k}
}
