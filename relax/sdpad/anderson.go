package sdpad

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/internal/vec"
)

// anderson accelerates the iteration seen as a fixed-point map u -> T(u)
// of its state u = (y, z, Xbar_{k-1}, Xbar_{k-2} on the pattern), by type-II
// Anderson acceleration with a safeguard as in SCS 3: with g = u - T(u) and
// the differences dF, dG of T(u) and g over the last m steps,
//
//	gamma = argmin ||g - dG gamma||,   u' = T(u) - dF gamma.
//
// The state is scaled to the iteration's metric (Xbar by sqrt(mu), y and z
// by 1/sqrt(mu)); the memory is cleared whenever mu changes or the iteration
// restarts, since the map changes. An extrapolated u whose residual ||g||
// exceeds the previous one is rejected: the iteration goes on from the plain
// T of the previous point.
type anderson struct {
	m         int
	df, dg    [][]float64   // ring buffer of the last differences of T(u) and of g
	gram      *mat.SymDense // dg_i . dg_j over the slots
	n         int           // differences held
	next      int           // slot of the next difference
	u, f, g   []float64     // the current point, T(u), u - T(u)
	row, rhs  []float64     // the new Gram row and dG^T g, by slot (length m)
	fp, gp    []float64     // T and the residual of the previous point
	have      bool          // fp and gp hold a previous step
	extrap    bool          // u is an extrapolated point
	gnormPrev float64
	mu        float64 // the penalty of the memory
	restarts  int     // the iteration's restarts when the memory began

	accepted, rejected int
}

// newAnderson returns the acceleration of a state of the given length with
// memory at most m (andersonMemory), nil when none fits.
func newAnderson(m, size int) *anderson {
	if m = andersonMemory(m, size); m == 0 {
		return nil
	}
	a := &anderson{m: m, mu: -1, df: make([][]float64, m), dg: make([][]float64, m),
		gram: mat.NewSymDense(m, nil),
		u:    make([]float64, size), f: make([]float64, size), g: make([]float64, size),
		fp: make([]float64, size), gp: make([]float64, size),
		row: make([]float64, m), rhs: make([]float64, m),
	}
	for i := range m {
		a.df[i], a.dg[i] = make([]float64, size), make([]float64, size)
	}
	return a
}

// accelerate is called with the state at T(u) after an iteration (or at
// a new start after a restart); it moves the state to the next point to
// iterate from. Only Solve sets st.acc: the primal step is dense.
func (st *state) accelerate() {
	a, dn := st.acc, st.pr.(*dense)
	st.pack(dn, a.f)
	if a.mu != st.mu || a.restarts != st.avg.restarts {
		a.mu, a.restarts = st.mu, st.avg.restarts
		a.restart()
		return
	}
	if a.step() {
		st.unpack(dn, a.u)
	}
}

// restart clears the memory and takes T(u) in a.f as the next point.
func (a *anderson) restart() {
	a.n, a.next, a.have, a.extrap = 0, 0, false, false
	copy(a.u, a.f)
}

// step takes T(u) in a.f for the point a.u and leaves the next point in
// a.u; it reports whether that differs from T(u). Its work is two fused
// passes over the vectors, block by block (andersonBlock): the residual, the
// new differences and their products with the stored ones (the new Gram row
// and dg_s . g); the extrapolation. The other entries of the right-hand side
// dG^T g follow from the last step's: g = g_prev + dg_s, so dg_j . g =
// dg_j . g_prev + dg_j . dg_s.
func (a *anderson) step() bool {
	s, diff := a.next, a.have
	slots := 0 // the slots held once dg_s is stored
	if diff {
		slots = min(a.n+1, a.m)
	}
	row := a.row[:slots]
	clear(row)
	gnorm2, rhsS := 0.0, 0.0
	for lo := 0; lo < len(a.u); lo += andersonBlock {
		hi := min(lo+andersonBlock, len(a.u))
		g, f := a.g[lo:hi], a.f[lo:hi]
		floats.SubTo(g, a.u[lo:hi], f)
		gnorm2 += vec.Dot(g, g)
		if diff {
			ds := a.dg[s][lo:hi]
			floats.SubTo(a.df[s][lo:hi], f, a.fp[lo:hi])
			floats.SubTo(ds, g, a.gp[lo:hi])
			rhsS += vec.Dot(ds, g)
			for j := range row {
				row[j] += vec.Dot(ds, a.dg[j][lo:hi])
			}
		}
	}
	gnorm := math.Sqrt(gnorm2)
	if a.extrap && gnorm > a.gnormPrev {
		a.rejected++
		a.f, a.fp = a.fp, a.f
		a.restart()
		return true
	}
	if a.extrap {
		a.accepted++
	}
	if diff {
		for j, v := range row {
			a.gram.SetSym(s, j, v)
			a.rhs[j] += v
		}
		a.rhs[s] = rhsS
		a.next = (a.next + 1) % a.m
		a.n = slots
	}
	a.fp, a.f = a.f, a.fp
	a.gp, a.g = a.g, a.gp
	a.have, a.extrap, a.gnormPrev = true, false, gnorm
	if a.n == 0 {
		copy(a.u, a.fp)
		return false
	}
	gamma := a.solve(a.rhs[:a.n])
	if gamma == nil {
		copy(a.u, a.fp)
		return false
	}
	for lo := 0; lo < len(a.u); lo += andersonBlock {
		hi := min(lo+andersonBlock, len(a.u))
		u := a.u[lo:hi]
		copy(u, a.fp[lo:hi])
		for j, c := range gamma {
			vec.AddScaled(u, -c, a.df[j][lo:hi])
		}
	}
	a.extrap = true
	return true
}

// andersonBlock is the block length of step's passes: a block of each of
// its vectors stays in the cache across the m differences, instead of a
// pass over the whole state per difference (its kernels are package
// vec's).
const andersonBlock = 2048

// solve returns gamma = argmin ||g - dG gamma|| (g the last residual) by the
// regularized normal equations, with rhs = dG^T g, nil if there is none or
// it is too large.
func (a *anderson) solve(rhs []float64) []float64 {
	n := a.n
	gram := mat.NewSymDense(n, nil)
	tr := 0.0
	for i := range n {
		for j := i; j < n; j++ {
			gram.SetSym(i, j, a.gram.At(i, j))
		}
		tr += gram.At(i, i)
	}
	if !(tr > 0) {
		return nil
	}
	for i := range n {
		gram.SetSym(i, i, gram.At(i, i)+andersonReg*tr)
	}
	var ch mat.Cholesky
	var gamma mat.VecDense
	if !ch.Factorize(gram) || ch.SolveVecTo(&gamma, mat.NewVecDense(n, rhs)) != nil {
		return nil
	}
	x := gamma.RawVector().Data
	if nx := floats.Norm(x, 2); !(nx < andersonMaxWeight) {
		return nil
	}
	return x
}

// Regularization of the normal equations (relative to their trace) and the
// largest weight norm accepted, as in SCS.
const (
	andersonReg       = 1e-10
	andersonMaxWeight = 1e10
)

// andersonBytes bounds the memory of the acceleration's vectors.
const andersonBytes = 1 << 30

// andersonMemory returns the memory the acceleration can afford, at most m,
// for a state of the given length: its 2 m + 5 vectors fit in andersonBytes
// (at N = 601 with 1,770 dense edge blocks, 0.1 GB for m = 10), or 0 when
// fewer than two differences fit.
func andersonMemory(m, size int) int {
	m = min(m, (andersonBytes/(8*size)-5)/2)
	if m < 2 {
		return 0
	}
	return m
}

// parts calls f on the parts of the dense iteration's state in order: y,
// z (dual), the rows of Xbar_k's upper triangle and Xbar_{k-1} on the
// pattern (primal).
func (st *state) parts(dn *dense, f func(part []float64, primal bool)) {
	f(st.y, false)
	f(st.z, false)
	raw := dn.x.RawSymmetric()
	for i := range dn.n {
		f(raw.Data[i*raw.Stride+i:i*raw.Stride+dn.n], true)
	}
	f(st.xp2.Row0, true)
	for _, d := range st.xp2.Diag {
		f(d, true)
	}
	for _, e := range st.xp2.Edge {
		f(e, true)
	}
}

// stateLen is the length of the packed state.
func (st *state) stateLen(dn *dense) int {
	k := 0
	st.parts(dn, func(part []float64, _ bool) { k += len(part) })
	return k
}

// pack writes the state into u, scaled to the iteration's metric: the
// primal parts by sqrt(mu), the dual ones by 1/sqrt(mu).
func (st *state) pack(dn *dense, u []float64) {
	k := 0
	st.parts(dn, func(part []float64, primal bool) {
		floats.ScaleTo(u[k:k+len(part)], metric(st.mu, primal), part)
		k += len(part)
	})
}

// unpack sets the state from u (the inverse of pack) and Xbar_k on the
// pattern from the dense one.
func (st *state) unpack(dn *dense, u []float64) {
	k := 0
	st.parts(dn, func(part []float64, primal bool) {
		floats.ScaleTo(part, 1/metric(st.mu, primal), u[k:k+len(part)])
		k += len(part)
	})
	st.xp1.FromDense(dn.x)
}

func metric(mu float64, primal bool) float64 {
	if primal {
		return math.Sqrt(mu)
	}
	return 1 / math.Sqrt(mu)
}
