package sdpad

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

func build(t testing.TB, pw *model.Pairwise) *sdr.Problem {
	t.Helper()
	p, err := sdr.Build(pw)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func solve(t testing.TB, p *sdr.Problem, s Settings) *Result {
	t.Helper()
	r, err := Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func tight(tol float64) Settings {
	s := DefaultSettings()
	s.Tol = tol
	return s
}

// TestRemark: the SDR of the remark example is tight (minimum -1) with
// P(Xbar) >= 0 and reaches -4/3 without it (docs/relaxation.md, Small cases), with the default
// settings and with the paper's cone and schedule.
func TestRemark(t *testing.T) {
	p := build(t, remark())
	paper := DefaultSettings()
	paper.Face, paper.Schedule, paper.MaxIter = false, Geometric, 4000
	for name, s := range map[string]Settings{"default": tight(1e-8), "paper": paper} {
		r := solve(t, p, s)
		if r.EnergyBound > -1 {
			t.Errorf("%s: certified bound %v above the minimum energy -1", name, r.EnergyBound)
		}
		if name == "paper" {
			// The paper's schedule makes slow progress here; only the bound must hold.
			continue
		}
		if r.Status != solver.Solved || math.Abs(r.PrimalObjective+1) > 1e-6 || r.EnergyBound < -1-1e-6 {
			t.Errorf("%s: %v, objective %v, bound %v, want -1", name, r.Status, r.PrimalObjective, r.EnergyBound)
		}
		if x := p.Argmax(r.X.RawSymmetric().Data[:p.N()]); p.Pairwise.Energy(x) != -1 {
			t.Errorf("%s: rounding %v has energy %v", name, x, p.Pairwise.Energy(x))
		}
	}
	s := tight(1e-8)
	s.dropP = true
	r := solve(t, p, s)
	if r.Status != solver.Solved || math.Abs(r.PrimalObjective+4.0/3) > 1e-6 {
		t.Fatalf("without P: %v, objective %v, want -4/3", r.Status, r.PrimalObjective)
	}
	if r.EnergyBound > -4.0/3 || r.EnergyBound < -4.0/3-1e-6 {
		t.Fatalf("without P: bound %v, want just below -4/3", r.EnergyBound)
	}
	// The paper's fractional optimum: x1 = [1,2]/3, x2 = [8,1]/9.
	want := [][]float64{{1.0 / 3, 2.0 / 3}, {8.0 / 9, 1.0 / 9}}
	for i := range want {
		for a := range want[i] {
			if math.Abs(r.Marginals[i][a]-want[i][a]) > 1e-4 {
				t.Fatalf("without P: marginals %v, want %v", r.Marginals, want)
			}
		}
	}
}

// randomTiny returns random tiny models with mixed cardinalities and
// forbidden entries, their pairwise views, and brute-force minimum
// energies (model.Energy as the oracle).
type tinyCase struct {
	m    *model.Model
	pw   *model.Pairwise
	minE float64
	tree bool
}

func randomTiny(r *rand.Rand, count int) []tinyCase {
	var out []tinyCase
	for len(out) < count {
		tree := len(out)%3 == 0
		o := randmodel.Options{Vars: 2 + r.IntN(4), MaxCard: 4, Factors: r.IntN(8), MaxArity: 2,
			Forbidden: []float64{0, 0.1, 0.25}[r.IntN(3)], Constant: true, Tree: tree}
		m := randmodel.New(r, o)
		pw, err := m.Pairwise(nil)
		if err != nil {
			continue
		}
		free := make([]int, m.NumVars())
		for v := range free {
			free[v] = -1
		}
		minE, _ := randmodel.BruteForce(m, free)
		out = append(out, tinyCase{m: m, pw: pw, minE: minE, tree: tree})
	}
	return out
}

// TestRandomTiny checks on hundreds of tiny models that the SDR is a
// relaxation (its optimum is at most the minimum energy), that the
// certified bound never exceeds the minimum energy, at any iterate, that
// the SDR is tight on trees (argmax rounding is optimal), Theorem 1 on
// the output, and that the plain iteration (no Anderson acceleration) and
// the paper's steps (docs/relaxation.md, SDPAD; ExactZ false, StepLength 1) reach the same SDR value.
func TestRandomTiny(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	cases := randomTiny(r, 300)
	trees, infeasible := 0, 0
	for ci, c := range cases {
		p, err := sdr.Build(c.pw)
		if errors.Is(err, sdr.ErrInfeasible) {
			if !math.IsInf(c.minE, 1) {
				t.Fatalf("case %d: Build says infeasible, brute force finds %v", ci, c.minE)
			}
			infeasible++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(c.minE, 1) {
			infeasible++
			continue
		}
		s := tight(1e-7)
		s.Monitor = func(it *Iterate) {
			if it.Bound-p.Const > c.minE+1e-12*math.Abs(c.minE) {
				t.Fatalf("case %d iteration %d: certified bound %v - Const %v above the minimum energy %v", ci, it.K, it.Bound, p.Const, c.minE)
			}
		}
		res := solve(t, p, s)
		if res.EnergyBound > c.minE {
			t.Fatalf("case %d: certified energy bound %v above the minimum energy %v", ci, res.EnergyBound, c.minE)
		}
		if res.Status != solver.Solved {
			t.Fatalf("case %d: status %v after %d iterations (gap %v, pinf %v, dinf %v)", ci, res.Status, res.Iterations, res.Gap, res.PrimalInfeasibility, res.FaceDualInfeasibility)
		}
		scale := 1 + math.Abs(c.minE)
		if res.PrimalObjective-p.Const > c.minE+1e-5*scale {
			t.Fatalf("case %d: SDR optimum %v - Const %v above the minimum energy %v", ci, res.PrimalObjective, p.Const, c.minE)
		}
		if res.EnergyBound < res.PrimalObjective-p.Const-1e-5*scale {
			t.Fatalf("case %d: bound %v far below the SDR value %v", ci, res.EnergyBound, res.PrimalObjective-p.Const)
		}
		checkTheorem1(t, p, res, 1e-9)
		plain := s
		plain.Anderson, plain.Monitor = 0, nil
		if pr := solve(t, p, plain); math.Abs(pr.PrimalObjective-res.PrimalObjective) > 1e-5*scale {
			t.Fatalf("case %d: SDR value %v with Anderson acceleration, %v without", ci, res.PrimalObjective, pr.PrimalObjective)
		}
		paper := s
		paper.ExactZ, paper.StepLength, paper.Monitor = false, 1, nil
		if pr := solve(t, p, paper); math.Abs(pr.PrimalObjective-res.PrimalObjective) > 1e-5*scale {
			t.Fatalf("case %d: SDR value %v with the default steps, %v with the paper's steps", ci, res.PrimalObjective, pr.PrimalObjective)
		}
		if c.tree {
			trees++
			x := p.Argmax(res.X.RawSymmetric().Data[:p.N()])
			if e := c.pw.Energy(x); e > c.minE+1e-9*scale {
				t.Fatalf("case %d (tree): rounding has energy %v, optimum %v (marginals %v)", ci, e, c.minE, res.Marginals)
			}
			if math.Abs(res.PrimalObjective-p.Const-c.minE) > 1e-5*scale {
				t.Fatalf("case %d (tree): SDR value %v, optimum %v: not tight", ci, res.PrimalObjective-p.Const, c.minE)
			}
		}
	}
	if trees < 50 || infeasible > len(cases)/3 {
		t.Fatalf("%d trees and %d infeasible models among %d", trees, infeasible, len(cases))
	}
}

// checkTheorem1 tests X_ij 1 = x_i and X_ij^T 1 = x_j on every edge, to tol
// plus what the primal infeasibility allows (for PSD Xbar, |e^T Xbar v_j| <=
// sqrt(Xbar_ee v_j^T Xbar v_j), and v_j^T Xbar v_j is a sum of residuals).
func checkTheorem1(t *testing.T, p *sdr.Problem, r *Result, tol float64) {
	t.Helper()
	slack := tol + math.Sqrt(4*math.Sqrt(float64(p.Y.Len))*r.PrimalInfeasibility*(1+math.Sqrt(float64(p.NumVars()+1))))
	x := r.X
	for _, e := range p.Edges {
		oi, oj := p.Offset[e.I], p.Offset[e.J]
		for a := range p.Card[e.I] {
			s := 0.0
			for b := range p.Card[e.J] {
				s += x.At(oi+a, oj+b)
			}
			if d := math.Abs(s - x.At(0, oi+a)); d > slack {
				t.Fatalf("edge (%d,%d): row %d sums to %v, x = %v (slack %v)", e.I, e.J, a, s, x.At(0, oi+a), slack)
			}
		}
		for b := range p.Card[e.J] {
			s := 0.0
			for a := range p.Card[e.I] {
				s += x.At(oi+a, oj+b)
			}
			if d := math.Abs(s - x.At(0, oj+b)); d > slack {
				t.Fatalf("edge (%d,%d): column %d sums to %v, x = %v (slack %v)", e.I, e.J, b, s, x.At(0, oj+b), slack)
			}
		}
	}
}

// TestTheorem1PaperCone checks Theorem 1 on the output of the unreduced
// (paper's) cone, where it holds only up to the infeasibility.
func TestTheorem1PaperCone(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for ci, c := range randomTiny(r, 20) {
		p, err := sdr.Build(c.pw)
		if err != nil {
			continue
		}
		s := DefaultSettings()
		s.Face, s.MaxIter = false, 3000
		res := solve(t, p, s)
		checkTheorem1(t, p, res, 1e-9)
		if res.EnergyBound > c.minE {
			t.Fatalf("case %d: certified bound %v above the minimum energy %v", ci, res.EnergyBound, c.minE)
		}
	}
}

// TestDualSigns: at convergence the dual objective -<b,y> matches the
// primal one, and the certified bound sits below both.
func TestDualSigns(t *testing.T) {
	p := build(t, gridPW(rand.New(rand.NewPCG(1, 1)), 3, 3))
	r := solve(t, p, tight(1e-7))
	if r.Status != solver.Solved || r.Gap > 1e-7 {
		t.Fatalf("status %v gap %v", r.Status, r.Gap)
	}
	// Below both up to the tolerance's absolute scale: an iterate with pinf
	// 1e-7 may have an objective just below the optimum.
	slack := 1e-7 * (1 + math.Abs(r.PrimalObjective) + math.Abs(r.DualObjective))
	if r.SDRBound > r.PrimalObjective+slack || r.SDRBound > r.DualObjective+slack || r.SDRBound < r.DualObjective-1e-5 {
		t.Fatalf("bound %v, primal %v, dual %v", r.SDRBound, r.PrimalObjective, r.DualObjective)
	}
	if math.Abs(r.EnergyBound-(r.SDRBound-p.Const)) > 1e-12*(1+math.Abs(r.SDRBound)) {
		t.Fatalf("energy bound %v, SDR bound %v, Const %v", r.EnergyBound, r.SDRBound, p.Const)
	}
}

func TestLimitsAndCancel(t *testing.T) {
	// 6 x 6 x 4: the 4 x 4 x 3 grid reached 1e-12 within the 50 ms.
	p := build(t, gridPW(rand.New(rand.NewPCG(2, 2)), 6, 4))
	s := DefaultSettings()
	s.Tol = 1e-12
	// Every iteration certified, and time for a few: past its deadline a
	// run computes no closing certificate, so a limit shorter than one
	// iteration (1 ms failed under load) leaves no bound.
	s.BoundEvery = 1
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r, err := Solve(ctx, p, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != solver.OutOfTime || math.IsInf(r.EnergyBound, -1) {
		t.Fatalf("time limit: status %v, bound %v", r.Status, r.EnergyBound)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	r, err = Solve(ctx, p, s)
	if err != nil || r.Status != solver.Interrupted || r.Iterations != 1 || math.IsInf(r.EnergyBound, -1) {
		t.Fatalf("cancelled: %v, status %v after %d iterations, bound %v", err, r.Status, r.Iterations, r.EnergyBound)
	}
	s = DefaultSettings()
	s.Tol, s.TolLoose, s.MaxIter = 1e-12, 1e-12, 30
	if r = solve(t, p, s); r.Status != solver.MaxIterations || r.Iterations != 30 {
		t.Fatalf("iteration limit: status %v after %d", r.Status, r.Iterations)
	}
	s.TolLoose = 1
	if r = solve(t, p, s); r.Status != solver.SolvedInaccurate {
		t.Fatalf("loose tolerance: status %v", r.Status)
	}
}

func TestPaperStopRule(t *testing.T) {
	p := build(t, gridPW(rand.New(rand.NewPCG(1, 1)), 3, 4))
	r := solve(t, p, PaperSettings())
	if r.Iterations > PaperMaxIter {
		t.Fatalf("%d iterations", r.Iterations)
	}
	if r.Status == solver.Failed || r.EnergyBound > r.PrimalObjective-p.Const+1e-3 {
		t.Fatalf("status %v, bound %v, objective %v", r.Status, r.EnergyBound, r.PrimalObjective)
	}
}

func TestVerboseTable(t *testing.T) {
	var buf bytes.Buffer
	s := DefaultSettings()
	s.Verbose, s.VerboseEvery = &buf, 10
	solve(t, build(t, remark()), s)
	out := buf.String()
	for _, w := range []string{"iter", "primal obj", "dual obj", "gap", "pinf", "dinf", "mu", "bound", "time", "status solved"} {
		if !strings.Contains(out, w) {
			t.Fatalf("table lacks %q:\n%s", w, out)
		}
	}
}

func TestSettingsCheck(t *testing.T) {
	p := build(t, remark())
	for _, f := range []func(*Settings){
		func(s *Settings) { s.MaxIter = 0 },
		func(s *Settings) { s.Tol = 0 },
		func(s *Settings) { s.TolLoose = s.Tol / 2 },
		func(s *Settings) { s.BoundEvery = 0 },
		func(s *Settings) { s.BalanceRatio = 1 },
		func(s *Settings) { s.BalanceFirst = -1 },
		func(s *Settings) { s.BalanceGapRatio = 1 },
		func(s *Settings) { s.BalanceGapRatio = math.NaN() },
		func(s *Settings) { s.Schedule, s.Rho = Geometric, 0.5 },
		func(s *Settings) { s.StepLength = 0 },
		func(s *Settings) { s.StepLength = MaxStepLength },
		func(s *Settings) { s.StepLength = math.NaN() },
	} {
		s := DefaultSettings()
		f(&s)
		if _, err := Solve(context.Background(), p, s); err == nil {
			t.Fatalf("settings %+v accepted", s)
		}
	}
}

// TestReportedPointPSD: with the step length 1.6 the iteration's Xbar_k
// need not be PSD; the point returned (and measured, and rounded) is the
// last projection, which is, also mid-run.
func TestReportedPointPSD(t *testing.T) {
	p := build(t, gridPW(rand.New(rand.NewPCG(4, 4)), 4, 3))
	for _, iters := range []int{5, 20, 60} {
		s := DefaultSettings()
		s.Tol, s.TolLoose, s.MaxIter = 1e-12, 1e-12, iters
		r := solve(t, p, s)
		var es mat.EigenSym
		if !es.Factorize(r.X, false) {
			t.Fatal("eigen")
		}
		if l := es.Values(nil)[0]; l < -1e-10*(1+mat.Norm(r.X, 2)) {
			t.Fatalf("after %d iterations the returned Xbar has eigenvalue %v", iters, l)
		}
		x := sdr.NewSym(p)
		x.FromDense(r.X)
		if got := r.PrimalObjective; math.Abs(got-p.PrimalObjective(x)) > 1e-9*(1+math.Abs(got)) {
			t.Fatalf("after %d iterations: objective %v is not that of the returned Xbar", iters, got)
		}
	}
}
