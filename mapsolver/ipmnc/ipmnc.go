// Package ipmnc is the IPM-NC baseline of Huang, Chen and Guibas (ICML 2014):
// the rank-1 (nonconvex quadratic) relaxation of MAP in energy form,
//
//	minimize f(x) = sum_i <u_i, x_i> + sum_{ij in E} x_i^T W_ij x_j   over x_i in the simplex,
//
// with u_i(a) = -w_i(a) and W_ij(a, b) = -W_ij's log value, solved to a
// local minimum from the uniform point and rounded. The paper solves this
// program with an interior-point method; here it is solved by spectral
// projected gradient (Birgin, Martinez and Raydan 2000) with an exact line
// search, which reaches the same kind of point (a KKT point) from the same
// start with a guaranteed monotone decrease of f.
//
// # Iteration
//
// With g = grad f(x) = u + H x (H holds the W_ij, both orientations) and a
// Barzilai-Borwein step alpha,
//
//	d = P(x - alpha g) - x,   x <- x + s d,   s = argmin_{0 < s <= 1} f(x + s d),
//
// where P projects each block onto its simplex. f is quadratic along d,
// f(x + s d) = f(x) + s <g, d> + s^2 q with q = d^T H d / 2, so s = 1 if
// q <= 0, else min(1, -<g, d> / (2q)); either way f decreases by at least
// -s <g, d> / 2 >= s |d|^2 / (2 alpha), so f never increases. The next step
// is alpha = <d, d> / <d, H d> (alpha_max when that is not positive).
//
// # Stopping: the KKT residual
//
// x is a KKT point when, per block, g_i(a) = lambda_i on the support of x_i
// and g_i(a) >= lambda_i elsewhere; with lambda_i = <x_i, g_i> the residual
//
//	kkt(x) = max_{i,a} max(x_i(a) |g_i(a) - lambda_i|, (lambda_i - g_i(a))_+) / scale
//
// is 0 exactly at KKT points; scale = max(1, max_i R_i) is the largest range
// of the finite energy of one variable with its neighbours fixed (R_i below).
// The run stops with status Solved when kkt <= Tol, else at MaxIter,
// the context's deadline or cancellation, or when f can no longer decrease in
// floating point (SolvedInaccurate).
//
// # Forbidden entries
//
// A forbidden unary state is left out of its simplex (x_i(a) = 0 always). A
// forbidden pair entry of edge ij costs the smallest allowed entry of its
// table plus 1 + max(R_i, R_j), where R_i is the range of u_i plus the
// ranges of the tables at i, all over allowed entries: at a vertex, moving a
// variable off a forbidden pair to a state that uses none always lowers f.
// f is therefore a penalized objective, and Objective is its value. The
// energy reported is always exact (Pairwise.Energy): the argmax of the final
// x (first state on ties), polished by ICM; if that still uses a forbidden
// entry, a depth-first search that tries the states of each variable in
// decreasing x_i(a) (bounded by repairNodes nodes) looks for an assignment of
// finite energy, which ICM then polishes. The assignment returned has finite
// energy whenever any of these found one.
package ipmnc

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/sdrmap/sdrmap/mapsolver/icm"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// Defaults of Settings.
const (
	DefaultMaxIter = 10000
	DefaultTol     = 1e-6
)

const (
	// refreshEvery is how many iterations the gradient is updated
	// incrementally (g += s H d) before it is recomputed from x.
	refreshEvery = 50
	// stallIters consecutive steps whose decrease of f is below roundoff
	// end the run (SolvedInaccurate).
	stallIters = 20
	// repairNodes bounds the depth-first search for a finite assignment.
	repairNodes = 1 << 17
)

// Settings controls a run.
type Settings struct {
	// MaxIter is the number of projected gradient steps; 0 means
	// DefaultMaxIter.
	MaxIter int
	// Tol is the KKT residual (relative, see the package comment) at which
	// the run stops with status Solved; 0 means DefaultTol.
	Tol float64
	// Trace, when not nil, is called with every iterate, the starting point
	// (Iter 0) included.
	Trace func(Iterate)
}

// Iterate is the state of the run after Iter steps.
type Iterate struct {
	Iter      int
	Objective float64 // f(x) plus the constant energy -p.Const
	KKT       float64 // KKT residual of x
	Step      float64 // line-search step s of the last step (0 at the start)
}

// Result is the outcome of a run.
type Result struct {
	// Status is Solved (KKT residual <= Tol), SolvedInaccurate (f stopped
	// decreasing in floating point first), MaxIterations, OutOfTime,
	// Interrupted, Infeasible (a variable with every state forbidden or an
	// edge with every pair forbidden; Assignment is nil) or Failed (NaN).
	Status     solver.Status
	Assignment []int   // rounded and polished assignment of the pairwise model's variables
	Energy     float64 // its exact energy p.Energy (includes Const); +Inf if it uses a forbidden entry
	Objective  float64 // f at the final x, plus -p.Const: penalized where x uses forbidden pairs
	KKT        float64 // KKT residual of the final x
	Vertex     bool    // the final x is a vertex (every x_i a unit vector)
	X          [][]float64
	Iterations int // projected gradient steps taken
	Time       time.Duration
}

// edge is an edge table as costs (energy form, penalties in place of
// forbidden entries), indexed w[a*cj+b].
type edge struct {
	i, j int
	w    []float64
}

// problem is the relaxation over the flat vector x (block i at
// off[i]..off[i+1]).
type problem struct {
	p     *model.Pairwise
	off   []int
	u     []float64 // unary costs; 0 at forbidden states
	ok    []bool    // allowed states
	edges []edge
	scale float64
}

// Solve runs IPM-NC on p. ctx's deadline ends it with status OutOfTime,
// its cancellation with Interrupted, both with the rounding of the current
// point.
func Solve(ctx context.Context, p *model.Pairwise, s Settings) (*Result, error) {
	start := time.Now()
	maxIter := s.MaxIter
	if maxIter <= 0 {
		maxIter = DefaultMaxIter
	}
	tol := s.Tol
	if tol <= 0 {
		tol = DefaultTol
	}
	r := &Result{Energy: math.Inf(1), Objective: math.Inf(1)}
	defer func() { r.Time = time.Since(start) }()
	pr, feasible := newProblem(p)
	if !feasible {
		r.Status = solver.Infeasible
		return r, nil
	}
	N := pr.off[len(pr.off)-1]
	x, g, d, hd, y := make([]float64, N), make([]float64, N), make([]float64, N), make([]float64, N), make([]float64, N)
	for i := 0; i+1 < len(pr.off); i++ {
		lo, hi := pr.off[i], pr.off[i+1]
		c := 0
		for k := lo; k < hi; k++ {
			if pr.ok[k] {
				c++
			}
		}
		for k := lo; k < hi; k++ {
			if pr.ok[k] {
				x[k] = 1 / float64(c)
			}
		}
	}
	pr.grad(x, g)
	f := pr.objective(x, g)
	kkt := pr.kkt(x, g)
	alpha0 := 1 / pr.scale
	alpha, alphaMin, alphaMax := alpha0, 1e-10*alpha0, 1e10*alpha0
	trace := func(step float64) {
		if s.Trace != nil {
			s.Trace(Iterate{Iter: r.Iterations, Objective: f - p.Const, KKT: kkt, Step: step})
		}
	}
	trace(0)
	stall := 0
	for {
		if math.IsNaN(f) || math.IsNaN(kkt) {
			r.Status = solver.Failed
			break
		}
		if kkt <= tol {
			r.Status = solver.Solved
			break
		}
		if stall >= stallIters {
			r.Status = solver.SolvedInaccurate
			break
		}
		if ctx != nil && ctx.Err() != nil {
			r.Status = solver.StopStatus(ctx)
			break
		}
		if r.Iterations >= maxIter {
			r.Status = solver.MaxIterations
			break
		}
		// d = P(x - alpha g) - x, projected into y.
		for k := range y {
			y[k] = x[k] - alpha*g[k]
		}
		pr.project(y)
		var gd, dd float64
		for k := range d {
			d[k] = y[k] - x[k]
			gd += g[k] * d[k]
			dd += d[k] * d[k]
		}
		if !(gd < 0) {
			// No descent (d = 0 to roundoff): x is stationary for this
			// alpha up to rounding; try a longer step next time.
			stall++
			alpha = math.Min(alphaMax, 10*alpha)
			r.Iterations++
			trace(0)
			continue
		}
		pr.hmul(d, hd)
		var dhd float64
		for k := range d {
			dhd += d[k] * hd[k]
		}
		q := dhd / 2
		step := 1.0
		if q > 0 {
			step = math.Min(1, -gd/(2*q))
		}
		if step == 1 {
			copy(x, y)
		} else {
			for k := range x {
				x[k] += step * d[k]
			}
		}
		r.Iterations++
		if r.Iterations%refreshEvery == 0 {
			pr.grad(x, g)
		} else {
			for k := range g {
				g[k] += step * hd[k]
			}
		}
		fOld := f
		f = pr.objective(x, g)
		if dec := step*gd + step*step*q; -dec <= 1e-15*(1+math.Abs(fOld)) {
			stall++
		} else {
			stall = 0
		}
		kkt = pr.kkt(x, g)
		if dhd > 0 {
			alpha = math.Min(alphaMax, math.Max(alphaMin, dd/dhd))
		} else {
			alpha = alphaMax
		}
		trace(step)
	}
	pr.grad(x, g)
	f = pr.objective(x, g)
	r.Objective = f - p.Const
	r.KKT = pr.kkt(x, g)
	if r.Status == solver.Failed {
		return r, nil
	}
	r.X = make([][]float64, p.NumVars())
	r.Vertex = true
	xr := make([]int, p.NumVars())
	for i := range r.X {
		blk := x[pr.off[i]:pr.off[i+1]]
		r.X[i] = append([]float64(nil), blk...)
		best, nz := -1, 0
		for a, v := range blk {
			if !pr.ok[pr.off[i]+a] {
				continue
			}
			if v != 0 {
				nz++
			}
			if best < 0 || v > blk[best] {
				best = a
			}
		}
		xr[i] = best
		if nz != 1 {
			r.Vertex = false
		}
	}
	local := icm.NewLocal(p)
	e := local.Improve(xr)
	if math.IsInf(e, 1) {
		if z := pr.repair(r.X); z != nil {
			if ez := local.Improve(z); ez < e {
				xr, e = z, ez
			}
		}
	}
	r.Assignment, r.Energy = xr, e
	return r, nil
}

// newProblem builds the costs and penalties of the package comment; it
// reports false if a variable has every state forbidden or an edge every
// pair.
func newProblem(p *model.Pairwise) (*problem, bool) {
	n := p.NumVars()
	pr := &problem{p: p, off: make([]int, n+1)}
	for i, c := range p.Card {
		pr.off[i+1] = pr.off[i] + c
	}
	N := pr.off[n]
	pr.u, pr.ok = make([]float64, N), make([]bool, N)
	rng := make([]float64, n) // R_i
	for i := range p.Unary {
		t := &p.Unary[i]
		lo, hi := math.Inf(1), math.Inf(-1)
		for a, w := range t.Log {
			if t.IsForbidden(a) {
				continue
			}
			k := pr.off[i] + a
			pr.ok[k], pr.u[k] = true, -w
			lo, hi = math.Min(lo, -w), math.Max(hi, -w)
		}
		if lo > hi {
			return nil, false
		}
		rng[i] = hi - lo
	}
	lows := make([]float64, len(p.Edges))
	for e := range p.Edges {
		ed := &p.Edges[e]
		lo, hi := math.Inf(1), math.Inf(-1)
		for k, w := range ed.Log {
			if !ed.IsForbidden(k) {
				lo, hi = math.Min(lo, -w), math.Max(hi, -w)
			}
		}
		if lo > hi {
			return nil, false
		}
		lows[e] = lo
		rng[ed.I] += hi - lo
		rng[ed.J] += hi - lo
	}
	pr.scale = 1
	for _, v := range rng {
		pr.scale = math.Max(pr.scale, v)
	}
	pr.edges = make([]edge, len(p.Edges))
	for e := range p.Edges {
		ed := &p.Edges[e]
		pen := lows[e] + 1 + math.Max(rng[ed.I], rng[ed.J])
		w := make([]float64, len(ed.Log))
		for k, v := range ed.Log {
			if ed.IsForbidden(k) {
				w[k] = pen
			} else {
				w[k] = -v
			}
		}
		pr.edges[e] = edge{i: ed.I, j: ed.J, w: w}
	}
	return pr, true
}

// hmul sets out = H d: out_i = sum_{j in N(i)} W_ij d_j.
func (pr *problem) hmul(d, out []float64) {
	for k := range out {
		out[k] = 0
	}
	pr.addH(d, out)
}

func (pr *problem) addH(d, out []float64) {
	for e := range pr.edges {
		ed := &pr.edges[e]
		oi, oj := pr.off[ed.i], pr.off[ed.j]
		ci, cj := pr.off[ed.i+1]-oi, pr.off[ed.j+1]-oj
		di, dj := d[oi:oi+ci], d[oj:oj+cj]
		hi, hj := out[oi:oi+ci], out[oj:oj+cj]
		for a := 0; a < ci; a++ {
			row := ed.w[a*cj : (a+1)*cj]
			var s float64
			da := di[a]
			for b, w := range row {
				s += w * dj[b]
				hj[b] += w * da
			}
			hi[a] += s
		}
	}
}

// grad sets g = u + H x.
func (pr *problem) grad(x, g []float64) {
	copy(g, pr.u)
	pr.addH(x, g)
}

// objective returns f(x) = <u, x> + x^T H x / 2 = <u + g, x> / 2 for g =
// grad f(x).
func (pr *problem) objective(x, g []float64) float64 {
	var s float64
	for k, v := range x {
		if v != 0 {
			s += (pr.u[k] + g[k]) * v
		}
	}
	return s / 2
}

// kkt returns the KKT residual of the package comment.
func (pr *problem) kkt(x, g []float64) float64 {
	res := 0.0
	for i := 0; i+1 < len(pr.off); i++ {
		lo, hi := pr.off[i], pr.off[i+1]
		var lam float64
		for k := lo; k < hi; k++ {
			lam += x[k] * g[k]
		}
		for k := lo; k < hi; k++ {
			if !pr.ok[k] {
				continue
			}
			res = math.Max(res, x[k]*math.Abs(g[k]-lam))
			res = math.Max(res, lam-g[k])
		}
	}
	return res / pr.scale
}

// project replaces each block of y by its Euclidean projection onto the
// simplex over the block's allowed states (forbidden states set to 0). A
// block with one positive entry gets exactly 1 there.
func (pr *problem) project(y []float64) {
	var buf []float64
	for i := 0; i+1 < len(pr.off); i++ {
		blk := y[pr.off[i]:pr.off[i+1]]
		ok := pr.ok[pr.off[i]:pr.off[i+1]]
		buf = buf[:0]
		for a, v := range blk {
			if ok[a] {
				buf = append(buf, v)
			}
		}
		// Threshold theta with sum_a max(y_a - theta, 0) = 1 (Held, Wolfe
		// and Crowder 1974; sort descending).
		sort.Sort(sort.Reverse(sort.Float64Slice(buf)))
		var cum, theta float64
		for k, v := range buf {
			cum += v
			if t := (cum - 1) / float64(k+1); k+1 == len(buf) || buf[k+1] <= t {
				theta = t
				break
			}
		}
		pos, last := 0, -1
		for a, v := range blk {
			if !ok[a] || v <= theta {
				blk[a] = 0
				continue
			}
			blk[a] = v - theta
			pos, last = pos+1, a
		}
		if pos == 1 {
			blk[last] = 1
		}
	}
}

// repair looks for an assignment of finite energy by depth-first search over
// the variables in order, trying the allowed states of each in decreasing
// x_i(a) and checking the edges to earlier variables; nil if none is found
// within repairNodes nodes.
func (pr *problem) repair(x [][]float64) []int {
	p := pr.p
	n := p.NumVars()
	if n == 0 {
		return []int{}
	}
	adj := p.Adjacency()
	order := make([][]int, n)
	for i := range order {
		for a := range x[i] {
			if pr.ok[pr.off[i]+a] {
				order[i] = append(order[i], a)
			}
		}
		xi := x[i]
		sort.SliceStable(order[i], func(s, t int) bool { return xi[order[i][s]] > xi[order[i][t]] })
	}
	z := make([]int, n)
	pos := make([]int, n) // next candidate index per variable
	nodes := 0
	i := 0
	for i >= 0 && i < n {
		placed := false
		for pos[i] < len(order[i]) {
			a := order[i][pos[i]]
			pos[i]++
			nodes++
			if nodes > repairNodes {
				return nil
			}
			if pr.consistent(adj[i], i, a, z) {
				z[i], placed = a, true
				break
			}
		}
		if placed {
			i++
			if i < n {
				pos[i] = 0
			}
		} else {
			i--
		}
	}
	if i < 0 {
		return nil
	}
	return z
}

// consistent reports whether state a of variable i uses no forbidden pair
// with the variables before i in z.
func (pr *problem) consistent(adj []model.Neighbor, i, a int, z []int) bool {
	for _, nb := range adj {
		if nb.Var < i && pr.p.Edges[nb.Edge].IsForbidden(pr.p.EdgeEntry(nb, a, z[nb.Var])) {
			return false
		}
	}
	return true
}
