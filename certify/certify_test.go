package certify_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/certify"
	"github.com/sdrmap/sdrmap/eigen"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/internal/sdrtest"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/sdr"
)

// TestFace compares Face with the dense sdr.Certify on the last dual
// iterate of a 4 x 4 Potts grid solved loosely and on the dual point
// complementary to its rounded assignment: the same smallest eigenvalue of
// the compressed slack (LOBPCG against LAPACK) and a bound no higher than
// the dense one allows; the best dual iterate gives the reported bound.
func TestFace(t *testing.T) {
	p, res, x, yc, zc := looseGrid(t, 41, 4)
	v, err := p.Point(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range [][2][]float64{{res.Y, res.Z}, {yc, zc}, {res.BestY, res.BestZ}} {
		want, err := p.Certify(d[0], d[1])
		if err != nil {
			t.Fatal(err)
		}
		got, exact, err := certify.Face(context.Background(), p, d[0], d[1], v, math.Inf(-1), certify.DefaultSettings())
		if err != nil || !exact {
			t.Fatalf("Face: exact %v, %v", exact, err)
		}
		scale := 1 + math.Abs(want.LambdaMinFace)
		if math.Abs(got.LambdaMinFace-want.LambdaMinFace) > 1e-7*scale || got.EnergyBound > want.EnergyBound+1e-9*(1+math.Abs(want.EnergyBound)) {
			t.Fatalf("lambda_min %v, bound %v; dense %v, %v", got.LambdaMinFace, got.EnergyBound, want.LambdaMinFace, want.EnergyBound)
		}
	}
	best, _ := p.Certify(res.BestY, res.BestZ)
	if best.EnergyBound != res.EnergyBound {
		t.Fatalf("bound of the best dual iterate %v, reported %v", best.EnergyBound, res.EnergyBound)
	}
}

// TestFaceCancelled: a certificate whose eigensolves a done context cuts
// short gives no bound, never one from unconverged Ritz values.
func TestFaceCancelled(t *testing.T) {
	p, res, _, _, _ := looseGrid(t, 45, 6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, exact, err := certify.Face(ctx, p, res.Y, res.Z, nil, math.Inf(-1), certify.DefaultSettings())
	if err != nil || exact || !math.IsInf(c.EnergyBound, -1) || !math.IsInf(c.LowerBound, -1) {
		t.Fatalf("exact %v, bound %v, lower %v, %v", exact, c.EnergyBound, c.LowerBound, err)
	}
	c, exact, err = certify.Face(context.Background(), p, res.Y, res.Z, nil, math.Inf(-1), certify.DefaultSettings())
	if err != nil || !exact || math.IsInf(c.EnergyBound, 0) {
		t.Fatalf("not cancelled: exact %v, bound %v, %v", exact, c.EnergyBound, err)
	}
}

// TestFaceScreen: the screen of Face never stops short of a reachable
// target; for an unreachable one it returns the screening certificate (it
// differs from the tight one: a 6 x 6 grid is large enough for LOBPCG, and
// the screen is loose), which is still a bound.
func TestFaceScreen(t *testing.T) {
	p, res, _, yc, zc := looseGrid(t, 45, 6)
	s := certify.DefaultSettings()
	s.Tol = 1e-2
	for _, d := range [][2][]float64{{res.Y, res.Z}, {yc, zc}} {
		want, err := p.Certify(d[0], d[1])
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-9 * (1 + math.Abs(want.EnergyBound))
		reach, _, err := certify.Face(context.Background(), p, d[0], d[1], nil, want.EnergyBound-tol, s)
		if err != nil || reach.EnergyBound < want.EnergyBound-tol {
			t.Fatalf("reachable target %v: bound %v, %v", want.EnergyBound-tol, reach.EnergyBound, err)
		}
		loose, _, err := certify.Face(context.Background(), p, d[0], d[1], nil, want.EnergyBound+1, s)
		if err != nil || loose.EnergyBound > want.EnergyBound+tol {
			t.Fatalf("unreachable target: bound %v above the dense %v, %v", loose.EnergyBound, want.EnergyBound, err)
		}
		if loose.LambdaMinFace == reach.LambdaMinFace {
			t.Fatalf("unreachable target: lambda_min %v, the same as the tight certificate's: the screen did not stop", loose.LambdaMinFace)
		}
	}
}

// looseGrid solves a random k x k Potts grid with 3 labels by sdpad.Solve
// to 1e-2 and returns its argmax assignment and the dual point
// complementary to it.
func looseGrid(t *testing.T, seed uint64, k int) (*sdr.Problem, *sdpad.Result, []int, []float64, []float64) {
	t.Helper()
	p := sdrtest.Problem(t, gen.PottsGrid(k, k, 3, 1, seed))
	s := sdpad.DefaultSettings()
	s.Tol = 1e-2
	res, err := sdpad.Solve(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	x := p.Argmax(res.X.RawSymmetric().Data[:p.N()])
	yc, zc, err := p.Complement(res.Y, res.Z, x)
	if err != nil {
		t.Fatal(err)
	}
	return p, res, x, yc, zc
}

// TestShift: Shift adds D = diag(d_0, d_1 I, ..., d_n I) to the slack and
// -(d_0 + sum_i d_i) to the dual objective, nothing else.
func TestShift(t *testing.T) {
	p := sdrtest.Problem(t, gen.PottsGrid(3, 3, 3, 1, 7))
	r := rand.New(rand.NewPCG(1, 2))
	y, z := make([]float64, p.Y.Len), make([]float64, p.NumZ)
	for k := range y {
		y[k] = r.NormFloat64()
	}
	for k := range z {
		z[k] = r.Float64()
	}
	d := make([]float64, p.NumVars()+1)
	sum := 0.0
	for i := range d {
		d[i] = r.NormFloat64()
		sum += d[i]
	}
	ys := certify.Shift(p, y, d)
	if got, want := p.DualObjective(ys), p.DualObjective(y)-sum; math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
		t.Fatalf("dual objective %v, want %v", got, want)
	}
	s, ss := sdr.NewSym(p), sdr.NewSym(p)
	p.DualSlack(s, y, z)
	p.DualSlack(ss, ys, z)
	x := mat.NewDense(p.N(), p.N(), nil)
	for k := range p.N() {
		x.Set(k, k, 1)
	}
	a, b := mat.NewDense(p.N(), p.N(), nil), mat.NewDense(p.N(), p.N(), nil)
	s.MulMat(a, x)
	ss.MulMat(b, x)
	b.Sub(b, a)
	for k := range p.N() {
		want := d[0]
		if k > 0 {
			want = d[1+(k-1)/3]
		}
		for l := range p.N() {
			w := 0.0
			if l == k {
				w = want
			}
			if math.Abs(b.At(k, l)-w) > 1e-12 {
				t.Fatalf("slack moved by %v at (%d,%d), want %v", b.At(k, l), k, l, w)
			}
		}
	}
}

// TestRefine: on 300 random tiny models with forbidden entries, the
// refined bound of a loose dense SDPAD iterate is never above the
// brute-force minimum; on a loosely solved 6 x 6 Potts grid it is tighter
// than the dense certificate of the point it starts from.
func TestRefine(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	improved := 0
	for count := 0; count < 300; {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(4), MaxCard: 4, Factors: r.IntN(8), MaxArity: 2,
			Forbidden: []float64{0, 0.1, 0.25}[r.IntN(3)], Constant: true})
		pw, err := m.Pairwise(nil)
		if err != nil {
			continue
		}
		p, err := sdr.Build(pw)
		if errors.Is(err, sdr.ErrInfeasible) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		count++
		free := make([]int, m.NumVars())
		for v := range free {
			free[v] = -1
		}
		minE, _ := randmodel.BruteForce(m, free)
		s := sdpad.DefaultSettings()
		s.MaxIter = 5 + r.IntN(30)
		res, err := sdpad.Solve(context.Background(), p, s)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := certify.Refine(context.Background(), p, res.Y, res.Z, 10, certify.DefaultSettings())
		ry, rz, c := ref.Y, ref.Z, ref.Certificate
		if err != nil {
			t.Fatal(err)
		}
		if c.EnergyBound > minE+1e-9*(1+math.Abs(minE)) {
			t.Fatalf("model %d: refined bound %.12g above the minimum energy %.12g", count, c.EnergyBound, minE)
		}
		if d, err := p.Certify(ry, rz); err != nil || c.EnergyBound > d.EnergyBound+1e-9*(1+math.Abs(d.EnergyBound)) {
			t.Fatalf("model %d: refined bound %.12g above the dense bound %.12g of its point (%v)", count, c.EnergyBound, d.EnergyBound, err)
		}
		if slices.ContainsFunc(rz, func(v float64) bool { return v < 0 }) {
			t.Fatalf("model %d: refined z has a negative entry", count)
		}
		if d, err := p.Certify(res.Y, res.Z); err == nil && c.EnergyBound > d.EnergyBound+1e-6*(1+math.Abs(d.EnergyBound)) {
			improved++
		}
	}
	if improved < 200 {
		t.Fatalf("only %d of 300 refined bounds above the dense certificate of their start", improved)
	}
	p, res, _, _, _ := looseGrid(t, 45, 6)
	start, err := p.Certify(res.Y, res.Z)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := certify.Refine(context.Background(), p, res.Y, res.Z, 10, certify.DefaultSettings())
	y, z, c := ref.Y, ref.Z, ref.Certificate
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("6 x 6 grid: bound %.9g, refined %.9g, primal %.9g", start.EnergyBound, c.EnergyBound, res.PrimalObjective-p.Const)
	if !(c.EnergyBound > start.EnergyBound) {
		t.Fatalf("refined bound %v not above the starting point's %v", c.EnergyBound, start.EnergyBound)
	}
	// A sparse model: Lanczos's bound, never above the dense one of its point.
	if d, err := p.Certify(y, z); err != nil || c.EnergyBound > d.EnergyBound+1e-9*(1+math.Abs(d.EnergyBound)) {
		t.Fatalf("refined bound %v, dense bound of the refined point %v (%v)", c.EnergyBound, d.EnergyBound, err)
	}
}

// TestPartialLanczos: on the 6 x 6 x 3 grid's dual iterates (a face of
// order 73, beyond Lanczos's dense fallback) Partial with Lanczos finds the
// dense certificate's smallest eigenvalue and never a higher bound.
func TestPartialLanczos(t *testing.T) {
	p, res, _, yc, zc := looseGrid(t, 45, 6)
	for _, d := range [][2][]float64{{res.Y, res.Z}, {res.BestY, res.BestZ}, {yc, zc}} {
		want, err := p.Certify(d[0], d[1])
		if err != nil {
			t.Fatal(err)
		}
		op := certify.NewSlack(p, d[0], d[1], true)
		if op.Dim() <= 66 {
			t.Fatalf("face of order %d: Lanczos would solve it densely", op.Dim())
		}
		got, _, exact, err := certify.Partial(p, op, d[0], d[1], true, 4, nil, eigen.Settings{Tol: 1e-10, MaxIter: 500, Lanczos: true})
		if err != nil || !exact {
			t.Fatalf("Partial: exact %v, %v", exact, err)
		}
		scale := 1 + math.Abs(want.LambdaMinFace)
		if math.Abs(got.LambdaMinFace-want.LambdaMinFace) > 1e-7*scale || got.EnergyBound > want.EnergyBound+1e-9*(1+math.Abs(want.EnergyBound)) {
			t.Fatalf("lambda_min %v, bound %v; dense %v, %v", got.LambdaMinFace, got.EnergyBound, want.LambdaMinFace, want.EnergyBound)
		}
	}
}

// TestRefineCancelled: a done context gives no bound, never a zero one; a
// dual point of the wrong size is an error, not a panic.
func TestRefineCancelled(t *testing.T) {
	p, res, _, _, _ := looseGrid(t, 45, 6)
	if _, err := certify.Refine(context.Background(), p, nil, nil, 10, certify.DefaultSettings()); err == nil {
		t.Fatal("no error for an empty dual point")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ref, err := certify.Refine(ctx, p, res.Y, res.Z, 10, certify.DefaultSettings())
	y, z, c := ref.Y, ref.Z, ref.Certificate
	if err != nil || !math.IsInf(c.EnergyBound, -1) || !math.IsInf(c.LowerBound, -1) || len(y) != len(res.Y) || len(z) != len(res.Z) {
		t.Fatalf("bound %v, lower %v, |y| %d, %v", c.EnergyBound, c.LowerBound, len(y), err)
	}
}
