package sdpad

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// TestCertifyFace compares CertifyFace with the dense sdr.Certify on the
// last dual iterate of a 4 x 4 Potts grid solved loosely and on the dual
// point complementary to its rounded assignment: the same smallest
// eigenvalue of the compressed slack (LOBPCG against LAPACK) and a bound
// no higher than the dense one allows; the best dual iterate gives the
// reported bound.
func TestCertifyFace(t *testing.T) {
	p, res, x, yc, zc := looseGrid(t, 41, 4)
	s := DefaultSettings()
	v, err := p.Point(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range [][2][]float64{{res.Y, res.Z}, {yc, zc}, {res.BestY, res.BestZ}} {
		want, err := p.Certify(d[0], d[1])
		if err != nil {
			t.Fatal(err)
		}
		got, exact, err := CertifyFace(p, d[0], d[1], v, math.Inf(-1), s)
		if err != nil || !exact {
			t.Fatalf("CertifyFace: exact %v, %v", exact, err)
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

// TestCertifyFaceScreen: the screen of CertifyFace never stops short of a
// reachable target, and what it returns for an unreachable one is still a
// bound. A 6 x 6 grid is large enough for LOBPCG, and a loose screen makes
// its two eigensolves differ.
func TestCertifyFaceScreen(t *testing.T) {
	p, res, _, yc, zc := looseGrid(t, 45, 6)
	s := DefaultSettings()
	s.CertifyTol = 1e-2
	for _, d := range [][2][]float64{{res.Y, res.Z}, {yc, zc}} {
		want, err := p.Certify(d[0], d[1])
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-9 * (1 + math.Abs(want.EnergyBound))
		reach, _, err := CertifyFace(p, d[0], d[1], nil, want.EnergyBound-tol, s)
		if err != nil || reach.EnergyBound < want.EnergyBound-tol {
			t.Fatalf("reachable target %v: bound %v, %v", want.EnergyBound-tol, reach.EnergyBound, err)
		}
		loose, _, err := CertifyFace(p, d[0], d[1], nil, want.EnergyBound+1, s)
		if err != nil || loose.EnergyBound > want.EnergyBound+tol {
			t.Fatalf("unreachable target: bound %v above the dense %v, %v", loose.EnergyBound, want.EnergyBound, err)
		}
	}
}

// looseGrid solves a random k x k Potts grid with 3 labels by Solve to
// 1e-2 and returns its argmax assignment and the dual point complementary
// to it.
func looseGrid(t *testing.T, seed uint64, k int) (*sdr.Problem, *Result, []int, []float64, []float64) {
	t.Helper()
	p := build(t, gridPW(rand.New(rand.NewPCG(seed, seed+1)), k, 3))
	s := DefaultSettings()
	s.Tol = 1e-2
	res := solve(t, p, s)
	x := p.Argmax(res.X.RawSymmetric().Data[:p.N()])
	yc, zc, err := p.Complement(res.Y, res.Z, x)
	if err != nil {
		t.Fatal(err)
	}
	return p, res, x, yc, zc
}

// TestProbe: a probe that accepts at its third call ends the run there with
// status Solved; it sees the iterate's factor (SolveLR) or Xbar (Solve).
func TestProbe(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	p := build(t, gridPW(r, 4, 3))
	for _, lowRank := range []bool{false, true} {
		s := DefaultSettings()
		s.Tol, s.ProbeEvery, s.ProbeTol = 1e-12, 7, math.Inf(1)
		calls := 0
		s.Probe = func(d *Result) bool {
			calls++
			if d.Iterations != 7*calls || (d.X == nil) == !lowRank || (d.Factor == nil) == lowRank {
				t.Fatalf("low rank %v: probe %d at iteration %d, X %v, factor %v", lowRank, calls, d.Iterations, d.X != nil, d.Factor != nil)
			}
			return calls == 3
		}
		var res *Result
		if lowRank {
			res = solveLR(t, p, s)
		} else {
			res = solve(t, p, s)
		}
		if res.Status != solver.Solved || res.Iterations != 21 || calls != 3 {
			t.Fatalf("low rank %v: %v after %d iterations, %d probes", lowRank, res.Status, res.Iterations, calls)
		}
	}
	s := DefaultSettings()
	s.Probe, s.ProbeEvery = func(*Result) bool { return false }, 0
	if _, err := Solve(t.Context(), p, s); err == nil {
		t.Fatal("ProbeEvery 0 accepted")
	}
}
