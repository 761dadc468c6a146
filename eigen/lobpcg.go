package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// solver is the LOBPCG state for the k largest eigenpairs of sign·A, with
// m = k+Guard Ritz vectors. The basis Q (n x (m+2k)) holds the columns
// [X | P | W], P and W having at most k columns, and AQ = A·Q.
type solver struct {
	op      Operator
	sign    float64
	n, k, m int
	set     Settings
	q, aq   blas64.General
	np      int       // columns of P
	theta   []float64 // Ritz values of X, descending
	res     []float64 // residual norms of X
	norm    float64   // largest |Ritz value| seen, an estimate of ||A||
	matvecs int
	iters   int
}

func lobpcg(op Operator, k int, warm *mat.Dense, set Settings, sign float64) (Result, error) {
	n, m := op.Dim(), k+set.Guard
	e := &solver{
		op: op, sign: sign, n: n, k: k, m: m, set: set,
		q:     newGeneral(n, m+2*k),
		aq:    newGeneral(n, m+2*k),
		theta: make([]float64, m),
		res:   make([]float64, m),
	}
	c, err := e.start(warm)
	if err != nil {
		return Result{}, err
	}
	// The new columns Q[:, off:off+c] await A; X is empty until the first
	// Rayleigh–Ritz step, which works on the start block alone.
	nx, off := 0, 0
	var active []int
	for {
		if err := e.apply(colBlock(e.aq, off, off+c), colBlock(e.q, off, off+c)); err != nil {
			return e.stats(), err
		}
		if err := e.rayleighRitz(nx, off+c, active); err != nil {
			return e.stats(), err
		}
		nx = m
		e.iters++
		e.residuals()
		if e.converged() == k {
			if set.NoVerify {
				return e.result(), nil
			}
			ok, err := e.verify()
			if err != nil {
				return e.stats(), err
			}
			if ok {
				return e.result(), nil
			}
		}
		if e.iters >= set.MaxIter {
			return e.notConverged(fmt.Sprintf("after %d iterations", e.iters))
		}
		if set.Stop != nil && set.Stop() {
			e.set.NoVerify = true // a deadline: no k more operator applications
			return e.notConverged(fmt.Sprintf("when stopped after %d iterations", e.iters))
		}
		active = active[:0]
		for j := 0; j < k; j++ {
			if !(e.res[j] <= e.tol()) {
				active = append(active, j)
			}
		}
		off = m + e.np
		if c, err = e.residualBlock(off, active); err != nil {
			return e.stats(), err
		}
		if c == 0 {
			return e.notConverged(fmt.Sprintf("when the residuals stagnated after %d iterations", e.iters))
		}
	}
}

// tol is the absolute residual tolerance.
func (e *solver) tol() float64 { return e.set.Tol * max(e.norm, tiny) }

// converged returns the number of leading pairs meeting the tolerance.
func (e *solver) converged() int {
	for j := 0; j < e.k; j++ {
		if !(e.res[j] <= e.tol()) {
			return j
		}
	}
	return e.k
}

// start fills the leading columns of Q with an orthonormal basis of the
// warm start completed by random vectors, and returns their number (>= m).
func (e *solver) start(warm *mat.Dense) (int, error) {
	c := 0
	if warm != nil {
		_, w := warm.Dims()
		w = min(w, e.q.Cols)
		for i := 0; i < e.n; i++ {
			copy(e.q.Data[i*e.q.Stride:i*e.q.Stride+w], warm.RawRowView(i)[:w])
		}
		v := colBlock(e.q, 0, w)
		if !finite(v) {
			return 0, fmt.Errorf("eigen: warm start has a non-finite entry")
		}
		var ok bool
		if c, ok = orthonormalize(colBlock(e.q, 0, 0), v); !ok {
			return 0, fmt.Errorf("%w: orthonormalizing the warm start", ErrBreakdown)
		}
	}
	rng := rand.New(rand.NewPCG(e.set.Seed, 0x9e3779b97f4a7c15))
	for try := 0; c < e.m; try++ {
		if try == 3 {
			return 0, fmt.Errorf("%w: cannot build a start basis", ErrBreakdown)
		}
		v := colBlock(e.q, c, e.m)
		for i := 0; i < e.n; i++ {
			row := v.Data[i*v.Stride : i*v.Stride+v.Cols]
			for j := range row {
				row[j] = rng.NormFloat64()
			}
		}
		r, ok := orthonormalize(colBlock(e.q, 0, c), v)
		if !ok {
			return 0, fmt.Errorf("%w: orthonormalizing the start", ErrBreakdown)
		}
		c += r
	}
	return c, nil
}

// apply sets dst = sign·A x and checks the result.
func (e *solver) apply(dst, x blas64.General) error {
	e.op.Apply(asDense(dst), asDense(x))
	e.matvecs += x.Cols
	if e.sign < 0 {
		for i := 0; i < dst.Rows; i++ {
			row := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
			for j := range row {
				row[j] = -row[j]
			}
		}
	}
	if !finite(dst) {
		return fmt.Errorf("%w: operator returned a non-finite value", ErrBreakdown)
	}
	return nil
}

// rayleighRitz solves the projected problem on the s leading columns of Q,
// laid out as [X (nx) | P (np) | W], and replaces X by the m leading Ritz
// vectors and P by the new search directions of the active pairs: the
// components of their Ritz vectors outside the old X, orthogonalized against
// the new X (Hetmaniuk and Lehoucq 2006). AQ follows by the same linear
// combinations.
func (e *solver) rayleighRitz(nx, s int, active []int) error {
	m := e.m
	qs, aqs := colBlock(e.q, 0, s), colBlock(e.aq, 0, s)
	// Upper block triangle of H = Qᵀ A Q, one product per block column;
	// XᵀAX = diag(θ) is known.
	bounds := [4]int{0, nx, nx + e.np, s}
	h := newGeneral(s, s)
	for j := 0; j < nx; j++ {
		h.Data[j*s+j] = e.theta[j]
	}
	for b := 1; b < 3; b++ {
		j0, j1 := bounds[b], bounds[b+1]
		if j1 > j0 {
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, colBlock(qs, 0, j1), colBlock(aqs, j0, j1), 0, colBlock(rowBlock(h, 0, j1), j0, j1))
		}
	}
	block := func(i int) int {
		switch {
		case i < bounds[1]:
			return 0
		case i < bounds[2]:
			return 1
		}
		return 2
	}
	hs := mat.NewSymDense(s, nil)
	for i := 0; i < s; i++ {
		for j := i; j < s; j++ {
			v := h.Data[i*s+j]
			if block(i) == block(j) {
				v = (v + h.Data[j*s+i]) / 2
			}
			hs.SetSym(i, j, v)
		}
	}
	var es mat.EigenSym
	if !finite(h) || !es.Factorize(hs, true) {
		return fmt.Errorf("%w: Rayleigh–Ritz eigensolve failed", ErrBreakdown)
	}
	vals, u := es.RawValues(), es.RawQ()
	e.norm = max(e.norm, math.Abs(vals[0]), math.Abs(vals[s-1]))

	// t = [C | Z]: C the m leading eigenvectors, Z the directions.
	t := newGeneral(s, m+len(active))
	for j := 0; j < m; j++ {
		e.theta[j] = vals[s-1-j]
		for i := 0; i < s; i++ {
			t.Data[i*t.Stride+j] = u.At(i, s-1-j)
		}
	}
	for jj, j := range active {
		for i := nx; i < s; i++ {
			t.Data[i*t.Stride+m+jj] = t.Data[i*t.Stride+j]
		}
	}
	np, ok := orthonormalize(colBlock(t, 0, m), colBlock(t, m, m+len(active)))
	if !ok {
		return fmt.Errorf("%w: orthonormalizing search directions", ErrBreakdown)
	}
	t = colBlock(t, 0, m+np)
	mulRight(qs, t)
	mulRight(aqs, t)
	e.np = np
	return nil
}

// residuals sets res to the norms of A x_j - θ_j x_j.
func (e *solver) residuals() {
	m := e.m
	for j := range e.res {
		e.res[j] = 0
	}
	for i := 0; i < e.n; i++ {
		x := e.q.Data[i*e.q.Stride : i*e.q.Stride+m]
		ax := e.aq.Data[i*e.aq.Stride : i*e.aq.Stride+m]
		for j, v := range ax {
			r := v - e.theta[j]*x[j]
			e.res[j] += r * r
		}
	}
	for j := range e.res {
		e.res[j] = math.Sqrt(e.res[j])
	}
}

// residualBlock writes the residuals of the active pairs to Q from column
// off on, orthonormalizes them against the columns before and returns how
// many directions remain.
func (e *solver) residualBlock(off int, active []int) (int, error) {
	for i := 0; i < e.n; i++ {
		x := e.q.Data[i*e.q.Stride : (i+1)*e.q.Stride]
		ax := e.aq.Data[i*e.aq.Stride : i*e.aq.Stride+e.m]
		for jj, j := range active {
			x[off+jj] = ax[j] - e.theta[j]*x[j]
		}
	}
	c, ok := orthonormalize(colBlock(e.q, 0, off), colBlock(e.q, off, off+len(active)))
	if !ok {
		return 0, fmt.Errorf("%w: orthonormalizing residuals", ErrBreakdown)
	}
	return c, nil
}

// verify applies A explicitly to the k leading Ritz vectors, replaces their
// implicitly updated images in AQ, recomputes their residuals as
// ||A x - θ x|| / ||x|| and reports whether all still meet the tolerance.
func (e *solver) verify() (bool, error) {
	k, off := e.k, e.m+e.np
	ax := colBlock(e.aq, off, off+k)
	if err := e.apply(ax, colBlock(e.q, 0, k)); err != nil {
		return false, err
	}
	nx := make([]float64, k)
	for j := range k {
		e.res[j] = 0
	}
	for i := 0; i < e.n; i++ {
		x := e.q.Data[i*e.q.Stride : i*e.q.Stride+k]
		a := e.aq.Data[i*e.aq.Stride : (i+1)*e.aq.Stride]
		for j, v := range x {
			r := a[off+j] - e.theta[j]*v
			e.res[j] += r * r
			nx[j] += v * v
			a[j] = a[off+j]
		}
	}
	for j := range k {
		e.res[j] = math.Sqrt(e.res[j] / nx[j])
	}
	return e.converged() == k, nil
}

// notConverged returns the current pairs, with explicit residuals unless
// NoVerify is set, and ErrNotConverged.
func (e *solver) notConverged(when string) (Result, error) {
	if !e.set.NoVerify {
		if _, err := e.verify(); err != nil {
			return e.stats(), err
		}
	}
	return e.result(), fmt.Errorf("%w: %d of %d pairs met the tolerance %s", ErrNotConverged, e.converged(), e.k, when)
}

// stats returns a Result with the counters only, after a breakdown.
func (e *solver) stats() Result {
	return Result{MatVecs: e.matvecs, Iterations: e.iters}
}

// result packages the k leading pairs of sign·A.
func (e *solver) result() Result {
	k := e.k
	r := Result{
		Values:     append([]float64(nil), e.theta[:k]...),
		Vectors:    mat.NewDense(e.n, k, nil),
		Residuals:  append([]float64(nil), e.res[:k]...),
		MatVecs:    e.matvecs,
		Iterations: e.iters,
		Converged:  e.converged(),
	}
	r.Vectors.Copy(asDense(colBlock(e.q, 0, k)))
	return r
}
