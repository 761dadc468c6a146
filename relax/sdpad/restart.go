package sdpad

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
)

// averager is the running sum of the iterates since the last restart
// (Settings.RestartEvery): Xbar on the pattern and the multipliers; the
// primal step keeps its own of Xbar.
type averager struct {
	x        *sdr.Sym // sum of Xbar on the pattern
	y, z     []float64
	n        int
	restarts int // restarts done
}

// accumulate adds the iterate (Xbar_k, y_k, z_k) to the running sums.
func (st *state) accumulate() {
	a := &st.avg
	if a.y == nil {
		a.x, a.y, a.z = sdr.NewSym(st.prob), make([]float64, len(st.y)), make([]float64, len(st.z))
	}
	a.x.AddScaled(1, st.xp1)
	for i, v := range st.y {
		a.y[i] += v
	}
	for i, v := range st.z {
		a.z[i] += v
	}
	a.n++
	st.pr.accumulate()
}

// restart replaces the iterate by the average since the last restart,
// Xbar_{k-1} = Xbar_{k-2} = mean Xbar, y = mean y, z = mean z (z stays
// nonnegative), when the average's max(gap, pinf) of docs/relaxation.md, Protocol is below
// restartGain times the iterate's; either way it clears the sums.
func (st *state) restart() {
	a := &st.avg
	f := 1 / float64(a.n)
	a.x.Scale(f)
	for i := range a.y {
		a.y[i] *= f
	}
	p := st.prob
	gap := sdr.Gap(p.PrimalObjective(a.x), p.DualObjective(a.y))
	pinf := p.PrimalInfeasibility(a.x, st.ty, st.pz)
	better := max(gap, pinf) < restartGain*max(st.it.Gap, st.it.PrimalInfeasibility)
	a.x.Zero()
	a.n = 0
	if !better {
		clear(a.y)
		clear(a.z)
		st.pr.restart(nil)
		return
	}
	a.restarts++
	for i, v := range a.y {
		st.y[i], a.y[i] = v, 0
	}
	for i, v := range a.z {
		st.z[i], a.z[i] = v*f, 0
	}
	st.pr.restart(st.xp1)
	st.xp2.CopyFrom(st.xp1)
	st.prob.DualSlack(st.slack, st.y, st.z)
}

func (dn *dense) accumulate() {
	if dn.sum == nil {
		dn.sum = mat.NewSymDense(dn.n, nil)
	}
	dn.sum.AddSym(dn.sum, dn.x)
	dn.cnt++
}

func (dn *dense) restart(x *sdr.Sym) {
	if x != nil {
		dn.x.ScaleSym(1/float64(dn.cnt), dn.sum)
		x.FromDense(dn.x)
	}
	dn.sum.Zero()
	dn.cnt = 0
}

// avgRank is the rank kept of the running sum of the low-rank iterates,
// which is compressed to it when it has more than 2 avgRank columns.
const avgRank = 32

// accumulate adds Z Z^T to the running sum W W^T (W: the first lr.cols
// columns of lr.sum).
func (lr *lowRank) accumulate() {
	_, r := lr.z.Dims()
	if lr.sum == nil {
		lr.sum = mat.NewDense(lr.d, 2*avgRank+lr.s.MaxRank, nil)
	}
	lr.sum.Slice(0, lr.d, lr.cols, lr.cols+r).(*mat.Dense).Copy(lr.z)
	lr.cols += r
	lr.cnt++
	if lr.cols > 2*avgRank {
		top, _ := topColumns(lr.sum.Slice(0, lr.d, 0, lr.cols).(*mat.Dense), avgRank)
		lr.sum.Slice(0, lr.d, 0, avgRank).(*mat.Dense).Copy(top)
		lr.cols = avgRank
	}
}

// topColumns returns W V_k, whose outer product is the best rank-k
// approximation of W W^T, and the squared norms of its orthogonal columns
// (descending): from the Gram matrix W^T W = V L V^T.
func topColumns(w *mat.Dense, k int) (*mat.Dense, []float64) {
	rows, c := w.Dims()
	k = min(k, c)
	g := mat.NewSymDense(c, nil)
	g.SymOuterK(1, w.T())
	var eig mat.EigenSym
	if !eig.Factorize(g, true) {
		return w.Slice(0, rows, 0, k).(*mat.Dense), nil
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	vals := eig.Values(nil)
	rev := mat.NewDense(c, k, nil)
	norms := make([]float64, k)
	for j := range k {
		rev.SetCol(j, mat.Col(nil, c-1-j, &v))
		norms[j] = max(vals[c-1-j], 0)
	}
	top := mat.NewDense(rows, k, nil)
	top.Mul(w, rev)
	return top, norms
}

// restart sets Z and Z_{k-1} to the best rank-r approximation of the
// average W W^T / cnt and writes it on the pattern into x (Z stays as it is
// if the Gram eigendecomposition fails); with x nil it only clears the sum.
func (lr *lowRank) restart(x *sdr.Sym) {
	cnt, cols := lr.cnt, lr.cols
	lr.cnt, lr.cols = 0, 0
	if x == nil || cnt == 0 {
		return
	}
	top, sq := topColumns(lr.sum.Slice(0, lr.d, 0, cols).(*mat.Dense), lr.r)
	if sq == nil {
		return
	}
	k := len(sq)
	for k > 0 && sq[k-1] == 0 {
		k--
	}
	scale := 1 / math.Sqrt(float64(cnt))
	lr.z.Zero()
	lr.sigma = make([]float64, lr.r)
	lr.warm = nil
	if k > 0 {
		lr.warm = mat.NewDense(lr.d, k, nil)
	}
	for j := range k {
		nj := math.Sqrt(sq[j])
		lr.sigma[j] = sq[j] * scale * scale
		for i := range lr.d {
			v := top.At(i, j)
			lr.z.Set(i, j, v*scale)
			lr.warm.Set(i, j, v/nj)
		}
	}
	lr.zp.Copy(lr.z)
	lr.lift()
	x.PatternOf(lr.y)
}

// restartGain is the factor by which the average must beat the current
// iterate in max(gap, pinf) for a restart from it.
const restartGain = 0.5
