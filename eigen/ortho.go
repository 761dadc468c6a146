package eigen

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// dropTol is the smallest eigenvalue of the Gram matrix of unit-norm
// columns (after projection) whose direction is kept by svqb; directions
// with singular value below 1e-6 are numerically dependent.
const dropTol = 1e-12

// colBlock returns the columns [j0, j1) of a as a view.
func colBlock(a blas64.General, j0, j1 int) blas64.General {
	return blas64.General{Rows: a.Rows, Cols: j1 - j0, Stride: a.Stride, Data: a.Data[j0:]}
}

// rowBlock returns the rows [i0, i1) of a as a view.
func rowBlock(a blas64.General, i0, i1 int) blas64.General {
	return blas64.General{Rows: i1 - i0, Cols: a.Cols, Stride: a.Stride, Data: a.Data[i0*a.Stride:]}
}

// asDense wraps a view as a *mat.Dense sharing its storage.
func asDense(a blas64.General) *mat.Dense {
	var d mat.Dense
	d.SetRawMatrix(a)
	return &d
}

// newGeneral allocates a zero r x c matrix.
func newGeneral(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: max(c, 1), Data: make([]float64, r*max(c, 1))}
}

// finite reports whether every element of a is finite.
func finite(a blas64.General) bool {
	for i := 0; i < a.Rows; i++ {
		for _, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// colNorms2 returns the squared Euclidean norms of the columns of a.
func colNorms2(a blas64.General) []float64 {
	d := make([]float64, a.Cols)
	for i := 0; i < a.Rows; i++ {
		for j, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			d[j] += v * v
		}
	}
	return d
}

// mulRight overwrites the leading t.Cols columns of a with a·t, where t is
// a.Cols x r with r <= a.Cols. It works on blocks of rows, so the extra
// memory is independent of a.Rows.
func mulRight(a, t blas64.General) {
	r := t.Cols
	if r == 0 || a.Rows == 0 {
		return
	}
	rb := max(64, 1<<15/max(a.Cols, 1))
	tmp := newGeneral(min(rb, a.Rows), r)
	for i0 := 0; i0 < a.Rows; i0 += rb {
		i1 := min(i0+rb, a.Rows)
		ab := rowBlock(a, i0, i1)
		tb := rowBlock(tmp, 0, i1-i0)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, ab, t, 0, tb)
		for i := 0; i < i1-i0; i++ {
			copy(ab.Data[i*ab.Stride:i*ab.Stride+r], tb.Data[i*tb.Stride:i*tb.Stride+r])
		}
	}
}

// orthonormalize makes the columns of v orthonormal and orthogonal to the
// orthonormal columns of q, dropping numerically dependent directions. The
// kept directions are written to the leading columns of v and their number
// is returned. Columns are measured, projected against q and orthonormalized
// by svqb; a direction is dropped when less than 1e-6 of its original norm
// survives. The pass is repeated once ("twice is enough") unless the first
// pass lost less than 90% of any direction's norm and its Gram matrix had
// condition number below 100, so that orthogonality is already within a few
// hundred ulps.
func orthonormalize(q, v blas64.General) (int, bool) {
	d := colNorms2(v)
	c := v.Cols
	for pass := 0; pass < 2 && c > 0; pass++ {
		w := colBlock(v, 0, c)
		if q.Cols > 0 {
			g := newGeneral(q.Cols, c)
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, q, w, 0, g)
			blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, q, g, 1, w)
		}
		var lo, hi float64
		if c, lo, hi = svqb(w, d); c < 0 {
			return 0, false
		}
		if lo >= 1e-2 && hi <= 100*lo {
			break
		}
		d = nil
	}
	return c, true
}

// svqb orthonormalizes the columns of v (Stathopoulos and Wu 2002): with
// G = D VᵀV D = U Λ Uᵀ, where D scales by the reference norms sqrt(d)
// (unit when d is nil), V ← V D U Λ^{-1/2} over the eigenvalues above
// dropTol. It returns the number of columns kept, written first, and the
// smallest and largest eigenvalues kept; -1 if the eigensolve failed.
func svqb(v blas64.General, d []float64) (r int, lo, hi float64) {
	c := v.Cols
	g := blas64.Symmetric{N: c, Stride: c, Data: make([]float64, c*c), Uplo: blas.Upper}
	blas64.Syrk(blas.Trans, 1, v, 0, g)
	sc := make([]float64, c)
	for j := range sc {
		switch {
		case d == nil:
			sc[j] = 1
		case d[j] > tiny:
			sc[j] = 1 / math.Sqrt(d[j])
		}
	}
	for i := 0; i < c; i++ {
		for j := i; j < c; j++ {
			g.Data[i*c+j] *= sc[i] * sc[j]
		}
	}
	var sd mat.SymDense
	sd.SetRawSymmetric(g)
	var es mat.EigenSym
	if !es.Factorize(&sd, true) {
		return -1, 0, 0
	}
	vals, u := es.RawValues(), es.RawQ()
	t := newGeneral(c, c)
	for e := c - 1; e >= 0 && vals[e] > dropTol; e-- {
		f := 1 / math.Sqrt(vals[e])
		for i := 0; i < c; i++ {
			t.Data[i*t.Stride+r] = sc[i] * u.At(i, e) * f
		}
		r++
	}
	if r == 0 {
		return 0, 0, 0
	}
	t.Cols = r
	mulRight(v, t)
	return r, vals[c-r], vals[c-1]
}
