package icm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/mapsolver/exact"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// localOptimum fails the test if changing one variable of x lowers the
// energy by more than rounding.
func localOptimum(t *testing.T, p *model.Pairwise, x []int, what string) {
	t.Helper()
	e := p.Energy(x)
	y := append([]int(nil), x...)
	for i := range y {
		for a := 0; a < p.Card[i]; a++ {
			y[i] = a
			if ey := p.Energy(y); ey < e-1e-9*math.Max(1, math.Abs(e)) {
				t.Fatalf("%s: setting variable %d to %d lowers the energy from %v to %v", what, i, a, e, ey)
			}
		}
		y[i] = x[i]
	}
}

func randomAssignment(r *rand.Rand, p *model.Pairwise) []int {
	x := make([]int, p.NumVars())
	for i := range x {
		x[i] = r.IntN(p.Card[i])
	}
	return x
}

// TestAgainstExact runs ICM on hundreds of random tiny models (mixed
// cardinalities, forbidden entries, evidence) from the best-unary start and
// from a random one: never below the exact optimum, never worse than the
// start, finite whenever the start is, and a local optimum when finite.
func TestAgainstExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	optimal := 0
	for trial := 0; trial < 400; trial++ {
		m := randmodel.New(r, randmodel.Options{
			Vars: 1 + r.IntN(7), MaxCard: 4, Factors: r.IntN(12), MaxArity: 2,
			Forbidden: []float64{0, 0.1, 0.3}[trial%3], Constant: true,
		})
		p, err := m.Pairwise(randmodel.Evidence(r, m, 0.15))
		if err != nil {
			continue
		}
		ex, err := exact.Solve(context.Background(), p, exact.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		for _, init := range [][]int{nil, randomAssignment(r, p)} {
			start := make([]int, p.NumVars())
			if init == nil {
				BestUnary(p, start)
			} else {
				copy(start, init)
			}
			e0 := p.Energy(start)
			res, err := Solve(context.Background(), p, Settings{Init: init})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != solver.Solved {
				t.Fatalf("trial %d: status %v", trial, res.Status)
			}
			if e := p.Energy(res.Assignment); e != res.Energy {
				t.Fatalf("trial %d: reported energy %v, actual %v", trial, res.Energy, e)
			}
			if res.Energy > e0 || (!math.IsInf(e0, 1) && math.IsInf(res.Energy, 1)) {
				t.Fatalf("trial %d: energy %v after ICM, %v at the start", trial, res.Energy, e0)
			}
			if ex.Status == solver.Infeasible {
				if !math.IsInf(res.Energy, 1) {
					t.Fatalf("trial %d: infeasible model, ICM energy %v", trial, res.Energy)
				}
				continue
			}
			if res.Energy < ex.Energy-1e-9*math.Max(1, math.Abs(ex.Energy)) {
				t.Fatalf("trial %d: ICM energy %v below the exact optimum %v", trial, res.Energy, ex.Energy)
			}
			if !math.IsInf(res.Energy, 1) {
				localOptimum(t, p, res.Assignment, "Solve")
			}
			if math.Abs(res.Energy-ex.Energy) <= 1e-9*math.Max(1, math.Abs(ex.Energy)) {
				optimal++
			}
		}
	}
	t.Logf("ICM optimal in %d of 800 runs", optimal)
}

// TestImprove polishes random assignments of random models and of a Potts
// grid: never worse, and a local optimum.
func TestImprove(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 200; trial++ {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(8), MaxCard: 5, Factors: 15, MaxArity: 2, Forbidden: 0.05})
		p, err := m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		x := randomAssignment(r, p)
		e0 := p.Energy(x)
		e := Improve(p, x)
		if e > e0 || e != p.Energy(x) {
			t.Fatalf("trial %d: Improve returned %v (assignment %v), start %v", trial, e, p.Energy(x), e0)
		}
		if !math.IsInf(e, 1) {
			localOptimum(t, p, x, "Improve")
		}
	}
	p, err := gen.PottsGrid(20, 20, 4, 0.7, 3).Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLocal(p)
	for trial := 0; trial < 3; trial++ {
		x := randomAssignment(r, p)
		e0 := p.Energy(x)
		if e := l.Improve(x); !(e < e0) {
			t.Fatalf("potts: energy %v after Improve, %v before", e, e0)
		}
		localOptimum(t, p, x, "potts")
	}
}

func TestSettings(t *testing.T) {
	p, err := gen.Binary(50, 4, 1).Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(context.Background(), p, Settings{Init: make([]int, 3)}); err == nil {
		t.Error("initial assignment of the wrong length accepted")
	}
	bad := make([]int, 50)
	bad[7] = 2
	if _, err := Solve(context.Background(), p, Settings{Init: bad}); err == nil {
		t.Error("initial value out of range accepted")
	}
	init := make([]int, 50)
	res, err := Solve(context.Background(), p, Settings{Init: init, MaxSweeps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.MaxIterations || res.Sweeps != 1 || res.Energy > p.Energy(init) {
		t.Errorf("one sweep: status %v, %d sweeps, energy %v", res.Status, res.Sweeps, res.Energy)
	}
	full, _ := Solve(context.Background(), p, Settings{Init: init})
	if full.Status != solver.Solved || full.Energy > res.Energy {
		t.Errorf("to convergence: status %v, energy %v, after one sweep %v", full.Status, full.Energy, res.Energy)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Solve(ctx, p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.Interrupted || res.Assignment == nil || math.IsInf(res.Energy, 0) {
		t.Errorf("cancelled: status %v, energy %v", res.Status, res.Energy)
	}
	empty := &model.Pairwise{Const: 1.5}
	if res, _ := Solve(context.Background(), empty, Settings{}); res.Status != solver.Solved || res.Energy != -1.5 {
		t.Errorf("empty model: status %v, energy %v", res.Status, res.Energy)
	}
}
