package certify_test

import (
	"context"
	"math"
	"testing"

	"github.com/sdrmap/sdrmap/certify"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver/sdpad"
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
		got, exact, err := certify.Face(p, d[0], d[1], v, math.Inf(-1), certify.DefaultSettings())
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
		reach, _, err := certify.Face(p, d[0], d[1], nil, want.EnergyBound-tol, s)
		if err != nil || reach.EnergyBound < want.EnergyBound-tol {
			t.Fatalf("reachable target %v: bound %v, %v", want.EnergyBound-tol, reach.EnergyBound, err)
		}
		loose, _, err := certify.Face(p, d[0], d[1], nil, want.EnergyBound+1, s)
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
	pw, err := gen.PottsGrid(k, k, 3, 1, seed).Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sdr.Build(pw)
	if err != nil {
		t.Fatal(err)
	}
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
