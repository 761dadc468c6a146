package eigen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randSym returns a random symmetric matrix with N(0, 1/n) entries
// (spectrum close to the semicircle on [-2, 2]).
func randSym(n int, rng *rand.Rand) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	s := 1 / math.Sqrt(float64(n))
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, rng.NormFloat64()*s)
		}
	}
	return a
}

// randOrtho returns a random n x n orthogonal matrix.
func randOrtho(n int, rng *rand.Rand) *mat.Dense {
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	q := mat.NewDense(n, n, nil)
	qr.QTo(q)
	return q
}

// withSpectrum returns Q diag(vals) Qᵀ for a random orthogonal Q.
func withSpectrum(vals []float64, rng *rand.Rand) *mat.SymDense {
	n := len(vals)
	q := randOrtho(n, rng)
	var qd mat.Dense
	qd.Mul(q, mat.NewDiagDense(n, vals))
	var a mat.Dense
	a.Mul(&qd, q.T())
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// oracle returns the eigenvalues (ascending) and eigenvectors of a.
func oracle(t testing.TB, a mat.Symmetric) ([]float64, *mat.Dense) {
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		t.Fatal("oracle eigensolve failed")
	}
	v := mat.NewDense(a.SymmetricDim(), a.SymmetricDim(), nil)
	es.VectorsTo(v)
	return es.Values(nil), v
}

// toSym forms the matrix of op by applying it to the identity.
func toSym(op Operator) *mat.SymDense {
	n := op.Dim()
	id := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		id.Set(i, i, 1)
	}
	a := mat.NewDense(n, n, nil)
	op.Apply(a, id)
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// check compares res with the dense oracle of a: eigenvalues to 1e-8
// relative to ||A||, true residuals, orthonormality and, when the gap to
// the next eigenvalue is clear, the angle between the computed and exact
// invariant subspaces. With vectors false only values and residuals are
// checked (repeated eigenvalues straddling k).
func check(t *testing.T, a *mat.SymDense, res Result, k int, largest, vectors bool) {
	t.Helper()
	n := a.SymmetricDim()
	vals, vecs := oracle(t, a)
	norm := max(math.Abs(vals[0]), math.Abs(vals[n-1]))
	if len(res.Values) != k || len(res.Residuals) != k {
		t.Fatalf("got %d values, %d residuals, want %d", len(res.Values), len(res.Residuals), k)
	}
	if r, c := res.Vectors.Dims(); r != n || c != k {
		t.Fatalf("vectors are %dx%d, want %dx%d", r, c, n, k)
	}
	if res.Converged != k {
		t.Errorf("converged %d of %d", res.Converged, k)
	}
	idx := func(i int) int { // index of the i-th wanted eigenvalue in vals
		if largest {
			return n - 1 - i
		}
		return i
	}
	for i := 0; i < k; i++ {
		if d := math.Abs(res.Values[i] - vals[idx(i)]); d > 1e-8*norm {
			t.Errorf("value %d: got %.15g, want %.15g (diff %.2g, ||A|| %.3g)", i, res.Values[i], vals[idx(i)], d, norm)
		}
	}
	var au mat.Dense
	au.Mul(a, res.Vectors)
	for i := 0; i < k; i++ {
		var r2 float64
		for j := 0; j < n; j++ {
			d := au.At(j, i) - res.Values[i]*res.Vectors.At(j, i)
			r2 += d * d
		}
		r := math.Sqrt(r2)
		if r > 1.01e-8*norm+1e-14*norm {
			t.Errorf("pair %d: true residual %.3g > 1e-8 ||A|| = %.3g", i, r, 1e-8*norm)
		}
		if math.Abs(r-res.Residuals[i]) > 1e-12*norm {
			t.Errorf("pair %d: reported residual %.3g, true %.3g", i, res.Residuals[i], r)
		}
	}
	var utu mat.Dense
	utu.Mul(res.Vectors.T(), res.Vectors)
	for i := 0; i < k; i++ {
		utu.Set(i, i, utu.At(i, i)-1)
	}
	if d := mat.Norm(&utu, 1); d > 1e-12 {
		t.Errorf("||UᵀU - I||_1 = %.3g", d)
	}
	if !vectors || k == n {
		return
	}
	gap := math.Abs(vals[idx(k-1)] - vals[idx(k)])
	if gap < 1e-3*norm {
		return
	}
	// sin Θ(U, V_k) in Frobenius norm is ||V_restᵀ U||_F <= ||R||_F / gap.
	rest := mat.NewDense(n, n-k, nil)
	for i, j := 0, 0; i < n; i++ {
		if (largest && i < n-k) || (!largest && i >= k) {
			rest.SetCol(j, mat.Col(nil, i, vecs))
			j++
		}
	}
	var proj mat.Dense
	proj.Mul(rest.T(), res.Vectors)
	var rf float64
	for _, r := range res.Residuals {
		rf += r * r
	}
	if s := mat.Norm(&proj, 2); s > 2*math.Sqrt(rf)/gap+1e-12 {
		t.Errorf("subspace angle: sin = %.3g, bound %.3g", s, math.Sqrt(rf)/gap)
	}
}

func solveBoth(op Operator, k int, largest bool, warm *mat.Dense, s Settings) (Result, error) {
	if largest {
		return Largest(op, k, warm, s)
	}
	return Smallest(op, k, warm, s)
}

func TestRandom(t *testing.T) {
	sizes := []int{50, 120, 400}
	if testing.Short() {
		sizes = []int{50, 200}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range sizes {
		a := randSym(n, rng)
		for _, k := range []int{1, 4, 8, 16} {
			for _, largest := range []bool{true, false} {
				t.Run(fmt.Sprintf("n=%d/k=%d/largest=%v", n, k, largest), func(t *testing.T) {
					res, err := solveBoth(SymOp{a}, k, largest, nil, Settings{Seed: 7})
					if err != nil {
						t.Fatal(err)
					}
					check(t, a, res, k, largest, true)
					t.Logf("iterations %d, matvecs %d", res.Iterations, res.MatVecs)
				})
			}
		}
	}
}

// spectrumTest builds a matrix with the given eigenvalues and checks both
// ends of it.
func spectrumTest(t *testing.T, vals []float64, k int, largest, vectors bool) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := withSpectrum(vals, rng)
	res, err := solveBoth(SymOp{a}, k, largest, nil, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations == 0 {
		t.Fatal("dense fallback used, want the iterative path")
	}
	check(t, a, res, k, largest, vectors)
	t.Logf("iterations %d, matvecs %d", res.Iterations, res.MatVecs)
}

func TestClustered(t *testing.T) {
	const n = 200
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{4, 8, 12} {
		for _, largest := range []bool{true, false} {
			t.Run(fmt.Sprintf("k=%d/largest=%v", k, largest), func(t *testing.T) {
				// Ten eigenvalues within 1e-6 at the wanted end, the rest in [-1, 0.9].
				vals := make([]float64, n)
				for i := range vals {
					vals[i] = -1 + 1.9*rng.Float64()
				}
				for i := 0; i < 10; i++ {
					vals[i] = 1 + float64(i)*1e-7
					if !largest {
						vals[i] = -1.1 - float64(i)*1e-7
					}
				}
				spectrumTest(t, vals, k, largest, true)
			})
		}
	}
}

func TestRepeated(t *testing.T) {
	const n = 150
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range []int{5, 6} {
		for _, largest := range []bool{true, false} {
			t.Run(fmt.Sprintf("k=%d/largest=%v", k, largest), func(t *testing.T) {
				// 3, 2.5, 2, then 1.5 five times (positions 4..8 straddle k).
				vals := make([]float64, n)
				for i := range vals {
					vals[i] = -1 + 2*rng.Float64()
				}
				copy(vals, []float64{3, 2.5, 2, 1.5, 1.5, 1.5, 1.5, 1.5})
				if !largest {
					for i := 0; i < 8; i++ {
						vals[i] = -vals[i]
					}
				}
				spectrumTest(t, vals, k, largest, false)
			})
		}
	}
}

func TestRankDeficient(t *testing.T) {
	const n, k = 120, 8
	rng := rand.New(rand.NewPCG(9, 10))
	b := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1, b)
	for _, largest := range []bool{true, false} {
		t.Run(fmt.Sprintf("largest=%v", largest), func(t *testing.T) {
			res, err := solveBoth(SymOp{a}, k, largest, nil, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, a, res, k, largest, false)
			if largest {
				for i := 3; i < k; i++ {
					if math.Abs(res.Values[i]) > 1e-8*res.Values[0] {
						t.Errorf("value %d = %.3g, want 0", i, res.Values[i])
					}
				}
			}
			t.Logf("values %.6g, iterations %d, matvecs %d", res.Values, res.Iterations, res.MatVecs)
		})
	}
}

// sparse is a symmetric matrix in compressed sparse row form.
type sparse struct {
	n      int
	rowPtr []int
	col    []int
	val    []float64
}

// blockTridiag returns a random symmetric block tridiagonal matrix with
// blocks of size bs: diagonal blocks with entries of diagonal d + U(0, 1)
// and off-diagonal couplings of size about c.
func blockTridiag(n, bs int, d, c float64, rng *rand.Rand) *sparse {
	dense := map[[2]int]float64{}
	for i := 0; i < n; i++ {
		dense[[2]int{i, i}] = d + rng.Float64()
		for j := i + 1; j < n && j/bs <= i/bs+1; j++ {
			v := c * (2*rng.Float64() - 1)
			dense[[2]int{i, j}] = v
			dense[[2]int{j, i}] = v
		}
	}
	s := &sparse{n: n, rowPtr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		lo, hi := max(0, (i/bs-1)*bs), min(n, (i/bs+2)*bs)
		for j := lo; j < hi; j++ {
			if v, ok := dense[[2]int{i, j}]; ok {
				s.col = append(s.col, j)
				s.val = append(s.val, v)
			}
		}
		s.rowPtr[i+1] = len(s.col)
	}
	return s
}

// lowRankMinusSparse is V = Y Yᵀ - S/mu, applied without forming V, as in
// the low-rank ADMM.
type lowRankMinusSparse struct {
	y  *mat.Dense
	s  *sparse
	mu float64
}

func (v *lowRankMinusSparse) Dim() int { return v.s.n }

func (v *lowRankMinusSparse) Apply(dst, x *mat.Dense) {
	var ytx mat.Dense
	ytx.Mul(v.y.T(), x)
	dst.Mul(v.y, &ytx)
	dr, xr := dst.RawMatrix(), x.RawMatrix()
	k := xr.Cols
	f := -1 / v.mu
	for i := 0; i < v.s.n; i++ {
		d := dr.Data[i*dr.Stride : i*dr.Stride+k]
		for p := v.s.rowPtr[i]; p < v.s.rowPtr[i+1]; p++ {
			a := f * v.s.val[p]
			xj := xr.Data[v.s.col[p]*xr.Stride : v.s.col[p]*xr.Stride+k]
			for c := range d {
				d[c] += a * xj[c]
			}
		}
	}
}

func newLowRankMinusSparse(n int, rng *rand.Rand) *lowRankMinusSparse {
	y := mat.NewDense(n, 4, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 4; j++ {
			y.Set(i, j, rng.NormFloat64()*float64(4-j)/math.Sqrt(float64(n)))
		}
	}
	return &lowRankMinusSparse{y: y, s: blockTridiag(n, 3, 0, 0.3, rng), mu: 2}
}

func TestLowRankMinusSparse(t *testing.T) {
	const n = 300
	rng := rand.New(rand.NewPCG(11, 12))
	op := newLowRankMinusSparse(n, rng)
	a := toSym(op)
	for _, tc := range []struct {
		k       int
		largest bool
	}{{4, true}, {8, true}, {16, true}, {4, false}} {
		t.Run(fmt.Sprintf("k=%d/largest=%v", tc.k, tc.largest), func(t *testing.T) {
			res, err := solveBoth(op, tc.k, tc.largest, nil, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, a, res, tc.k, tc.largest, true)
			t.Logf("iterations %d, matvecs %d", res.Iterations, res.MatVecs)
		})
	}
}

// spiked returns a random symmetric matrix (semicircle bulk on [-2, 2]) plus
// k rank-one spikes of strength 3, 3.5, ...: k separated leading eigenvalues
// above a continuous bulk, the shape of the operators of the ADMM.
func spiked(n, k int, rng *rand.Rand) *mat.SymDense {
	a := randSym(n, rng)
	v := mat.NewVecDense(n, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			v.SetVec(j, rng.NormFloat64())
		}
		v.ScaleVec(1/mat.Norm(v, 2), v)
		a.SymRankOne(a, 3+float64(i)/2, v)
	}
	return a
}

// perturb returns a + delta E with E random symmetric of spectral norm 1.
func perturb(t testing.TB, a *mat.SymDense, delta float64, rng *rand.Rand) *mat.SymDense {
	n := a.SymmetricDim()
	e := randSym(n, rng)
	vals, _ := oracle(t, e)
	f := delta / max(-vals[0], vals[n-1])
	b := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			b.SetSym(i, j, a.At(i, j)+f*e.At(i, j))
		}
	}
	return b
}

// TestWarmStart solves A, then A + delta E warm-started from the first
// result. Each LOBPCG iteration reduces the residual by a factor set by the
// spectrum, so the saving is about log(Tol) / log(Tol / (delta/||A||)):
// with ||A|| = 6.6, Tol = 1e-8 and delta = 1e-3 it is about 2x, and it
// reaches 3-4x for the small changes of a converging ADMM (delta = 1e-6).
func TestWarmStart(t *testing.T) {
	const n, k = 400, 8
	for _, tc := range []struct {
		delta, minRatio float64
	}{{1e-3, 1.6}, {1e-6, 3}} {
		t.Run(fmt.Sprintf("delta=%g", tc.delta), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(13, 14))
			a := spiked(n, k, rng)
			prev, err := Largest(SymOp{a}, k, nil, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			b := perturb(t, a, tc.delta, rng)
			cold, err := Largest(SymOp{b}, k, nil, Settings{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			warm, err := Largest(SymOp{b}, k, prev.Vectors, Settings{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			check(t, b, cold, k, true, true)
			check(t, b, warm, k, true, true)
			ratio := float64(cold.MatVecs) / float64(warm.MatVecs)
			t.Logf("cold %d matvecs (%d iterations), warm %d (%d), ratio %.2f", cold.MatVecs, cold.Iterations, warm.MatVecs, warm.Iterations, ratio)
			if ratio < tc.minRatio {
				t.Errorf("warm start saves only %.2fx, want >= %gx", ratio, tc.minRatio)
			}
		})
	}
}

// TestWarmShapes passes degenerate warm starts: zero, rank deficient, wider
// than the basis, a single column, and the exact eigenvectors.
func TestWarmShapes(t *testing.T) {
	const n, k = 150, 6
	rng := rand.New(rand.NewPCG(15, 16))
	a := spiked(n, k, rng)
	_, vecs := oracle(t, a)
	exact := mat.DenseCopyOf(vecs.Slice(0, n, n-k, n))
	dup := mat.NewDense(n, 4, nil)
	for j := 0; j < 4; j++ {
		dup.SetCol(j, mat.Col(nil, n-1, vecs))
	}
	wide := mat.NewDense(n, 40, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 40; j++ {
			wide.Set(i, j, rng.NormFloat64())
		}
	}
	for _, tc := range []struct {
		name string
		warm *mat.Dense
	}{
		{"zero", mat.NewDense(n, k, nil)},
		{"duplicate", dup},
		{"wide", wide},
		{"one", mat.DenseCopyOf(vecs.Slice(0, n, n-1, n))},
		{"exact", exact},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Largest(SymOp{a}, k, tc.warm, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, a, res, k, true, true)
			if tc.name == "exact" && res.Iterations != 1 {
				t.Errorf("exact warm start took %d iterations, want 1", res.Iterations)
			}
			t.Logf("iterations %d, matvecs %d", res.Iterations, res.MatVecs)
		})
	}
}

func TestTiny(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{1, 2, 5, 20} {
		a := randSym(n, rng)
		for k := 1; k <= n; k++ {
			if n == 20 && k%5 != 0 {
				continue
			}
			for _, largest := range []bool{true, false} {
				t.Run(fmt.Sprintf("n=%d/k=%d/largest=%v", n, k, largest), func(t *testing.T) {
					res, err := solveBoth(SymOp{a}, k, largest, nil, Settings{})
					if err != nil {
						t.Fatal(err)
					}
					check(t, a, res, k, largest, true)
				})
			}
		}
	}
}

func TestZero(t *testing.T) {
	for _, n := range []int{4, 100} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			a := mat.NewSymDense(n, nil)
			for _, largest := range []bool{true, false} {
				res, err := solveBoth(SymOp{a}, 4, largest, nil, Settings{})
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range res.Values {
					if v != 0 || res.Residuals[i] != 0 {
						t.Errorf("pair %d: value %g, residual %g, want 0, 0", i, v, res.Residuals[i])
					}
				}
				if res.Converged != 4 {
					t.Errorf("converged %d of 4", res.Converged)
				}
			}
		})
	}
}

func TestNonFinite(t *testing.T) {
	for _, n := range []int{3, 100} {
		for _, bad := range []float64{math.NaN(), math.Inf(1)} {
			for _, after := range []int{0, 3} {
				if n < 10 && after > 0 {
					continue // the dense fallback applies the operator once
				}
				t.Run(fmt.Sprintf("n=%d/%g/after=%d", n, bad, after), func(t *testing.T) {
					calls := 0
					op := Func{N: n, F: func(dst, x *mat.Dense) {
						dst.Copy(x)
						for i := 0; i < n; i++ {
							row := dst.RawRowView(i)
							for j := range row {
								row[j] *= float64(i + 1)
							}
						}
						if calls >= after {
							dst.Set(n/2, 0, bad)
						}
						calls++
					}}
					for _, largest := range []bool{true, false} {
						calls = 0
						res, err := solveBoth(op, 2, largest, nil, Settings{})
						if !errors.Is(err, ErrBreakdown) {
							t.Fatalf("got error %v, want ErrBreakdown", err)
						}
						for _, v := range append(res.Values, res.Residuals...) {
							if math.IsNaN(v) {
								t.Fatal("NaN returned")
							}
						}
					}
				})
			}
		}
	}
	rng := rand.New(rand.NewPCG(19, 20))
	a := randSym(50, rng)
	warm := mat.NewDense(50, 2, nil)
	warm.Set(3, 1, math.NaN())
	if _, err := Largest(SymOp{a}, 2, warm, Settings{}); err == nil {
		t.Error("NaN warm start accepted")
	}
}

func TestArguments(t *testing.T) {
	a := SymOp{mat.NewSymDense(10, nil)}
	for _, k := range []int{0, -1, 11} {
		if _, err := Largest(a, k, nil, Settings{}); err == nil {
			t.Errorf("k=%d accepted", k)
		}
	}
	if _, err := Largest(a, 2, mat.NewDense(9, 2, nil), Settings{}); err == nil {
		t.Error("warm start with wrong rows accepted")
	}
	if _, err := Largest(Func{N: 0}, 1, nil, Settings{}); err == nil {
		t.Error("empty operator accepted")
	}
}

func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	a := randSym(200, rng)
	r1, err1 := Largest(SymOp{a}, 6, nil, Settings{Seed: 5})
	r2, err2 := Largest(SymOp{a}, 6, nil, Settings{Seed: 5})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if r1.MatVecs != r2.MatVecs || !mat.Equal(r1.Vectors, r2.Vectors) {
		t.Error("equal seeds gave different results")
	}
	for i := range r1.Values {
		if r1.Values[i] != r2.Values[i] || r1.Residuals[i] != r2.Residuals[i] {
			t.Errorf("pair %d differs", i)
		}
	}
	r3, err := Largest(SymOp{a}, 6, nil, Settings{Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	check(t, a, r3, 6, true, true)
}

func TestNotConverged(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	a := randSym(300, rng)
	res, err := Largest(SymOp{a}, 8, nil, Settings{MaxIter: 3})
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("got %v, want ErrNotConverged", err)
	}
	if res.Converged >= 8 || res.Iterations != 3 || len(res.Values) != 8 {
		t.Fatalf("converged %d, iterations %d, %d values", res.Converged, res.Iterations, len(res.Values))
	}
	// The residuals of an unconverged result are still explicit.
	var au mat.Dense
	au.Mul(a, res.Vectors)
	for i := range res.Values {
		var r2 float64
		for j := 0; j < 300; j++ {
			d := au.At(j, i) - res.Values[i]*res.Vectors.At(j, i)
			r2 += d * d
		}
		if math.Abs(math.Sqrt(r2)-res.Residuals[i]) > 1e-12 {
			t.Errorf("pair %d: reported residual %.6g, true %.6g", i, res.Residuals[i], math.Sqrt(r2))
		}
	}
}

// TestStop: a Stop hook that fires at the second check ends the solve
// after two iterations with ErrNotConverged, residuals near the explicit
// ones (not verified: from the implicit update).
func TestStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	a := randSym(300, rng)
	calls := 0
	res, err := Smallest(SymOp{a}, 8, nil, Settings{Stop: func() bool { calls++; return calls == 2 }})
	if !errors.Is(err, ErrNotConverged) || res.Iterations != 2 || len(res.Values) != 8 {
		t.Fatalf("err %v, iterations %d, %d values", err, res.Iterations, len(res.Values))
	}
	var au mat.Dense
	au.Mul(a, res.Vectors)
	var r0 mat.VecDense
	r0.AddScaledVec(au.ColView(0), -res.Values[0], res.Vectors.ColView(0))
	if math.Abs(r0.Norm(2)-res.Residuals[0]) > 1e-8*(1+r0.Norm(2)) {
		t.Fatalf("reported residual %.6g, true %.6g", res.Residuals[0], r0.Norm(2))
	}
}

func TestNoVerify(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	a := spiked(300, 8, rng)
	res, err := Largest(SymOp{a}, 8, nil, Settings{NoVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	check(t, a, res, 8, true, true)
}

// TestLowerBound certifies λ_min of an implicit operator: LowerBound <=
// λ_min <= Values[0].
func TestLowerBound(t *testing.T) {
	const n = 300
	rng := rand.New(rand.NewPCG(29, 30))
	op := newLowRankMinusSparse(n, rng)
	vals, _ := oracle(t, toSym(op))
	for _, tol := range []float64{1e-4, 1e-8} {
		res, err := Smallest(op, 2, nil, Settings{Tol: tol})
		if err != nil {
			t.Fatal(err)
		}
		lb := LowerBound(res)
		if !(lb <= vals[0] && vals[0] <= res.Values[0]) {
			t.Errorf("tol %g: want %.15g <= %.15g <= %.15g", tol, lb, vals[0], res.Values[0])
		}
		t.Logf("tol %g: bound %.12g, λ_min %.12g, Ritz %.12g", tol, lb, vals[0], res.Values[0])
	}
	if !math.IsInf(LowerBound(Result{}), -1) {
		t.Error("empty result should bound by -Inf")
	}
}
