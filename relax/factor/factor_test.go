package factor

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

func build(t *testing.T, p *model.Pairwise) *sdr.Problem {
	t.Helper()
	prob, err := sdr.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	return prob
}

// remark is the example of the paper's remark in section 2.1 (docs/relaxation.md, Small cases),
// maximization convention: minimum energy -1, and the SDR with P is tight.
func remark() *model.Pairwise {
	return &model.Pairwise{
		Card:  []int{2, 2},
		Unary: []model.Table{{Log: []float64{-2, 0}}, {Log: []float64{3, 0}}},
		Edges: []model.Edge{{I: 0, J: 1, Table: model.Table{Log: []float64{0, -2, -2, 0}}}},
	}
}

// pdb1akg is the shipped UAI 2008 side-chain model (14 variables, 2 to 18
// states, forbidden entries).
func pdb1akg(t *testing.T) *sdr.Problem {
	m, err := uai.ReadModelFile("../../testdata/uai2008_pdb1akg.uai.xz")
	if err != nil {
		t.Fatal(err)
	}
	pw, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	return build(t, pw)
}

func grid(t *testing.T, rows, cols, labels int, seed uint64) *sdr.Problem {
	p, err := gen.PottsGrid(rows, cols, labels, 1, seed).Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	return build(t, p)
}

// binary returns a frustrated binary model (gen.Binary).
func binary(t *testing.T, n int, degree float64, seed uint64) *sdr.Problem {
	p, err := gen.Binary(n, degree, seed).Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	return build(t, p)
}

// forbidden returns a random model with zero-probability entries (E4 rows
// and removed states) and an assignment of finite energy.
func forbidden(t *testing.T, seed uint64) *sdr.Problem {
	r := rand.New(rand.NewPCG(seed, 3))
	for {
		m := randmodel.New(r, randmodel.Options{Vars: 5, MaxCard: 4, Factors: 8, MaxArity: 2, Forbidden: 0.2})
		p, err := m.Pairwise(nil)
		if err != nil {
			continue
		}
		free := []int{-1, -1, -1, -1, -1}
		if e, _ := randmodel.BruteForce(m, free); math.IsInf(e, 1) {
			continue
		}
		prob, err := sdr.Build(p)
		if err == nil && prob.Y.Len > prob.Y.E4 {
			return prob
		}
	}
}

// randomALM returns the ALM of prob at penalty sigma with random
// multipliers (mu >= 0) and a random factor of rank r (off the affine set).
func randomALM(prob *sdr.Problem, sigma float64, r int, rng *rand.Rand) (*alm, *mat.Dense) {
	a := newALM(prob, sigma)
	for k := prob.Y.E3; k < prob.Y.Len; k++ {
		a.lam[k] = rng.NormFloat64()
	}
	for k := range a.mu {
		a.mu[k] = max(0, rng.NormFloat64())
	}
	v := initial(prob, r, 7)
	n, c := v.Dims()
	for i := 1; i < n; i++ {
		for j := range c {
			v.Set(i, j, v.At(i, j)+0.3*rng.NormFloat64())
		}
	}
	return a, v
}

// TestLagrangian checks eval against the augmented Lagrangian written with
// sdr's own operators A and P (docs/relaxation.md, Factor ALM), and its gradient against
// central differences along random directions of the affine set, on a model
// with forbidden entries and on a grid large enough for terms and tangent
// to run on two halves.
func TestLagrangian(t *testing.T) {
	checkLagrangian(t, forbidden(t, 1), 4)
	big := grid(t, 46, 46, 3, 1)
	if len(big.Edges) < splitTerms || big.N()*24 < splitTangent {
		t.Fatalf("%d edges and %d rows: too small to split", len(big.Edges), big.N())
	}
	checkLagrangian(t, big, 24)
}

func checkLagrangian(t *testing.T, prob *sdr.Problem, rank int) {
	r := rand.New(rand.NewPCG(5, 6))
	a, v := randomALM(prob, 3.7, rank, r)
	n, c := v.Dims()
	project(prob, v) // back onto the affine set (row 0 is zero after project)
	v.Set(0, 0, 1)
	for i, mi := range prob.Card {
		for a := range mi {
			v.Set(prob.Offset[i]+a, 0, v.At(prob.Offset[i]+a, 0)+1/float64(mi))
		}
	}
	retract(prob, v)
	g := mat.NewDense(n, c, nil)
	f := a.eval(v, g)

	x := sdr.NewSym(prob)
	x.PatternOf(v)
	ax, px := prob.A(x, nil), prob.P(x, nil)
	want := prob.PrimalObjective(x) / a.scale
	for k := prob.Y.E3; k < prob.Y.Len; k++ {
		want += a.lam[k]*ax[k] + a.sigma/2*ax[k]*ax[k]
	}
	for k, gk := range px {
		want += (math.Pow(max(0, a.mu[k]-a.sigma*gk), 2) - a.mu[k]*a.mu[k]) / (2 * a.sigma)
	}
	if math.Abs(f-want) > 1e-10*(1+math.Abs(want)) {
		t.Fatalf("L = %.15g, from sdr's operators %.15g", f, want)
	}
	for trial := range 5 {
		d := mat.NewDense(n, c, nil)
		for i := range n {
			for j := range c {
				d.Set(i, j, r.NormFloat64())
			}
		}
		tangent(prob, v, d, 1)
		const h = 1e-6
		var vp, vm mat.Dense
		vp.Add(v, scaled(h, d))
		vm.Add(v, scaled(-h, d))
		scratch := mat.NewDense(n, c, nil)
		fd := (a.eval(&vp, scratch) - a.eval(&vm, scratch)) / (2 * h)
		an := floats.Dot(flat(g), flat(d))
		if math.Abs(fd-an) > 1e-6*(1+math.Abs(an)) {
			t.Fatalf("direction %d: derivative %.12g, finite differences %.12g", trial, an, fd)
		}
	}
}

// TestHessDiag checks the diagonal of L's Hessian, which preconditions the
// L-BFGS, against second differences of eval (exact for L, quadratic in
// each entry away from kinks), at a random point with random multipliers.
func TestHessDiag(t *testing.T) {
	for _, prob := range []*sdr.Problem{forbidden(t, 1), forbidden(t, 2), grid(t, 2, 3, 3, 1)} {
		a, v := randomALM(prob, 2.3, 3, rand.New(rand.NewPCG(8, 9)))
		n, c := v.Dims()
		scratch := mat.NewDense(n, c, nil)
		f0 := a.eval(v, scratch)
		d := mat.NewDense(n, c, nil)
		a.hessDiag(v, d)
		if floats.Min(flat(d)) == floats.Max(flat(d)) {
			t.Fatal("constant diagonal")
		}
		const h = 1e-4
		for i, mi := range prob.Card {
			for s := range mi {
				k := prob.Offset[i] + s
				for col := range c {
					want := d.At(k, col)
					x := v.At(k, col)
					v.Set(k, col, x+h)
					fp := a.eval(v, scratch)
					v.Set(k, col, x-h)
					fm := a.eval(v, scratch)
					v.Set(k, col, x)
					if fd := (fp - 2*f0 + fm) / (h * h); math.Abs(fd-want) > 1e-4*(1+math.Abs(want)) {
						t.Errorf("entry (%d, %d): diagonal %.10g, second difference %.10g", k, col, want, fd)
					}
				}
			}
		}
	}
}

func scaled(s float64, m *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Scale(s, m)
	return &out
}

func solveFactor(t *testing.T, prob *sdr.Problem, tol float64) *Result {
	t.Helper()
	s := DefaultSettings()
	s.Tol, s.TolLoose = tol, tol
	s.MaxIter = 200
	res, err := Solve(context.Background(), prob, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestMatchesDense: the factor ALM reaches the optimum of the dense SDPAD
// (which matches CSDP, solver/sdpad TestCSDP) within 1e-5 relative on the
// remark example, Potts grids, a model with forbidden entries and pdb1akg,
// with a certified bound at most the optimum and within 1e-3 of it.
func TestMatchesDense(t *testing.T) {
	probs := map[string]*sdr.Problem{
		"remark": build(t, remark()), "grid3x4": grid(t, 3, 4, 3, 1), "grid4x4x4": grid(t, 4, 4, 4, 2),
		"forbidden": forbidden(t, 2),
	}
	probs["pdb1akg"] = pdb1akg(t)
	for name, p := range probs {
		ds := sdpad.DefaultSettings()
		ds.Tol, ds.MaxIter = 1e-8, 20000
		d, err := sdpad.Solve(context.Background(), p, ds)
		if err != nil || d.Status != solver.Solved {
			t.Fatalf("%s: dense SDPAD %v %v after %d: gap %.2e pinf %.2e dinf %.2e", name, d.Status, err, d.Iterations, d.Gap, d.PrimalInfeasibility, d.FaceDualInfeasibility)
		}
		f := solveFactor(t, p, 1e-6)
		scale := 1 + math.Abs(d.PrimalObjective)
		if f.Status != solver.Solved {
			t.Fatalf("%s: status %v after %d iterations (gap %.2e pinf %.2e dinf %.2e)", name, f.Status, f.Iterations, f.Gap, f.PrimalInfeasibility, f.DualInfeasibility)
		}
		if diff := math.Abs(f.PrimalObjective - d.PrimalObjective); diff > 1e-5*scale {
			t.Errorf("%s: factor %.10g, dense %.10g", name, f.PrimalObjective, d.PrimalObjective)
		}
		if f.SDRBound > d.PrimalObjective+1e-7*scale || f.SDRBound < d.PrimalObjective-1e-3*scale {
			t.Errorf("%s: bound %.10g, optimum %.10g", name, f.SDRBound, d.PrimalObjective)
		}
		theorem1(t, name, p, f)
	}
}

// theorem1 checks X_ij 1 = x_i and X_ij^T 1 = x_j (the paper's Theorem 1)
// on the edges of the factor's Xbar, up to the infeasibility.
func theorem1(t *testing.T, name string, p *sdr.Problem, f *Result) {
	t.Helper()
	x := sdr.NewSym(p)
	x.PatternOf(f.Factor)
	for e, ed := range p.Edges {
		mi, mj := p.Card[ed.I], p.Card[ed.J]
		for a := range mi {
			s := 0.0
			for b := range mj {
				s += x.Edge[e][a*mj+b]
			}
			if d := math.Abs(s - x.Row0[p.Offset[ed.I]+a]); d > 1e-4 {
				t.Fatalf("%s: edge %d row %d sums to %g, x = %g", name, e, a, s, x.Row0[p.Offset[ed.I]+a])
			}
		}
	}
}

// TestBoundBelowMinimum: on 1,000 random tiny models (mixed cardinalities,
// forbidden entries) the certified bound of every certified iterate and the
// final one (after the closing inner solve, in at least 50 of the runs) are
// at most the brute-force minimum energy.
func TestBoundBelowMinimum(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	count, certified, closed := 0, 0, 0
	for count < 1000 {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(4), MaxCard: 4, Factors: r.IntN(8), MaxArity: 2,
			Forbidden: []float64{0, 0.1, 0.25}[r.IntN(3)], Constant: true})
		pw, err := m.Pairwise(nil)
		if err != nil {
			continue
		}
		prob, err := sdr.Build(pw)
		if errors.Is(err, sdr.ErrInfeasible) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		free := make([]int, m.NumVars())
		for v := range free {
			free[v] = -1
		}
		minE, _ := randmodel.BruteForce(m, free)
		count++
		s := DefaultSettings()
		s.MaxIter, s.Seed = 30, uint64(count)
		if count%2 == 1 {
			// Truncated inner solves: the closing inner solve runs more often.
			s.MaxIter, s.InnerIter = 10, 5
		}
		worst := math.Inf(-1)
		s.Monitor = func(it *Iterate) { worst = max(worst, it.Bound-prob.Const) }
		res, err := Solve(context.Background(), prob, s)
		if err != nil {
			t.Fatal(err)
		}
		worst = max(worst, res.EnergyBound)
		if !math.IsInf(worst, -1) {
			certified++
		}
		if res.Closing > 0 {
			closed++
		}
		if worst > minE+1e-9*(1+math.Abs(minE)) {
			t.Fatalf("model %d: bound %.12g above the minimum energy %.12g", count, worst, minE)
		}
	}
	if certified < 900 {
		t.Fatalf("only %d of 1000 models got a certified bound", certified)
	}
	if closed < 50 {
		t.Fatalf("only %d of 1000 runs ended with the closing inner solve", closed)
	}
}

// TestWarmStart: restarting from a solution (factor and multipliers) takes
// at most a quarter of the outer iterations of the cold start.
func TestWarmStart(t *testing.T) {
	p := grid(t, 5, 5, 4, 3)
	cold := solveFactor(t, p, 1e-5)
	s := DefaultSettings()
	s.Tol = 1e-5
	s.Start = &Start{Factor: cold.Factor, Y: cold.Y, Z: cold.Z}
	warm, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if warm.Status != solver.Solved || 4*warm.Iterations > cold.Iterations || warm.Inner*4 > cold.Inner {
		t.Fatalf("warm start: %v after %d outer / %d inner iterations, cold %d / %d", warm.Status, warm.Iterations, warm.Inner, cold.Iterations, cold.Inner)
	}
}

// TestInterrupted: a cancelled context stops the run with status
// Interrupted and a factor on the affine set.
func TestInterrupted(t *testing.T) {
	p := grid(t, 6, 6, 4, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Solve(ctx, p, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Interrupted || res.Factor == nil || res.Iterations != 1 {
		t.Fatalf("status %v, %d iterations", res.Status, res.Iterations)
	}
	for i, mi := range p.Card {
		for c := range res.Rank {
			s := 0.0
			for a := range mi {
				s += res.Factor.At(p.Offset[i]+a, c)
			}
			if want := res.Factor.At(0, c); math.Abs(s-want) > 1e-12 {
				t.Fatalf("variable %d column %d: rows sum to %g, row 0 has %g", i, c, s, want)
			}
		}
	}
}

// TestSettings: invalid settings are errors, not panics.
func TestSettings(t *testing.T) {
	p := build(t, remark())
	for name, mod := range map[string]func(*Settings){
		"tol":      func(s *Settings) { s.Tol = -1 },
		"tol nan":  func(s *Settings) { s.Tol = math.NaN() },
		"rank":     func(s *Settings) { s.Rank = 0 },
		"max rank": func(s *Settings) { s.MaxRank = 2 },
		"sigma":    func(s *Settings) { s.Sigma0 = 0 },
		"iter":     func(s *Settings) { s.MaxIter = 0 },
		"closing":  func(s *Settings) { s.CloseIter = -1 },
		"probe":    func(s *Settings) { s.Probe, s.ProbeEvery = func(*Result) bool { return false }, 0 },
	} {
		s := DefaultSettings()
		mod(&s)
		if _, err := Solve(context.Background(), p, s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestDeterministic: the same seed gives the same factor, bit for bit.
func TestDeterministic(t *testing.T) {
	p := grid(t, 8, 8, 3, 5)
	a, b := solveFactor(t, p, 1e-4), solveFactor(t, p, 1e-4)
	if !mat.Equal(a.Factor, b.Factor) || a.SDRBound != b.SDRBound || a.Inner != b.Inner {
		t.Fatalf("two runs differ: bounds %.17g, %.17g; %d, %d L-BFGS iterations", a.SDRBound, b.SDRBound, a.Inner, b.Inner)
	}
}

// TestDeadline: the run ends at its time limit, within a second, with
// status OutOfTime, a factor, and a closing inner solve in the fifth of
// the time kept for it.
func TestDeadline(t *testing.T) {
	p := grid(t, 40, 40, 5, 6)
	s := DefaultSettings()
	limit := 300 * time.Millisecond
	if raceEnabled {
		limit *= 10
	}
	t0 := time.Now()
	res, err := Solve(within(t, limit), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); res.Status != solver.OutOfTime || took > limit+time.Second || res.Factor == nil {
		t.Fatalf("status %v after %v", res.Status, took)
	}
	if res.Closing == 0 {
		t.Fatal("no closing inner solve in the time kept for it")
	}
}

// TestSphere: for binary variables, retract puts a point of the affine set
// on E3 exactly (v_i0 . v_i1 = 0, rows summing to e_1); tangent is a
// projection (idempotent) whose result keeps the block sums and is
// orthogonal to u_i = v_i0 - v_i1; binaryMultipliers makes the rows of
// m V agree along u_i.
func TestSphere(t *testing.T) {
	prob := grid(t, 3, 3, 2, 4)
	v := initial(prob, 5, 9)
	n, c := v.Dims()
	r := rand.New(rand.NewPCG(7, 8))
	for i := range prob.Card {
		o := prob.Offset[i]
		for col := range c {
			w := 0.4 * r.NormFloat64()
			v.Set(o, col, v.At(o, col)+w)
			v.Set(o+1, col, v.At(o+1, col)-w)
		}
	}
	retract(prob, v)
	for i := range prob.Card {
		o := prob.Offset[i]
		v0, v1 := v.RawRowView(o), v.RawRowView(o+1)
		if h := floats.Dot(v0, v1); math.Abs(h) > 1e-14 {
			t.Errorf("variable %d: v_i0 . v_i1 = %g after retract", i, h)
		}
		for col := range c {
			want := 0.0
			if col == 0 {
				want = 1
			}
			if s := v0[col] + v1[col]; math.Abs(s-want) > 1e-14 {
				t.Errorf("variable %d, column %d: rows sum to %g", i, col, s)
			}
		}
	}
	g := mat.NewDense(n, c, nil)
	for i := 1; i < n; i++ {
		for col := range c {
			g.Set(i, col, r.NormFloat64())
		}
	}
	tangent(prob, v, g, 1)
	g2 := mat.DenseCopyOf(g)
	tangent(prob, v, g2, 1)
	if !mat.EqualApprox(g, g2, 1e-14) {
		t.Error("tangent is not idempotent")
	}
	for i := range prob.Card {
		o := prob.Offset[i]
		u := make([]float64, c)
		floats.SubTo(u, v.RawRowView(o), v.RawRowView(o+1))
		if d := floats.Dot(u, g.RawRowView(o)); math.Abs(d) > 1e-12 {
			t.Errorf("variable %d: tangent has radial part %g", i, d)
		}
		s := make([]float64, c)
		floats.AddTo(s, g.RawRowView(o), g.RawRowView(o+1))
		if nrm := floats.Norm(s, 2); nrm > 1e-14 {
			t.Errorf("variable %d: tangent rows sum to norm %g", i, nrm)
		}
	}
	a := newALM(prob, 2)
	a.bin = false // the rows of V, as on models with more than two states
	a.eval(v, g)
	a.r = mat.NewDense(n, c, nil)
	a.m.MulMat(a.r, v)
	a.binaryMultipliers(v)
	for i := range prob.Card {
		o := prob.Offset[i]
		u, d := make([]float64, c), make([]float64, c)
		floats.SubTo(u, v.RawRowView(o), v.RawRowView(o+1))
		floats.SubTo(d, a.r.RawRowView(o), a.r.RawRowView(o+1))
		if x := floats.Dot(u, d); math.Abs(x) > 1e-12 {
			t.Errorf("variable %d: (R_i0 - R_i1) . u = %g after binaryMultipliers", i, x)
		}
	}
	// The multipliers are what the rows say: m V recomputed with them agrees.
	a.eval(v, g)
	want := mat.DenseCopyOf(a.r)
	a.m.MulMat(a.r, v)
	if !mat.EqualApprox(a.r, want, 1e-12) {
		t.Error("m V with the new multipliers differs from binaryMultipliers' update of R")
	}
}

// TestClosing: after a run cut short (inner solves capped at 10 L-BFGS
// iterations), the closing inner solve tightens the certified bound, which
// stays at most the SDR optimum (dense SDPAD to 1e-7), and leaves the
// run's factor as it was.
func TestClosing(t *testing.T) {
	for _, tc := range []struct {
		name         string
		p            *sdr.Problem
		outer, inner int
	}{{"binary", binary(t, 40, 3, 5), 4, 5}, {"grid6x6x3", grid(t, 6, 6, 3, 6), 6, 20}, {"forbidden", forbidden(t, 3), 6, 10}} {
		ds := sdpad.DefaultSettings()
		ds.Tol, ds.MaxIter = 1e-7, 20000
		d, err := sdpad.Solve(context.Background(), tc.p, ds)
		if err != nil || d.Status != solver.Solved {
			t.Fatalf("%s: dense SDPAD %v %v", tc.name, d.Status, err)
		}
		run := func(closeIter int) *Result {
			s := DefaultSettings()
			s.Tol, s.TolLoose, s.MaxIter, s.InnerIter, s.CloseIter = 1e-7, 1e-2, tc.outer, tc.inner, closeIter
			res, err := Solve(context.Background(), tc.p, s)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		open, closed := run(0), run(300)
		scale := 1 + math.Abs(d.PrimalObjective)
		t.Logf("%s: optimum %.8g, bound %.8g without the closing solve, %.8g after %d iterations of it (pinf %.1e)", tc.name, d.PrimalObjective, open.SDRBound, closed.SDRBound, closed.Closing, open.PrimalInfeasibility)
		if closed.Closing == 0 || open.Closing != 0 {
			t.Fatalf("%s: closing iterations %d with CloseIter 300, %d without", tc.name, closed.Closing, open.Closing)
		}
		if !(closed.SDRBound > open.SDRBound) || closed.SDRBound > d.PrimalObjective+1e-7*scale {
			t.Errorf("%s: bound %.10g after the closing solve, %.10g before, optimum %.10g", tc.name, closed.SDRBound, open.SDRBound, d.PrimalObjective)
		}
		if !mat.Equal(open.Factor, closed.Factor) || open.PrimalObjective != closed.PrimalObjective {
			t.Errorf("%s: the closing solve changed the run's factor", tc.name)
		}
	}
}

// TestBinaryPoint checks the iteration on U of all-binary models against
// the one on V: the same L, the gradient in u_i equal to the tangent
// gradient's row i0, central differences along the spheres, and point and
// factor inverse to each other; the second model is large enough for the
// evaluation on U to run on two halves.
func TestBinaryPoint(t *testing.T) {
	big := binary(t, 20000, 3, 2)
	if len(big.Card)*8 < splitTangent {
		t.Fatalf("%d variables at rank 8: too few to split", len(big.Card))
	}
	checkBinaryPoint(t, binary(t, 15, 3, 2), 5)
	checkBinaryPoint(t, big, 8)
}

func checkBinaryPoint(t *testing.T, prob *sdr.Problem, rank int) {
	r := rand.New(rand.NewPCG(3, 4))
	a, v := randomALM(prob, 2.9, rank, r)
	if !a.bin {
		t.Fatal("an all-binary model does not run on U")
	}
	retract(prob, v)
	u := a.point(v)
	if back := a.factor(u); !mat.EqualApprox(back, v, 1e-14) {
		t.Fatal("factor(point(V)) differs from V")
	}
	n, c := u.Dims()
	g := mat.NewDense(n, c, nil)
	f := a.eval(u, g)

	b := newALM(prob, a.sigma)
	b.bin = false
	copy(b.lam, a.lam)
	copy(b.mu, a.mu)
	gv := mat.NewDense(prob.N(), c, nil)
	if fv := b.eval(v, gv); math.Abs(f-fv) > 1e-12*(1+math.Abs(fv)) {
		t.Fatalf("L on U %.15g, on V %.15g", f, fv)
	}
	for i := range prob.Card {
		if !floats.EqualApprox(g.RawRowView(i), gv.RawRowView(prob.Offset[i]), 1e-12) {
			t.Fatalf("variable %d: gradient in u %v, tangent gradient on V %v", i, g.RawRowView(i), gv.RawRowView(prob.Offset[i]))
		}
	}
	for trial := range 5 {
		d := mat.NewDense(n, c, nil)
		for i := range n {
			for j := range c {
				d.Set(i, j, r.NormFloat64())
			}
		}
		sphereTangent(u, d)
		const h = 1e-6
		var up, um mat.Dense
		up.Add(u, scaled(h, d))
		um.Add(u, scaled(-h, d))
		a.retract(&up)
		a.retract(&um)
		scratch := mat.NewDense(n, c, nil)
		fd := (a.eval(&up, scratch) - a.eval(&um, scratch)) / (2 * h)
		if an := floats.Dot(flat(g), flat(d)); math.Abs(fd-an) > 1e-6*(1+math.Abs(an)) {
			t.Fatalf("direction %d: derivative %.12g, finite differences %.12g", trial, an, fd)
		}
	}
}

// TestClosingCut: a closing solve whose certificate the deadline cuts short
// still hands its dual point to the refinement (BestY, BestZ) and leaves
// the bound as it was.
func TestClosingCut(t *testing.T) {
	p := binary(t, 2000, 3, 5)
	s := DefaultSettings()
	a := newALM(p, s.Sigma0)
	in := newInner(a, a.point(initial(p, s.Rank, 1)), s.Memory)
	in.minimize(a, 0, 5, func() bool { return false })
	a.update()
	res := &Result{SDRBound: math.Inf(-1), EnergyBound: math.Inf(-1), Inner: 5}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	closeDual(ctx, a, in.v(), newCertifier(p, s.CertifyRank), res, &s)
	if res.BestY == nil || res.BestZ == nil {
		t.Fatal("no dual point to refine after a closing solve cut short")
	}
	if !math.IsInf(res.SDRBound, -1) {
		t.Errorf("bound %g from a certificate cut short", res.SDRBound)
	}
}

// TestTailInner: inner solves are capped at InnerIter until the primal
// infeasibility is within the tolerance and at tailInner times that after,
// and the longer cap is used; the run still reaches the protocol. Sigma0
// 40 puts the primal side ahead of the dual, so that the run has outer
// iterations after its primal infeasibility is within the tolerance.
func TestTailInner(t *testing.T) {
	p := grid(t, 20, 20, 5, 5)
	s := DefaultSettings()
	s.Tol, s.InnerIter, s.Sigma0 = 1e-3, 30, 40
	var its []Iterate
	s.Monitor = func(it *Iterate) { its = append(its, *it) }
	res, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Solved {
		t.Fatalf("status %v after %d iterations", res.Status, res.Iterations)
	}
	longer := false
	for k := 1; k < len(its); k++ {
		n, limit := its[k].Inner-its[k-1].Inner, s.InnerIter
		if its[k-1].PrimalInfeasibility <= s.Tol {
			limit *= tailInner
		}
		if n > limit {
			t.Fatalf("outer iteration %d: %d L-BFGS iterations, cap %d (pinf before %.2e)", its[k].K, n, limit, its[k-1].PrimalInfeasibility)
		}
		longer = longer || n > s.InnerIter
	}
	if !longer {
		t.Fatalf("no inner solve used the longer cap in %d outer iterations", len(its))
	}
}

// TestPairs: Memory 0 keeps 10 L-BFGS pairs below longPoint entries and 5
// from there; a set Memory is kept.
func TestPairs(t *testing.T) {
	for _, c := range []struct{ mem, n, want int }{{0, longPoint - 1, 10}, {0, longPoint, 5}, {7, longPoint, 7}, {3, 10, 3}} {
		if got := pairs(c.mem, c.n); got != c.want {
			t.Errorf("pairs(%d, %d) = %d, want %d", c.mem, c.n, got, c.want)
		}
	}
	s := DefaultSettings()
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	s.Memory = -1
	if s.check() == nil {
		t.Error("Memory -1 accepted")
	}
}

// TestShiftedProtocol: the reported gap and dinf are those of the dual
// point ShiftDual(Y, Shift), against its dense certificate, on runs cut
// after a few outer iterations (certified at the iteration limit).
func TestShiftedProtocol(t *testing.T) {
	shifted := 0
	for _, tc := range []struct {
		name string
		p    *sdr.Problem
	}{{"binary", binary(t, 40, 3, 5)}, {"grid6x6x3", grid(t, 6, 6, 3, 6)}, {"forbidden", forbidden(t, 3)}} {
		for outer := 1; outer <= 6; outer++ {
			s := DefaultSettings()
			s.Tol, s.TolLoose, s.MaxIter, s.InnerIter, s.CloseIter = 1e-7, 1e-7, outer, 10, 0
			res, err := Solve(context.Background(), tc.p, s)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(res.DualInfeasibility) || res.Shift < 0 {
				t.Fatalf("%s after %d: dinf %v, shift %v", tc.name, outer, res.DualInfeasibility, res.Shift)
			}
			ys := tc.p.ShiftDual(res.Y, res.Shift)
			c, err := tc.p.Certify(ys, res.Z)
			if err != nil {
				t.Fatal(err)
			}
			if g := sdr.Gap(res.PrimalObjective, tc.p.DualObjective(ys)); math.Abs(g-res.Gap) > 1e-12*(1+g) {
				t.Errorf("%s after %d: gap %v, the shifted point's %v", tc.name, outer, res.Gap, g)
			}
			if res.DualInfeasibility < c.FaceDualInfeasibility*(1-1e-3)-1e-12 {
				t.Errorf("%s after %d: dinf %v below the shifted point's %v", tc.name, outer, res.DualInfeasibility, c.FaceDualInfeasibility)
			}
			if res.Shift > 0 {
				shifted++
			}
		}
	}
	if shifted == 0 {
		t.Fatal("no run chose a shift")
	}
}

// within returns a context with a deadline d from now, cancelled at the
// end of the test.
func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
