package eigen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestLanczosRandom checks Smallest with Settings.Lanczos against the dense oracle on
// random matrices (clustered, repeated and implicit cases in the tests below).
func TestLanczosRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{50, 120, 400} {
		a := randSym(n, rng)
		for _, k := range []int{1, 4, 8, 16} {
			t.Run(fmt.Sprintf("n=%d/k=%d", n, k), func(t *testing.T) {
				res, err := Smallest(SymOp{a}, k, nil, Settings{Lanczos: true, Seed: 7})
				if err != nil {
					t.Fatal(err)
				}
				check(t, a, res, k, false, true)
				t.Logf("matvecs %d", res.MatVecs)
			})
		}
	}
}

func TestLanczosClustered(t *testing.T) {
	const n = 300
	rng := rand.New(rand.NewPCG(43, 44))
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = -1 + 1.9*rng.Float64()
	}
	for i := range 10 {
		vals[i] = -1.1 - float64(i)*1e-7
	}
	a := withSpectrum(vals, rng)
	for _, k := range []int{1, 4, 8} {
		res, err := Smallest(SymOp{a}, k, nil, Settings{Lanczos: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Iterations == 0 {
			t.Fatal("dense fallback used, want the iterative path")
		}
		check(t, a, res, k, false, true)
	}
}

// TestLanczosImplicit: an implicit low-rank-minus-sparse operator of order
// 1500, against the oracle.
func TestLanczosImplicit(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	op := newLowRankMinusSparse(1500, rng)
	a := toSym(op)
	res, err := Smallest(op, 6, nil, Settings{Lanczos: true, Tol: 1e-9, MaxIter: 2000})
	if err != nil {
		t.Fatal(err)
	}
	check(t, a, res, 6, false, true)
	t.Logf("matvecs %d", res.MatVecs)
}

// TestLanczosRepeated: a smallest eigenvalue of multiplicity 5 is found
// with a true residual; the bound LowerBound holds.
func TestLanczosRepeated(t *testing.T) {
	const n = 150
	rng := rand.New(rand.NewPCG(47, 48))
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = -1 + 2*rng.Float64()
	}
	copy(vals, []float64{-3, -3, -3, -3, -3, -2.5})
	a := withSpectrum(vals, rng)
	res, err := Smallest(SymOp{a}, 1, nil, Settings{Lanczos: true})
	if err != nil {
		t.Fatal(err)
	}
	check(t, a, res, 1, false, false)
	if lb := LowerBound(res); !(lb <= -3+1e-12) {
		t.Errorf("LowerBound %.15g above lambda_min -3", lb)
	}
}

// TestLanczosWarm: a warm start from the eigenvectors of a nearby matrix
// with clustered smallest eigenvalues needs fewer operator applications
// than a cold start, with the same answer; degenerate warm starts (zero,
// wider than the basis) work, a wrong height is an error.
func TestLanczosWarm(t *testing.T) {
	const n, k = 600, 4
	rng := rand.New(rand.NewPCG(49, 50))
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = -1 + 2*rng.Float64()
	}
	for i := range 6 {
		vals[i] = -1.01 - 1e-3*float64(i)
	}
	a := withSpectrum(vals, rng)
	prev, err := Smallest(SymOp{a}, k, nil, Settings{Lanczos: true})
	if err != nil {
		t.Fatal(err)
	}
	b := perturb(t, a, 1e-6, rng)
	cold, err := Smallest(SymOp{b}, k, nil, Settings{Lanczos: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	warm, err := Smallest(SymOp{b}, k, prev.Vectors, Settings{Lanczos: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	check(t, b, cold, k, false, true)
	check(t, b, warm, k, false, true)
	t.Logf("cold %d matvecs, warm %d", cold.MatVecs, warm.MatVecs)
	if warm.MatVecs >= cold.MatVecs {
		t.Errorf("warm start took %d operator applications, cold %d", warm.MatVecs, cold.MatVecs)
	}
	for _, w := range []*mat.Dense{mat.NewDense(n, 3, nil), mat.NewDense(n, 200, nil)} {
		res, err := Smallest(SymOp{b}, k, w, Settings{Lanczos: true})
		if err != nil {
			t.Fatal(err)
		}
		check(t, b, res, k, false, true)
	}
	if _, err := Smallest(SymOp{b}, k, mat.NewDense(n-1, 2, nil), Settings{Lanczos: true}); err == nil {
		t.Error("warm start of the wrong height accepted")
	}
}

// TestLanczosBudget: MaxIter caps the operator applications at MaxIter k;
// an unconverged result has explicit residuals and Iterations >= MaxIter;
// a Stop hook ends it earlier, with Iterations below MaxIter.
func TestLanczosBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	a := randSym(400, rng)
	res, err := Smallest(SymOp{a}, 4, nil, Settings{Lanczos: true, MaxIter: 5, Tol: 1e-12})
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("got %v, want ErrNotConverged", err)
	}
	if res.MatVecs > 5*4+4 || res.Iterations < 5 || len(res.Values) != 4 {
		t.Fatalf("matvecs %d, iterations %d, %d values", res.MatVecs, res.Iterations, len(res.Values))
	}
	var au mat.Dense
	au.Mul(a, res.Vectors)
	for i := range res.Values {
		var r mat.VecDense
		r.AddScaledVec(au.ColView(i), -res.Values[i], res.Vectors.ColView(i))
		if math.Abs(r.Norm(2)-res.Residuals[i]) > 1e-12 {
			t.Errorf("pair %d: reported residual %.6g, true %.6g", i, res.Residuals[i], r.Norm(2))
		}
	}
	vals, _ := oracle(t, a)
	if lb := LowerBound(res); !(lb <= vals[0]) {
		t.Errorf("LowerBound %.15g above lambda_min %.15g", lb, vals[0])
	}
	calls := 0
	res, err = Smallest(SymOp{a}, 4, nil, Settings{Lanczos: true, MaxIter: 100, Stop: func() bool { calls++; return calls == 7 }})
	if !errors.Is(err, ErrNotConverged) || res.Iterations >= 100 || res.MatVecs != 7 {
		t.Fatalf("stopped: err %v, iterations %d, matvecs %d", err, res.Iterations, res.MatVecs)
	}
	if _, err := Smallest(SymOp{a}, 0, nil, Settings{Lanczos: true}); err == nil {
		t.Error("k = 0 accepted")
	}
}

// diagOp is a diagonal operator: its eigenvalues are its entries.
type diagOp []float64

func (d diagOp) Dim() int { return len(d) }

func (d diagOp) Apply(dst, x *mat.Dense) {
	_, k := x.Dims()
	for i, v := range d {
		for c := range k {
			dst.Set(i, c, v*x.At(i, c))
		}
	}
}

// TestLanczosSplit runs Lanczos on an operator of splitFrom + 3 entries
// (the basis products on two halves, odd length) against its known
// spectrum, and the two products against the plain sums.
func TestLanczosSplit(t *testing.T) {
	const n = splitFrom + 3
	rng := rand.New(rand.NewPCG(47, 48))
	d := make(diagOp, n)
	for i := range d {
		d[i] = rng.Float64()
	}
	for i := range 6 { // a cluster at the bottom
		d[rng.IntN(n)] = -1 - 1e-3*float64(i)
	}
	sorted := append([]float64(nil), d...)
	slices.Sort(sorted)
	const k = 4
	res, err := Smallest(d, k, nil, Settings{Lanczos: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged != k {
		t.Fatalf("converged %d of %d", res.Converged, k)
	}
	for i := range k {
		if diff := math.Abs(res.Values[i] - sorted[i]); diff > 1e-8 {
			t.Errorf("value %d: got %.15g, want %.15g", i, res.Values[i], sorted[i])
		}
	}

	l, w := randomBasis(n, 5, rng)
	c := make([]float64, 5)
	l.project(c, w, 5)
	for r := range 5 {
		if want := floats.Dot(l.row(l.q, r), w); math.Abs(c[r]-want) > 1e-10*math.Sqrt(n) {
			t.Errorf("project %d: got %.15g, want %.15g", r, c[r], want)
		}
	}
	want := append([]float64(nil), w...)
	for r := range 5 {
		floats.AddScaled(want, -c[r], l.row(l.q, r))
	}
	l.subtract(w, c, 5)
	if !floats.EqualApprox(w, want, 1e-12) {
		t.Error("subtract differs from the plain sums")
	}
}

// randomBasis returns a Lanczos state whose basis holds j random vectors
// of n entries (not orthonormal: for the products alone) and a random w.
func randomBasis(n, j int, rng *rand.Rand) (*lanczos, []float64) {
	l := &lanczos{n: n, q: newGeneral(j, n)}
	for i := range l.q.Data {
		l.q.Data[i] = rng.NormFloat64()
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	return l, w
}
