package eigen

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// projRef is Proj_PSD by gonum's full symmetric eigendecomposition.
func projRef(v *mat.SymDense) *mat.SymDense {
	var es mat.EigenSym
	if !es.Factorize(v, true) {
		panic("eigen")
	}
	var q mat.Dense
	es.VectorsTo(&q)
	vals := es.Values(nil)
	n := v.SymmetricDim()
	out := mat.NewSymDense(n, nil)
	for j, l := range vals {
		if l > 0 {
			out.SymRankOne(out, l, q.ColView(j))
		}
	}
	return out
}

func testMatrices(r *rand.Rand) []*mat.SymDense {
	var ms []*mat.SymDense
	for _, n := range []int{1, 2, 3, 5, 8, 13, 30, 61} {
		g := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				g.SetSym(i, j, r.NormFloat64())
			}
		}
		ms = append(ms, g)
		// Low rank PSD plus small noise: few positive eigenvalues.
		vals := make([]float64, n)
		for j := range vals {
			vals[j] = -1e-3 * r.Float64()
			if j < 2 {
				vals[j] = 1 + r.Float64()
			}
		}
		ms = append(ms, withSpectrum(vals, r))
		// Clusters: repeated positive and negative eigenvalues, exact zeros.
		for j := range vals {
			vals[j] = []float64{2, 2, 2, -1, -1, 0, 3, -1}[j%8]
		}
		ms = append(ms, withSpectrum(vals, r))
		// Nearly all negative, one tight positive cluster.
		for j := range vals {
			vals[j] = -float64(j + 1)
			if j < 3 {
				vals[j] = 1 + 1e-13*float64(j)
			}
		}
		ms = append(ms, withSpectrum(vals, r))
		// Block diagonal: the tridiagonal form splits.
		b := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n && j < i+2 && (i/3 == j/3); j++ {
				b.SetSym(i, j, r.NormFloat64())
			}
		}
		ms = append(ms, b)
		ms = append(ms, mat.NewSymDense(n, nil))
	}
	return ms
}

func TestProjectAgainstEigenSym(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	paths := map[int]int{}
	for mi, v := range testMatrices(r) {
		n := v.SymmetricDim()
		want := projRef(v)
		for _, full := range []bool{false, true} {
			e := NewProjector(n)
			e.full = full
			got := mat.NewSymDense(n, nil)
			if _, ok := e.Project(got, v); !ok {
				t.Fatalf("matrix %d (n = %d): no convergence", mi, n)
			}
			paths[e.lastPath]++
			var d mat.Dense
			d.Sub(got, want)
			if nd := mat.Norm(&d, 2); nd > 1e-11*(1+mat.Norm(v, 2)) {
				t.Fatalf("matrix %d (n = %d, full %v, path %d): ||Proj - ref||_F = %v", mi, n, full, e.lastPath, nd)
			}
			// In place.
			in := mat.NewSymDense(n, nil)
			in.CopySym(v)
			e.Project(in, in)
			d.Sub(in, want)
			if nd := mat.Norm(&d, 2); nd > 1e-11*(1+mat.Norm(v, 2)) {
				t.Fatalf("matrix %d (n = %d): in-place projection off by %v", mi, n, nd)
			}
		}
	}
	first := 1 // without full: the selective path, or LAPACK's with the tag openblas
	if syevd != nil {
		first = 3
	}
	if paths[first] == 0 || paths[2] == 0 {
		t.Fatalf("paths exercised: %v", paths)
	}
}

// TestBackTransform checks the reflector convention against Dorgtr: from
// z = I, backTransform leaves Q^T.
func TestBackTransform(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 7, 20, 70} {
		v := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				v.SetSym(i, j, r.NormFloat64())
			}
		}
		e := NewProjector(n)
		e.load(v)
		impl.Dsytrd(blas.Lower, n, e.a, n, e.d, e.e, e.tau, e.work, len(e.work))
		clear(e.z)
		for i := range n {
			e.z[i*n+i] = 1
		}
		e.backTransform(n)
		impl.Dorgtr(blas.Lower, n, e.a, n, e.tau, e.work, len(e.work))
		for i := range n {
			for c := range n {
				if got, want := e.z[c*n+i], e.a[i*n+c]; math.Abs(got-want) > 1e-13 {
					t.Fatalf("n = %d: Q[%d,%d] = %v, Dorgtr %v", n, i, c, got, want)
				}
			}
		}
	}
}

// TestProjectConcurrent: Projectors used from several goroutines at once
// (the SDR driver refines beside the rounding; sdrmap-batch solves models
// in parallel) give the results of serial use, on either backend (to
// rounding: inverse iteration's random starts differ from call to call).
func TestProjectConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const workers, n = 4, 90
	ms := make([]*mat.SymDense, workers)
	want := make([]*mat.SymDense, workers)
	for w := range ms {
		ms[w] = mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				ms[w].SetSym(i, j, r.NormFloat64())
			}
		}
		want[w] = mat.NewSymDense(n, nil)
		NewProjector(n).Project(want[w], ms[w])
	}
	var wg sync.WaitGroup
	bad := make([]bool, workers)
	for w := range workers {
		wg.Go(func() {
			e := NewProjector(n)
			got := mat.NewSymDense(n, nil)
			for range 20 {
				e.Project(got, ms[w])
				if !mat.EqualApprox(got, want[w], 1e-11*(1+mat.Norm(ms[w], 2))) {
					bad[w] = true
				}
			}
		})
	}
	wg.Wait()
	for w, b := range bad {
		if b {
			t.Fatalf("worker %d: a concurrent projection differs from the serial one", w)
		}
	}
}

// TestSmallest: Projector.Values and Smallest against mat.EigenSym's
// values, Smallest's pairs with residuals ||v x - lambda x|| and
// orthonormality at rounding level, through the full path (gonum) and the
// default one (LAPACK with the tag openblas).
func TestSmallest(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for mi, v := range testMatrices(r) {
		n := v.SymmetricDim()
		var es mat.EigenSym
		if !es.Factorize(v, false) {
			t.Fatal("reference did not converge")
		}
		want := es.Values(nil)
		scale := 1 + mat.Norm(v, 2)
		for kc, full := range []bool{false, true, false, false} {
			k := []int{(n + 1) / 2, (n + 1) / 2, 1, n}[kc]
			e := NewProjector(n)
			e.full = full
			all, ok := e.Values(v)
			if !ok {
				t.Fatalf("matrix %d (n = %d, full %v): Values did not converge", mi, n, full)
			}
			for j, l := range all {
				if math.Abs(l-want[j]) > 1e-12*scale {
					t.Fatalf("matrix %d (full %v): Values' eigenvalue %d is %v, want %v", mi, full, j, l, want[j])
				}
			}
			vecs := mat.NewDense(n, k, nil)
			vals, ok := e.Smallest(v, k, vecs)
			if !ok || len(vals) != k {
				t.Fatalf("matrix %d (n = %d, full %v): %d values, ok %v", mi, n, full, len(vals), ok)
			}
			if !full && !LAPACK() && n > 1 && e.lastPath != 1 {
				t.Fatalf("matrix %d (n = %d, k = %d): Smallest took the full decomposition, not inverse iteration", mi, n, k)
			}
			var av, g mat.Dense
			av.Mul(v, vecs)
			g.Mul(vecs.T(), vecs)
			for c, l := range vals {
				if math.Abs(l-want[c]) > 1e-12*scale {
					t.Fatalf("matrix %d (full %v): eigenvalue %d is %v, want %v", mi, full, c, l, want[c])
				}
				res := 0.0
				for i := range n {
					d := av.At(i, c) - l*vecs.At(i, c)
					res += d * d
				}
				if math.Sqrt(res) > 1e-11*scale {
					t.Fatalf("matrix %d (full %v): residual of pair %d is %v", mi, full, c, math.Sqrt(res))
				}
				for c2 := range k {
					want := 0.0
					if c == c2 {
						want = 1
					}
					if math.Abs(g.At(c, c2)-want) > 1e-11 {
						t.Fatalf("matrix %d (full %v): x_%d . x_%d = %v", mi, full, c, c2, g.At(c, c2))
					}
				}
			}
		}
	}
}
