package sdpad

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

func solveLR(t testing.TB, p *sdr.Problem, s Settings) *Result {
	t.Helper()
	r, err := SolveLR(context.Background(), p, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLRMatchesDense: SolveLR reaches the optimum of Solve (within 1e-4
// relative) on the remark example, Potts grids and pdb1akg, on the face and
// on the PSD cone, with the status Solved and a certified bound below it.
func TestLRMatchesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	probs := map[string]*sdr.Problem{
		"remark": build(t, remark()), "grid3x4": build(t, gridPW(r, 3, 4)), "grid5x3": build(t, gridPW(r, 5, 3)),
	}
	probs["pdb1akg"] = build(t, filePairwise(t, "../../testdata/uai2008_pdb1akg.uai.xz"))
	for name, p := range probs {
		s := tight(1e-6)
		d := solve(t, p, s)
		l := solveLR(t, p, s)
		scale := 1 + math.Abs(d.PrimalObjective)
		if d.Status != solver.Solved || l.Status != solver.Solved {
			t.Fatalf("%s: dense %v, low rank %v after %d iterations", name, d.Status, l.Status, l.Iterations)
		}
		if diff := math.Abs(l.PrimalObjective - d.PrimalObjective); diff > 1e-4*scale {
			t.Fatalf("%s: low rank %.10g, dense %.10g", name, l.PrimalObjective, d.PrimalObjective)
		}
		if l.SDRBound > d.PrimalObjective+1e-5*scale || l.SDRBound < d.PrimalObjective-1e-3*scale {
			t.Fatalf("%s: low-rank bound %.10g, optimum %.10g", name, l.SDRBound, d.PrimalObjective)
		}
		if rows, _ := l.Factor.Dims(); rows != p.N() || l.X != nil {
			t.Fatalf("%s: factor with %d rows, X %v", name, rows, l.X)
		}
		t.Logf("%s: N %d, dense %d iterations %v, low rank %d iterations %v rank %d", name, p.N(), d.Iterations, d.Time, l.Iterations, l.Time, l.Rank)
	}
	paper := DefaultSettings()
	paper.Face, paper.MaxIter = false, 4000
	l := solveLR(t, probs["remark"], paper)
	if l.Status == solver.Failed || l.EnergyBound > -1 {
		t.Fatalf("PSD cone: %v, objective %v, bound %v", l.Status, l.PrimalObjective, l.EnergyBound)
	}
}

// TestLRRandomTiny checks on random tiny models that the low-rank
// certified bound never exceeds the brute-force minimum energy, at any
// iterate, and that the SDR value is a relaxation value when Solved.
func TestLRRandomTiny(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	solved := 0
	for ci, c := range randomTiny(r, 120) {
		p, err := sdr.Build(c.pw)
		if err != nil || math.IsInf(c.minE, 1) {
			continue
		}
		s := tight(1e-6)
		s.Rank, s.RankEvery = 1+ci%3, 7
		s.Monitor = func(it *Iterate) {
			if it.Bound-p.Const > c.minE+1e-12*math.Abs(c.minE) {
				t.Fatalf("case %d iteration %d: certified bound %v - Const %v above the minimum energy %v", ci, it.K, it.Bound, p.Const, c.minE)
			}
		}
		res := solveLR(t, p, s)
		if res.EnergyBound > c.minE {
			t.Fatalf("case %d: certified energy bound %v above the minimum energy %v", ci, res.EnergyBound, c.minE)
		}
		scale := 1 + math.Abs(c.minE)
		if res.Status == solver.Solved {
			solved++
			if res.PrimalObjective-p.Const > c.minE+1e-4*scale {
				t.Fatalf("case %d: SDR value %v - Const %v above the minimum energy %v", ci, res.PrimalObjective, p.Const, c.minE)
			}
		}
	}
	if solved < 60 {
		t.Fatalf("only %d tiny models solved", solved)
	}
}

// TestLRRank: the rank doubles from 1 while the kept eigenvalues are not
// small and never exceeds MaxRank.
func TestLRRank(t *testing.T) {
	p := build(t, gridPW(rand.New(rand.NewPCG(7, 7)), 6, 4))
	s := DefaultSettings()
	s.Rank, s.MaxRank, s.RankEvery, s.MaxIter = 1, 4, 10, 200
	most := 0
	s.Monitor = func(it *Iterate) { most = max(most, it.Rank) }
	r := solveLR(t, p, s)
	if _, c := r.Factor.Dims(); c != 4 || most > 4 || most < 2 {
		t.Fatalf("factor of %d columns, largest rank %d", c, most)
	}
}

func TestLRLimitsAndTable(t *testing.T) {
	p := build(t, gridPW(rand.New(rand.NewPCG(2, 2)), 4, 3))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := DefaultSettings()
	r, err := SolveLR(ctx, p, s)
	if err != nil || r.Status != solver.Interrupted || r.Iterations != 1 || math.IsInf(r.EnergyBound, -1) {
		t.Fatalf("cancelled: %v, status %v after %d iterations, bound %v", err, r.Status, r.Iterations, r.EnergyBound)
	}
	var buf bytes.Buffer
	s.Verbose, s.VerboseEvery, s.MaxIter = &buf, 10, 30
	solveLR(t, p, s)
	for _, w := range []string{"sdpad-lr:", "rank", "matvecs", "status"} {
		if !strings.Contains(buf.String(), w) {
			t.Fatalf("table lacks %q:\n%s", w, buf.String())
		}
	}
	s = DefaultSettings()
	s.Rank = 0
	if _, err := SolveLR(context.Background(), p, s); err == nil {
		t.Fatal("rank 0 accepted")
	}
}

// TestFactorDiff checks ||A A^T - B B^T||_F from Gram products against the
// dense difference.
func TestFactorDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		n, ra, rb := 5+r.IntN(20), 1+r.IntN(4), 1+r.IntN(4)
		a := randDense(r, n, ra)
		b := randDense(r, n, rb)
		var aa, bb mat.Dense
		aa.Mul(a, a.T())
		bb.Mul(b, b.T())
		aa.Sub(&aa, &bb)
		want := mat.Norm(&aa, 2)
		if got := factorDiff(a, b); math.Abs(got-want) > 1e-10*(1+want) {
			t.Fatalf("factorDiff %v, want %v", got, want)
		}
	}
}
