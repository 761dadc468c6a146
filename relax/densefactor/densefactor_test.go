package densefactor

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/bench/peers"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/internal/sdrtest"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// feasibleDense returns a gen.Dense model with forbidden entries that has
// an assignment of finite energy and an E4 row.
func feasibleDense(t *testing.T, n, labels int, p, forbid float64, seed uint64) *sdr.Problem {
	t.Helper()
	for s := seed; ; s += 1000 {
		m := gen.Dense(n, labels, p, forbid, s)
		free := make([]int, n)
		for i := range free {
			free[i] = -1
		}
		if e, _ := randmodel.BruteForce(m, free); math.IsInf(e, 1) {
			continue
		}
		if prob := sdrtest.Problem(t, m); prob.Y.Len > prob.Y.E4 {
			return prob
		}
	}
}

// TestLagrangian checks eval against the augmented Lagrangian written with
// sdr's own operators A and P and X = V V^T on the pattern (PatternOf), and
// its gradient against central differences along a random direction of
// the affine set, on a model with forbidden entries (one band) and a
// complete graph large enough for the passes to run on two bands.
func TestLagrangian(t *testing.T) {
	checkLagrangian(t, feasibleDense(t, 5, 3, 0.7, 0.2, 1), 6)
	big := sdrtest.Problem(t, gen.Dense(30, 10, 1, 0.05, 2))
	if big.N() < minParallel {
		t.Fatalf("N = %d: too small for two bands", big.N())
	}
	checkLagrangian(t, big, 20)
}

func checkLagrangian(t *testing.T, prob *sdr.Problem, rank int) {
	r := rand.New(rand.NewPCG(5, 6))
	const sigma = 3.7
	a := newALM(prob, sigma)
	y := make([]float64, prob.Y.Len)
	for k := prob.Y.E3; k < prob.Y.Len; k++ {
		y[k] = r.NormFloat64() * a.scale
	}
	z := make([]float64, prob.NumZ)
	for k := range z {
		z[k] = max(0, r.NormFloat64()) * a.scale
	}
	a.setMultipliers(y, z)
	s := Settings{Rank: rank, Seed: 3}
	v := start(prob, a, &s)
	n, c := v.Dims()
	for i := 1; i < n; i++ {
		for j := range c {
			v.Set(i, j, v.At(i, j)+0.3*r.NormFloat64())
		}
	}
	onAffine(prob, v)
	g := mat.NewDense(n, c, nil)
	got := a.eval(v, g)

	x := sdr.NewSym(prob)
	x.PatternOf(v)
	want := prob.PrimalObjective(x) / a.scale
	ax := prob.A(x, nil)
	for k := prob.Y.E3; k < prob.Y.Len; k++ {
		lam := y[k] / a.scale
		want += lam*ax[k] + sigma/2*ax[k]*ax[k]
	}
	for k, gk := range prob.P(x, nil) {
		mu := z[k] / a.scale
		want += (math.Pow(max(0, mu-sigma*gk), 2) - mu*mu) / (2 * sigma)
	}
	if math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
		t.Fatalf("N = %d: L = %.15g, with sdr's operators %.15g", n, got, want)
	}

	d := mat.NewDense(n, c, nil)
	for i := range n {
		for j := range c {
			d.Set(i, j, r.NormFloat64())
		}
	}
	project(prob, d)
	const h = 1e-6
	vp, vm := mat.DenseCopyOf(v), mat.DenseCopyOf(v)
	vp.Add(v, scaled(h, d))
	vm.Sub(v, scaled(h, d))
	fd := (a.eval(vp, mat.NewDense(n, c, nil)) - a.eval(vm, mat.NewDense(n, c, nil))) / (2 * h)
	dir := floats.Dot(g.RawMatrix().Data, d.RawMatrix().Data)
	if math.Abs(fd-dir) > 1e-5*(1+math.Abs(dir)) {
		t.Fatalf("N = %d: directional derivative %.10g, central differences %.10g", n, dir, fd)
	}
}

func scaled(s float64, m *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Scale(s, m)
	return &out
}

func solveDense(t *testing.T, prob *sdr.Problem, tol float64) *Result {
	t.Helper()
	s := DefaultSettings()
	s.Tol, s.TolLoose = tol, tol
	res, err := Solve(context.Background(), prob, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// smallDense are the small dense models of the optimum tests: complete
// graphs with and without forbidden entries, a G(n, 0.5) graph and a
// matching model (equal labels forbidden).
func smallDense(t *testing.T) map[string]*sdr.Problem {
	return map[string]*sdr.Problem{
		"complete6x3":    sdrtest.Problem(t, gen.Dense(6, 3, 1, 0, 1)),
		"complete5x4f":   feasibleDense(t, 5, 4, 1, 0.15, 2),
		"gnp8x3":         sdrtest.Problem(t, gen.Dense(8, 3, 0.5, 0, 3)),
		"matching4x5":    sdrtest.Problem(t, gen.DenseMatching(4, 5, 4)),
		"complete8x3f":   feasibleDense(t, 8, 3, 1, 0.1, 5),
		"complete12x2":   sdrtest.Problem(t, gen.Dense(12, 2, 1, 0, 6)),
		"complete4x6gnp": sdrtest.Problem(t, gen.Dense(4, 6, 0.7, 0, 7)),
	}
}

// TestMatchesDense: the dense factor ALM reaches the optimum of the dense
// SDPAD within 1e-5 relative, with a certified bound at most the optimum
// and within 1e-3 of it.
func TestMatchesDense(t *testing.T) {
	for name, p := range smallDense(t) {
		ds := sdpad.DefaultSettings()
		ds.Tol, ds.MaxIter = 1e-8, 20000
		d, err := sdpad.Solve(context.Background(), p, ds)
		if err != nil || d.Status != solver.Solved {
			t.Fatalf("%s: dense SDPAD %v %v", name, d.Status, err)
		}
		f := solveDense(t, p, 1e-6)
		scale := 1 + math.Abs(d.PrimalObjective)
		t.Logf("%s: N = %d, %v in %d iterations (%d evaluations), rank %d: %.10g, bound %.10g; SDPAD %.10g", name, p.N(), f.Status, f.Iterations, f.Evaluations, f.Rank, f.PrimalObjective, f.SDRBound, d.PrimalObjective)
		if f.Status != solver.Solved {
			t.Fatalf("%s: status %v after %d iterations (gap %.2e pinf %.2e dinf %.2e)", name, f.Status, f.Iterations, f.Gap, f.PrimalInfeasibility, f.DualInfeasibility)
		}
		if diff := math.Abs(f.PrimalObjective - d.PrimalObjective); diff > 1e-5*scale {
			t.Errorf("%s: dense factor %.10g, SDPAD %.10g", name, f.PrimalObjective, d.PrimalObjective)
		}
		if f.SDRBound > d.PrimalObjective+1e-7*scale || f.SDRBound < d.PrimalObjective-1e-3*scale {
			t.Errorf("%s: bound %.10g, optimum %.10g", name, f.SDRBound, d.PrimalObjective)
		}
	}
}

// TestMatchesCSDP: the same optimum as CSDP's (the midpoint of its primal
// and dual objectives) within 1e-5 relative, the bound at most CSDP's
// primal objective. Without csdp on PATH it is skipped, except under CI.
func TestMatchesCSDP(t *testing.T) {
	if !peers.Available("csdp") {
		if os.Getenv("CI") != "" {
			t.Fatal("csdp not found on PATH")
		}
		t.Skip("csdp not found on PATH")
	}
	for name, p := range smallDense(t) {
		file := filepath.Join(t.TempDir(), name+".dat-s")
		if err := peers.WriteSDPAFile(file, p); err != nil {
			t.Fatal(err)
		}
		run, err := peers.CSDP(context.Background(), file, time.Minute)
		if err != nil {
			t.Fatalf("%s: csdp %v: %s (%s)", name, err, run.Status, run.Reason)
		}
		f := solveDense(t, p, 1e-6)
		want := (run.Objective + run.DualObjective) / 2
		scale := 1 + math.Abs(want)
		tol := 1e-5 * scale
		if !run.Optimal {
			tol += math.Abs(run.Objective-run.DualObjective) / 2
		}
		if f.Status != solver.Solved || math.Abs(f.PrimalObjective-want) > tol {
			t.Errorf("%s: dense factor %v %.10g, CSDP %.10g (%s)", name, f.Status, f.PrimalObjective, want, run.Status)
		}
		if f.SDRBound > run.Objective+1e-7*scale {
			t.Errorf("%s: bound %.10g above CSDP's optimum %.10g", name, f.SDRBound, run.Objective)
		}
	}
}

// TestBoundBelowMinimum: on 1,000 random tiny dense models (complete and
// G(n, p) graphs, 2 to 4 labels, forbidden entries in most) the certified
// bound of every certified iterate and the final one are at most the
// brute-force minimum energy.
func TestBoundBelowMinimum(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	count, certified, forbidden := 0, 0, 0
	for seed := uint64(0); count < 1000; seed++ {
		n, labels := 2+r.IntN(4), 2+r.IntN(3)
		m := gen.Dense(n, labels, []float64{1, 1, 0.6}[r.IntN(3)], []float64{0, 0.15, 0.3}[r.IntN(3)], seed)
		pw, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		prob, err := sdr.Build(pw)
		if errors.Is(err, sdr.ErrInfeasible) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		free := make([]int, n)
		for v := range free {
			free[v] = -1
		}
		minE, _ := randmodel.BruteForce(m, free)
		if math.IsInf(minE, 1) {
			continue
		}
		count++
		if prob.Y.Len > prob.Y.E4 {
			forbidden++
		}
		s := DefaultSettings()
		s.MaxIter, s.Seed = 20, uint64(count)
		if count%2 == 1 {
			s.MaxIter, s.InnerIter = 8, 5
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
		if worst > minE+1e-9*(1+math.Abs(minE)) {
			t.Fatalf("model %d (seed %d): bound %.12g above the minimum energy %.12g", count, seed, worst, minE)
		}
	}
	if certified < 900 || forbidden < 400 {
		t.Fatalf("%d of 1000 models certified, %d with forbidden pairs", certified, forbidden)
	}
}

// TestWarmStart: restarting from a solution (factor and multipliers) takes
// at most a quarter of the evaluations of the cold start.
func TestWarmStart(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(8, 4, 1, 0, 9))
	cold := solveDense(t, p, 1e-5)
	s := DefaultSettings()
	s.Tol = 1e-5
	s.Start = &Start{Factor: cold.Factor, Y: cold.Y, Z: cold.Z}
	warm, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if warm.Status != solver.Solved || 4*warm.Evaluations > cold.Evaluations {
		t.Fatalf("warm start: %v after %d evaluations, cold %d", warm.Status, warm.Evaluations, cold.Evaluations)
	}
}

// TestInterrupted: a cancelled context stops the run with status
// Interrupted and a factor on the affine set.
func TestInterrupted(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(10, 4, 1, 0, 4))
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
	p := sdrtest.Problem(t, gen.Dense(3, 2, 1, 0, 1))
	for name, mod := range map[string]func(*Settings){
		"tol":      func(s *Settings) { s.Tol = -1 },
		"tol nan":  func(s *Settings) { s.Tol = math.NaN() },
		"rank":     func(s *Settings) { s.Rank = -1 },
		"max rank": func(s *Settings) { s.Rank, s.MaxRank = 4, 2 },
		"sigma":    func(s *Settings) { s.Sigma0 = -1 },
		"close":    func(s *Settings) { s.CloseRounds = -1 },
		"iter":     func(s *Settings) { s.MaxIter = 0 },
		"memory":   func(s *Settings) { s.Memory = 0 },
		"probe":    func(s *Settings) { s.Probe, s.ProbeEvery = func(*Result) bool { return false }, 0 },
	} {
		s := DefaultSettings()
		mod(&s)
		if _, err := Solve(context.Background(), p, s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestTooLarge: a problem above MaxOrder is refused before any
// allocation of its order, with ErrTooLarge.
func TestTooLarge(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(4, 3, 1, 0, 1))
	s := DefaultSettings()
	s.MaxOrder = p.N() - 1
	if _, err := Solve(context.Background(), p, s); !errors.Is(err, ErrTooLarge) {
		t.Errorf("N = %d above MaxOrder %d: error %v, want ErrTooLarge", p.N(), s.MaxOrder, err)
	}
	s.MaxOrder = p.N()
	if _, err := Solve(context.Background(), p, s); err != nil {
		t.Errorf("N = MaxOrder: %v", err)
	}
}

// TestDeterministic: the same seed gives the same factor and bound, bit
// for bit, on a model large enough for the passes to run on two bands.
func TestDeterministic(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(30, 10, 1, 0, 5))
	run := func() *Result {
		s := DefaultSettings()
		s.MaxIter = 6
		res, err := Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if !mat.Equal(a.Factor, b.Factor) || a.SDRBound != b.SDRBound || a.Inner != b.Inner {
		t.Fatalf("two runs differ: bounds %.17g, %.17g; %d, %d L-BFGS iterations", a.SDRBound, b.SDRBound, a.Inner, b.Inner)
	}
}

// TestTimeLimit: the run ends at ctx's deadline, within a second, with
// status OutOfTime and a factor.
func TestTimeLimit(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(60, 10, 1, 0, 6))
	const limit = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	t0 := time.Now()
	res, err := Solve(ctx, p, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); res.Status != solver.OutOfTime || took > limit+time.Second || res.Factor == nil {
		t.Fatalf("status %v after %v", res.Status, took)
	}
}

// TestProbe: a probe that returns true ends the run with status Solved.
func TestProbe(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(6, 3, 1, 0, 8))
	s := DefaultSettings()
	calls := 0
	s.Probe = func(r *Result) bool {
		calls++
		return r.Marginals != nil && floats.Sum(r.Marginals[0]) > 0.99
	}
	res, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Solved || calls != 1 {
		t.Fatalf("status %v after %d probes", res.Status, calls)
	}
}

// TestStages: a run that tightens past Tol (TightenTo), stopped at an
// iterate that missed the tolerance it had met before, returns the last
// iterate that met it, with status Solved, and the best bound of the
// whole run.
func TestStages(t *testing.T) {
	ok := func(gap, pinf, dinf float64) bool { return gap <= 1e-3 && pinf <= 1e-3 && dinf <= 1e-3 }
	for seed := uint64(1); seed <= 12; seed++ {
		p := sdrtest.Problem(t, gen.Dense(12, 4, 1, 0, seed))
		s := DefaultSettings()
		s.Tol, s.TightenTo, s.MaxIter = 1e-3, 1e-6, 300
		var its []Iterate
		s.Monitor = func(it *Iterate) { its = append(its, *it) }
		if _, err := Solve(context.Background(), p, s); err != nil {
			t.Fatal(err)
		}
		met, miss := 0, 0 // the last iterate that met TolLoose before the first that then missed it
		for _, it := range its {
			if ok(it.Gap, it.PrimalInfeasibility, it.DualInfeasibility) {
				met = it.K
			} else if met > 0 {
				miss = it.K
				break
			}
		}
		if miss == 0 {
			continue
		}
		s.MaxIter, s.Monitor = miss, nil
		res, err := Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		want := its[met-1]
		if res.Status != solver.Solved || res.Iterations != miss || res.Gap != want.Gap ||
			res.PrimalInfeasibility != want.PrimalInfeasibility || res.PrimalObjective != want.PrimalObjective ||
			res.SDRBound < its[miss-1].Bound {
			t.Fatalf("seed %d, stopped at %d: status %v, %d iterations, gap %g pinf %g obj %g bound %g; want the iterate %d: gap %g pinf %g obj %g, bound at least %g",
				seed, miss, res.Status, res.Iterations, res.Gap, res.PrimalInfeasibility, res.PrimalObjective, res.SDRBound,
				met, want.Gap, want.PrimalInfeasibility, want.PrimalObjective, its[miss-1].Bound)
		}
		return
	}
	t.Fatal("no model whose iterates missed Tol after meeting it: the test checks nothing")
}

// TestProbeBackoff: while the probe returns false, the waits between its
// calls double from ProbeEvery up to maxProbeWait ProbeEvery.
func TestProbeBackoff(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(8, 3, 1, 0, 8))
	s := DefaultSettings()
	s.Tol, s.TolLoose, s.MaxIter, s.ProbeEvery = 1e-12, 1e-12, 200, 2
	var at []int
	s.Probe = func(r *Result) bool {
		at = append(at, r.Iterations)
		return false
	}
	if _, err := Solve(context.Background(), p, s); err != nil {
		t.Fatal(err)
	}
	if len(at) < 7 {
		t.Fatalf("probes at %v: too few to check the waits", at)
	}
	for i := 1; i < len(at); i++ {
		if want := min(2<<(i-1), maxProbeWait*2); at[i]-at[i-1] != want {
			t.Fatalf("probes at %v: wait %d is %d, want %d", at, i, at[i]-at[i-1], want)
		}
	}
}

// TestRankGrowth: started at rank 1 on a complete graph whose optimum has
// higher rank, the rank grows by the certificate and the run converges.
func TestRankGrowth(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(10, 4, 1, 0, 11))
	s := DefaultSettings()
	s.Rank, s.Tol, s.TolLoose = 1, 1e-5, 1e-5
	res, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Solved || res.Rank < 2 {
		t.Fatalf("status %v at rank %d", res.Status, res.Rank)
	}
}

// TestClosing: on runs that end with a loose bound the closing rounds run
// and certify, and the result keeps the run's factor: its objective is
// <C, F F^T> of the returned factor.
func TestClosing(t *testing.T) {
	closed := 0
	for seed := uint64(1); seed <= 6; seed++ {
		p := sdrtest.Problem(t, gen.Dense(20, 5, 1, 0, seed))
		s := DefaultSettings()
		s.Tol, s.TolLoose = 1e-3, 1e-3
		var log bytes.Buffer
		s.Verbose = &log
		res, err := Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(log.String(), "closing round") {
			closed++
		}
		var x mat.SymDense
		x.SymOuterK(1, res.Factor)
		xs := sdr.NewSym(p)
		xs.FromDense(&x)
		if got := p.PrimalObjective(xs); math.Abs(got-res.PrimalObjective) > 1e-9*(1+math.Abs(got)) {
			t.Fatalf("seed %d: objective %.12g, <C, F F^T> of the factor %.12g", seed, res.PrimalObjective, got)
		}
	}
	if closed == 0 {
		t.Fatal("no run closed")
	}
}

// TestCertifyDeadline checks that a dense certificate is not started when
// the last one took longer than the time left before the deadline, and is
// without a deadline or with time enough; the first one (none certified
// before) goes by the run's deadline and the estimate.
func TestCertifyDeadline(t *testing.T) {
	p := sdrtest.Problem(t, gen.Dense(8, 3, 1, 0, 2))
	cf := newCertifier(p, 4)
	if cf.proj == nil {
		t.Fatal("no dense certificate at this order")
	}
	y, z := make([]float64, p.Y.Len), make([]float64, p.NumZ)
	for _, c := range []struct {
		left, runLeft, took time.Duration // runLeft: to the run's deadline, for the first certificate
		deadline, certified bool
		want                bool
	}{
		{0, 0, time.Hour, false, true, true},
		{time.Hour, time.Hour, time.Second, true, true, true},
		{time.Second, time.Hour, time.Hour, true, true, false},
		{time.Second, 2 * time.Hour, time.Hour, true, false, true},
		{time.Second, time.Minute, time.Hour, true, false, false},
	} {
		cf.deadline, cf.first, cf.took, cf.certified = time.Time{}, time.Time{}, c.took, c.certified
		if c.deadline {
			cf.deadline, cf.first = time.Now().Add(c.left), time.Now().Add(c.runLeft)
		}
		_, _, err := cf.certify(y, z, 1e-6, 100, 1, func() bool { return false })
		if got := !errors.Is(err, errNotCertified); got != c.want {
			t.Fatalf("time left %v (run %v), last certificate or estimate %v, deadline %v, certified before %v: certified %v (%v)",
				c.left, c.runLeft, c.took, c.deadline, c.certified, got, err)
		}
	}
}
