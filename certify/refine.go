package certify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// Refine looks for a better certificate than that of the dual point
// (y, z >= 0) by maximizing the certified bound (docs/relaxation.md) as a function of the dual point,
//
//	F(y, z) = -<b, y> + (n+1) lambda_min(U^T S(y, z) U),
//
// a concave function, by a proximal bundle method: the spectral bundle
// method of Helmberg and Rendl (2000), warm-started at a solver's dual
// point. Each unit vector x of the face gives a plane above F, its
// Rayleigh quotient,
//
//	F(y', z') <= -<b, y'> + (n+1) (x^T S(y, z) x + A(xx^T).(y'-y) - P(xx^T).(z'-z)),
//
// and each round adds the planes of the Rank smallest eigenpairs (dense
// up to order refineDenseMax with LAPACK, refineDenseMaxGo without,
// refineDense; else to Tol, at most MaxIter iterations, warm-started,
// Lanczos on sparse models, refineSparseEdges) at a trial point: the
// maximizer, over z >= 0, of the model (the smallest plane) less
// ||(y', z') - center||^2 / (2t). The
// center moves there when F gained at least a tenth of what the model
// promised (t doubles when at least half), t halves when F fell; a step
// promising no gain is shortened (t / 4, maxShrinks times) before Refine
// stops. F is
// certified at every trial point: Shift by its lambda_min's lower bound
// (eigen.LowerBound) makes the slack PSD and adds (n+1) lambda_min to the
// dual objective. It returns the best certified point among at most
// rounds+1 (y, z and a bound of -Inf when not even the start was
// certified); ctx's end stops it, and an eigensolve it cuts short gives no
// bound (-Inf, as Partial). It also stops when the rounds stop paying
// (stalled): after round r >= stallRounds, when the best bound gained at
// most stallShare of its gain since the start in the last stallRounds
// rounds. The rule counts rounds, never time, so that a dual point gives
// the same bound on any load.
//
// It replaces per-variable shifts of y (Shift) that covered each negative
// eigenpair by Cauchy-Schwarz and stalled after a few rounds: at the same
// rounds it ends closer to the SDR value on the grids' and the dense
// models' dual points (bench/results/2026-11-25/NOTES.md, "Bundle
// refinement").
func Refine(ctx context.Context, prob *sdr.Problem, y, z []float64, rounds int, s Settings) (Refined, error) {
	if err := s.check(); err != nil {
		return Refined{}, err
	}
	if len(y) != prob.Y.Len || len(z) != prob.NumZ {
		return Refined{}, fmt.Errorf("certify: dual point of %d and %d values, want %d and %d", len(y), len(z), prob.Y.Len, prob.NumZ)
	}
	r := newRefiner(ctx, prob, y, z, s)
	b := &bundle{center: append(slices.Clone(y), z...)}
	fc, planes, err := r.eval(b.center)
	if err != nil || len(planes) == 0 {
		return r.result(), err
	}
	b.add(planes...)
	// The first step: the model's gain about what lambda_min costs now.
	t := math.Abs(fc - prob.DualObjective(y))
	if gg := b.gram[0][0]; gg > 0 {
		t /= gg
	}
	for round := 1; round <= rounds && ctx.Err() == nil; round++ {
		// A step whose model promises no gain is tried again shorter (its
		// QP is solved inexactly) before the bundle stops.
		var next, alpha, at []float64
		var promised float64
		for shrink := 0; ; shrink++ {
			next, alpha = r.step(b, t)
			at = make([]float64, len(b.planes))
			model := math.Inf(1)
			for j, p := range b.planes {
				at[j] = p.at(next)
				model = min(model, at[j])
			}
			if promised = model - fc; promised > 1e-12*(1+math.Abs(fc)) {
				break
			}
			if shrink == maxShrinks {
				return r.result(), nil
			}
			t /= 4
		}
		f, add, err := r.eval(next)
		if err != nil || add == nil {
			return r.result(), err
		}
		// Keep the aggregate plane, which keeps what the dropped ones
		// taught, the planes the step used most (at most maxPlanes), and
		// add the new ones.
		used := make([]int, 0, len(alpha))
		for j, a := range alpha {
			if a > 1e-9 {
				used = append(used, j)
			}
		}
		slices.SortFunc(used, func(i, j int) int { return cmp.Compare(alpha[j], alpha[i]) })
		center, atC, gain := b.center, b.atC, f-fc
		if gain >= 0.1*promised {
			center, atC, fc = next, at, f
		}
		b = b.reduce(alpha, used[:min(len(used), maxPlanes*r.k)], center, atC)
		b.add(add...)
		switch {
		case gain >= 0.5*promised:
			t *= 2
		case gain < 0:
			t /= 2
		}
		if r.stalled() {
			out := r.result()
			out.Stalled = true
			return out, nil
		}
	}
	return r.result(), nil
}

// Refined is what Refine found: the best certified dual point, its
// certificate, and the best certified lower bound after each round
// (Bounds[0] at the start; empty when the start was not evaluated).
type Refined struct {
	Y, Z        []float64
	Certificate sdr.Certificate
	Bounds      []float64
	Stalled     bool // stopped because the rounds stopped paying (Refine)
}

// Rounds returns the number of rounds Refine made.
func (r Refined) Rounds() int { return max(0, len(r.Bounds)-1) }

// stallRounds and stallShare: Refine stops when the best bound gained at
// most stallShare of its gain since the start in the last stallRounds
// rounds. On dense models the bound's gains shrink slowly round after
// round while each round costs a dense eigendecomposition and a step over
// every edge entry (bench/results/2026-11-27c/NOTES-refine.md).
const (
	stallRounds = 20
	stallShare  = 0.05
)

// stalled reports the stall rule (Refine) on the bounds so far.
func (r *refiner) stalled() bool {
	b := r.bounds
	k := len(b) - 1
	if k < stallRounds || math.IsInf(b[0], -1) {
		return false
	}
	return b[k]-b[k-stallRounds] <= stallShare*(b[k]-b[0])
}

func (r *refiner) result() Refined {
	return Refined{Y: r.bestY, Z: r.bestZ, Certificate: r.best, Bounds: r.bounds}
}

// maxShrinks: Refine shortens a step that promises no gain (t / 4) at
// most that many times in a row before it stops; on deer_0034 the bundle
// stopped after 10 rounds without it, its bound still rising
// (bench/results/2026-11-27c/NOTES-refine.md).
const maxShrinks = 4

// maxPlanes times Rank planes at most are kept from one step to the next
// (plus the aggregate and the new ones): each holds a vector as long as
// (y, z).
const maxPlanes = 2

// plane is c + g.x, x = (y, z): an upper bound on F (Refine).
type plane struct {
	c float64
	g []float64
}

func (p plane) at(x []float64) float64 { return p.c + floats.Dot(p.g, x) }

// bundle holds Refine's planes with their Gram matrix (gram[j][l] =
// g_j.g_l) and their values at the center (atC), carried from round to
// round so that only the new planes' products are computed.
type bundle struct {
	center []float64
	planes []plane
	gram   [][]float64
	atC    []float64
}

// add appends the planes ps.
func (b *bundle) add(ps ...plane) {
	for _, p := range ps {
		row := make([]float64, len(b.planes)+1)
		for l, q := range b.planes {
			row[l] = floats.Dot(p.g, q.g)
			b.gram[l] = append(b.gram[l], row[l])
		}
		row[len(b.planes)] = floats.Dot(p.g, p.g)
		b.gram = append(b.gram, row)
		b.planes = append(b.planes, p)
		b.atC = append(b.atC, p.at(b.center))
	}
}

// reduce returns the bundle, centered at center, of the aggregate plane
// sum_j alpha_j planes_j and the planes keep, given the planes' values at
// center, at (by linearity the aggregate's value is sum_j alpha_j at_j and
// its products are those of the Gram matrix with alpha).
func (b *bundle) reduce(alpha []float64, keep []int, center, at []float64) *bundle {
	k := len(b.planes)
	agg := plane{g: make([]float64, len(b.planes[0].g))}
	ga := make([]float64, k) // gram alpha
	aggAt := 0.0
	for j, a := range alpha {
		if a == 0 {
			continue
		}
		agg.c += a * b.planes[j].c
		floats.AddScaled(agg.g, a, b.planes[j].g)
		aggAt += a * at[j]
		floats.AddScaled(ga, a, b.gram[j])
	}
	idx := append([]int{-1}, keep...) // -1: the aggregate
	out := &bundle{center: center, planes: make([]plane, len(idx)), gram: make([][]float64, len(idx)), atC: make([]float64, len(idx))}
	for u, j := range idx {
		row := make([]float64, len(idx))
		for v, l := range idx {
			switch {
			case j < 0 && l < 0:
				row[v] = floats.Dot(alpha, ga)
			case j < 0:
				row[v] = ga[l]
			case l < 0:
				row[v] = ga[j]
			default:
				row[v] = b.gram[j][l]
			}
		}
		out.gram[u] = row
		if j < 0 {
			out.planes[u], out.atC[u] = agg, aggAt
		} else {
			out.planes[u], out.atC[u] = b.planes[j], at[j]
		}
	}
	return out
}

// refiner evaluates F for Refine and keeps the best certificate.
type refiner struct {
	prob  *sdr.Problem
	op    *Slack
	es    eigen.Settings
	k     int
	warm  *mat.Dense
	lift  *mat.Dense // N x 1
	xx    *sdr.Sym   // x x^T on the pattern
	bestY []float64
	bestZ []float64
	best  sdr.Certificate
	// bounds: best.LowerBound after each evaluation.
	bounds []float64

	// The dense eigensolve (refineDense), when taken: the slack (N) and
	// its compression to the face, and the solver.
	sd, sf *mat.SymDense
	proj   *eigen.Projector
}

func newRefiner(ctx context.Context, prob *sdr.Problem, y, z []float64, s Settings) *refiner {
	op := NewSlack(prob, y, z, true)
	nv := prob.NumVars()
	r := &refiner{prob: prob, op: op, k: min(s.Rank, op.Dim()),
		es:    eigen.Settings{Tol: s.Tol, MaxIter: s.MaxIter, Stop: solver.Done(ctx), Lanczos: len(prob.Edges) <= refineSparseEdges*nv},
		lift:  mat.NewDense(prob.N(), 1, nil),
		xx:    sdr.NewSym(prob),
		bestY: y, bestZ: z,
		best: sdr.Certificate{LowerBound: math.Inf(-1), EnergyBound: math.Inf(-1)}}
	if d := op.Dim(); refineDense(d) {
		r.sd, r.sf, r.proj = mat.NewSymDense(prob.N(), nil), mat.NewSymDense(d, nil), eigen.NewProjector(d)
	}
	return r
}

// refineDense reports whether Refine's eigensolves on a face of order d
// are dense (Projector.Smallest): up to order refineDenseMax with LAPACK
// (eigen.LAPACK), where a decomposition costs less than LOBPCG's 8 pairs
// (bench/results/2026-11-26/NOTES.md, "LAPACK's eigensolver from
// OpenBLAS"; at order 1,801 LOBPCG's unconverged bounds also kept the
// refined bound below the relaxation's own, bench/results/2026-11-27c/
// NOTES-refine.md), up to refineDenseMaxGo without (Dsytrd and inverse
// iteration for the Rank vectors: at face orders 541 to 901 the
// refinement took 0.64 to 0.71 of LOBPCG's time and its bound was
// tighter, bench/results/2026-11-27d/NOTES.md). The smallest eigenvalue
// is exact to rounding (sdr.Certificate's margin covers it).
func refineDense(d int) bool {
	return d <= refineDenseMaxGo || eigen.LAPACK() && d <= refineDenseMax
}

// refineDenseMax and refineDenseMaxGo are the largest face orders refined
// densely with LAPACK and without.
const (
	refineDenseMax   = 2000
	refineDenseMaxGo = 1000
)

// eval returns F at x = (y, z), certified, and the planes of the
// eigenvectors found there; no planes when the eigensolve was cut short.
func (r *refiner) eval(x []float64) (float64, []plane, error) {
	p, ny := r.prob, r.prob.Y.Len
	y, z := x[:ny], x[ny:]
	r.op.Set(y, z)
	res, lo, err := r.smallest()
	if err != nil || res.Vectors == nil {
		return 0, nil, err
	}
	order := float64(p.NumVars() + 1)
	shift := make([]float64, p.NumVars()+1)
	for i := range shift {
		shift[i] = -lo
	}
	sy := Shift(p, y, shift)
	vals := make([]float64, len(res.Values))
	for j, v := range res.Values {
		vals[j] = v - lo
	}
	c, err := p.CertifyPartial(sy, z, vals, 0, true)
	if err != nil {
		return 0, nil, err
	}
	if c.LowerBound > r.best.LowerBound {
		r.bestY, r.bestZ, r.best = sy, slices.Clone(z), c
	}
	r.bounds = append(r.bounds, r.best.LowerBound)
	planes := make([]plane, 0, len(res.Values))
	for j, l := range res.Values {
		r.op.Face.Lift(r.lift, res.Vectors.Slice(0, r.op.Dim(), j, j+1).(*mat.Dense))
		u := r.lift.RawMatrix().Data
		nrm := floats.Norm(u, 2)
		if nrm == 0 {
			continue
		}
		floats.Scale(1/nrm, u)
		r.xx.PatternOf(r.lift)
		g := make([]float64, len(x))
		gy, gz := g[:ny], g[ny:]
		p.A(r.xx, gy)
		p.P(r.xx, gz)
		c := order * (l - floats.Dot(gy, y) + floats.Dot(gz, z))
		floats.Scale(order, gy)
		floats.Sub(gy, p.B)
		floats.Scale(-order, gz)
		planes = append(planes, plane{c: c, g: g})
	}
	return p.DualObjective(y) + order*lo, planes, nil
}

// stepAlternations is the most alternations in step.
const stepAlternations = 8

// step returns the maximizer over z >= 0 of min_j planes_j(x) - ||x -
// center||^2 / (2t) and the planes' weights. Its dual: x = center + t (sum_j
// alpha_j g_j + eta), alpha on the simplex, eta >= 0 on z (zero on y); it
// alternates between the best alpha for eta (simplexQP) and the best eta
// for alpha (eta = max(0, -w/t) on z, w the step without it).
func (r *refiner) step(b *bundle, t float64) (x, alpha []float64) {
	ny := r.prob.Y.Len
	k := len(b.planes)
	gram := mat.NewSymDense(k, nil)
	for j := range k {
		for l := j; l < k; l++ {
			gram.SetSym(j, l, t*b.gram[j][l])
		}
	}
	// FISTA's step: 1 over gram's largest eigenvalue, for every alternation.
	var eig mat.EigenSym
	top := 0.0
	if eig.Factorize(gram, false) {
		top = eig.Values(nil)[k-1]
	}
	qpStep := 1 / (top + 1e-300)
	center := b.center
	eta := make([]float64, len(center)-ny)
	positive := false // eta has a positive entry
	lin := make([]float64, k)
	x = make([]float64, len(center))
	for range stepAlternations {
		for j, p := range b.planes {
			lin[j] = b.atC[j]
			if positive {
				lin[j] += t * floats.Dot(p.g[ny:], eta)
			}
		}
		alpha = simplexQP(gram, lin, qpStep)
		copy(x, center)
		for j, a := range alpha {
			if a > 0 {
				floats.AddScaled(x, t*a, b.planes[j].g)
			}
		}
		same := true
		for i, v := range x[ny:] {
			e := max(0, -v/t)
			same = same && e == eta[i]
			eta[i] = e
			positive = positive || e > 0
			x[ny+i] = max(0, v)
		}
		if same {
			break
		}
	}
	return x, alpha
}

// simplexQP returns the alpha on the simplex that minimizes lin.alpha +
// alpha^T gram alpha / 2, by FISTA (projected gradient steps of length
// step, at most 1 over gram's largest eigenvalue, with momentum) until
// alpha moves by less than 1e-9 or after qpIter steps: the step's accuracy
// only affects how good the trial point is, never a bound.
func simplexQP(gram *mat.SymDense, lin []float64, step float64) []float64 {
	const qpIter = 500
	k := len(lin)
	g := gram.RawSymmetric()
	alpha, prev, w, sorted := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	for j := range alpha {
		alpha[j] = 1 / float64(k)
	}
	copy(prev, alpha)
	tk := 1.0
	for range qpIter {
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		for j := range w {
			w[j] = alpha[j] + (tk-1)/tn*(alpha[j]-prev[j])
		}
		tk = tn
		copy(prev, alpha)
		for j := range alpha {
			gw := 0.0
			for l := range k {
				// Upper triangle only: gram(j, l) at row min(j, l).
				gw += g.Data[min(j, l)*g.Stride+max(j, l)] * w[l]
			}
			alpha[j] = w[j] - step*(lin[j]+gw)
		}
		projectSimplex(alpha, sorted)
		moved := 0.0
		for j := range alpha {
			moved = max(moved, math.Abs(alpha[j]-prev[j]))
		}
		if moved < 1e-9 {
			break
		}
	}
	return alpha
}

// projectSimplex replaces a by its Euclidean projection onto the simplex
// {a >= 0, sum a = 1} (the sort-based rule of Held, Wolfe and Crowder);
// sorted is scratch of a's length.
func projectSimplex(a, sorted []float64) {
	copy(sorted, a)
	slices.Sort(sorted)
	cum, theta := 0.0, 0.0
	for i := range sorted {
		v := sorted[len(sorted)-1-i]
		cum += v
		if th := (cum - 1) / float64(i+1); v > th {
			theta = th
		}
	}
	for i := range a {
		a[i] = max(0, a[i]-theta)
	}
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

// smallest returns the k smallest eigenpairs of the compressed slack and
// a lower bound on the smallest eigenvalue: densely (refineDense; the
// computed value, whose rounding the certificate's margin covers), or by
// Lanczos or LOBPCG, warm-started (the smallest Ritz value less its
// residual, eigen.LowerBound). No vectors when the iterative solve was cut
// short, or the dense one not started because ctx was done.
func (r *refiner) smallest() (eigen.Result, float64, error) {
	if r.proj != nil {
		if r.es.Stop() {
			return eigen.Result{}, 0, nil
		}
		r.sd.Zero()
		r.op.S.AddTo(r.sd, 1)
		r.op.Face.Compress(r.sf, r.sd)
		vecs := mat.NewDense(r.op.Dim(), r.k, nil)
		vals, ok := r.proj.Smallest(r.sf, r.k, vecs)
		if !ok {
			return eigen.Result{}, 0, errors.New("certify: dense eigensolve of the slack did not converge")
		}
		return eigen.Result{Values: slices.Clone(vals), Vectors: vecs}, vals[0], nil
	}
	res, err := eigen.Smallest(r.op, r.k, r.warm, r.es)
	if err != nil && !errors.Is(err, eigen.ErrNotConverged) {
		return res, 0, err
	}
	if res.Converged < len(res.Values) && res.Iterations < r.es.MaxIter {
		return eigen.Result{}, 0, nil
	}
	r.warm = res.Vectors
	return res, eigen.LowerBound(res), nil
}

// refineSparseEdges: Refine's rounds use Lanczos on models with at most
// that many edges per variable (the grids; auto's sparse models) and
// LOBPCG on denser ones. Measured with the per-variable shifts Refine used
// before its bundle method: on the grids Lanczos's eigenpairs gave the
// better refined bounds, on the dense models LOBPCG's
// (bench/results/2026-11-25/NOTES.md, "Lanczos certificates").
const refineSparseEdges = 3
