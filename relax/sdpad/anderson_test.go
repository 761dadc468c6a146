package sdpad

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestAndersonLinear: on an affine contraction T(u) = M u + c of dimension
// d, type-II Anderson acceleration with memory d is GMRES in disguise and
// reaches the fixed point (I - M)^{-1} c, solved directly, in about d + 2
// steps, where the plain iteration (contraction 0.95) is still far off;
// and a step that increases the residual is rejected for T of the
// previous point.
func TestAndersonLinear(t *testing.T) {
	const d = 8
	r := rand.New(rand.NewPCG(3, 4))
	var q mat.QR
	q.Factorize(mat.NewDense(d, d, randSlice(r, d*d)))
	var qm mat.Dense
	q.QTo(&qm)
	diag := mat.NewDiagDense(d, nil)
	for i := range d {
		diag.SetDiag(i, -0.95+1.9*float64(i)/(d-1))
	}
	var m mat.Dense
	m.Product(&qm, diag, qm.T())
	c := mat.NewVecDense(d, randSlice(r, d))
	var ia mat.Dense // I - M
	ia.Scale(-1, &m)
	for i := range d {
		ia.Set(i, i, 1+ia.At(i, i))
	}
	var want mat.VecDense
	if err := want.SolveVec(&ia, c); err != nil {
		t.Fatal(err)
	}
	apply := func(dst, u []float64) {
		var v mat.VecDense
		v.MulVec(&m, mat.NewVecDense(d, u))
		v.AddVec(&v, c)
		copy(dst, v.RawVector().Data)
	}
	a := newAnderson(d, d)
	a.restart() // u = f = 0
	steps := 0
	for ; steps < 3*d; steps++ {
		apply(a.f, a.u)
		a.step()
		if floats.Distance(a.u, want.RawVector().Data, 2) < 1e-9 {
			break
		}
	}
	if steps > d+2 {
		t.Errorf("Anderson: %d steps to the fixed point, want at most %d (%d rejected)", steps, d+2, a.rejected)
	}
	plain := make([]float64, d)
	for range steps {
		apply(plain, plain)
	}
	if dist := floats.Distance(plain, want.RawVector().Data, 2); dist < 1e-3 {
		t.Errorf("plain iteration %v from the fixed point after %d steps: the test map contracts too fast", dist, steps)
	}

	// A step whose residual grows is rejected for T of the previous point.
	b := newAnderson(2, 1)
	b.restart()
	b.f[0] = 1 // T(u) = u/2 + 1: T(0) = 1
	b.step()
	b.f[0] = 1.5 // T(1)
	if !b.step() || math.Abs(b.u[0]-2) > 1e-8 {
		t.Fatalf("extrapolated to %v, want the fixed point 2", b.u[0])
	}
	b.f[0] = b.u[0] + 10 // residual 10 > 0.5
	if !b.step() || b.rejected != 1 || b.u[0] != 1.5 {
		t.Fatalf("rejected %d, next point %v, want 1 and the previous T = 1.5", b.rejected, b.u[0])
	}
}

func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

// TestAndersonMemory: the memory shrinks so that the 2 m + 5 vectors fit
// in andersonBytes, and the acceleration is off below two differences.
func TestAndersonMemory(t *testing.T) {
	for _, c := range []struct{ m, size, want int }{
		{10, 1 << 20, 10},               // 8 MiB vectors: 25 of them fit
		{10, andersonBytes / 8 / 15, 5}, // 15 vectors fit
		{10, andersonBytes / 8 / 8, 0},  // 8 fit: one difference
		{0, 100, 0},
	} {
		if got := andersonMemory(c.m, c.size); got != c.want {
			t.Errorf("andersonMemory(%d, %d) = %d, want %d", c.m, c.size, got, c.want)
		}
	}
	if newAnderson(10, andersonBytes/8/8) != nil {
		t.Errorf("newAnderson without room for two differences is not nil")
	}
}

// TestAndersonBlocked checks the blocked passes of step on a state longer
// than two blocks against the least-squares step solved directly (QR of the
// explicit difference matrices) on an affine contraction, through a full
// memory's wrap-around (a rejected step restarts both from T of the
// previous point).
func TestAndersonBlocked(t *testing.T) {
	const size, m = 2*andersonBlock + 777, 4
	r := rand.New(rand.NewPCG(7, 8))
	diag, c := randSlice(r, size), randSlice(r, size)
	for i := range diag {
		diag[i] = 0.45 + 0.15*diag[i]
	}
	a := newAnderson(m, size)
	a.restart() // u = 0
	var fs, gs [][]float64
	full := 0
	for k := range 16 {
		for i, u := range a.u {
			a.f[i] = diag[i]*u + c[i]
		}
		f := append([]float64(nil), a.f...)
		g := make([]float64, size)
		floats.SubTo(g, a.u, f)
		fs, gs = append(fs, f), append(gs, g)
		rejected := a.rejected
		a.step()
		var want []float64
		switch q := min(len(fs)-1, m); {
		case a.rejected > rejected:
			want, fs, gs = fs[len(fs)-2], nil, nil
		case q == 0:
			want = f
		default:
			dF, dG := mat.NewDense(size, q, nil), mat.NewDense(size, q, nil)
			for j := range q {
				h := len(fs) - q + j
				for i := range size {
					dF.Set(i, j, fs[h][i]-fs[h-1][i])
					dG.Set(i, j, gs[h][i]-gs[h-1][i])
				}
			}
			var gamma, corr mat.VecDense
			if err := gamma.SolveVec(dG, mat.NewVecDense(size, g)); err != nil {
				t.Fatal(err)
			}
			corr.MulVec(dF, &gamma)
			want = append([]float64(nil), f...)
			floats.Sub(want, corr.RawVector().Data)
			if q == m {
				full++
			}
		}
		if d := floats.Distance(a.u, want, 2); d > 1e-8*floats.Norm(want, 2) {
			t.Fatalf("step %d: the next point is %v off the direct least-squares step", k, d)
		}
	}
	if full < 2 {
		t.Fatalf("the memory was full in %d steps", full)
	}
}
