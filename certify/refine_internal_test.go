package certify

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestSimplexQP checks the bundle step's QP against sampled points of the
// simplex and its vertices: none may have a smaller objective.
func TestSimplexQP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		k := 1 + rng.IntN(12)
		b := mat.NewDense(k+rng.IntN(3), k, nil)
		for i := range b.RawMatrix().Data {
			b.RawMatrix().Data[i] = rng.NormFloat64()
		}
		gram := mat.NewSymDense(k, nil)
		gram.SymOuterK(1, b.T())
		lin := make([]float64, k)
		for j := range lin {
			lin[j] = 3 * rng.NormFloat64()
		}
		obj := func(a []float64) float64 {
			ga := mat.NewVecDense(k, nil)
			ga.MulVec(gram, mat.NewVecDense(k, a))
			return floats.Dot(lin, a) + floats.Dot(a, ga.RawVector().Data)/2
		}
		var eig mat.EigenSym
		if !eig.Factorize(gram, false) {
			t.Fatal("eigendecomposition failed")
		}
		alpha := simplexQP(gram, lin, 1/(eig.Values(nil)[k-1]+1e-300))
		if math.Abs(floats.Sum(alpha)-1) > 1e-12 || floats.Min(alpha) < 0 {
			t.Fatalf("trial %d: alpha %v off the simplex", trial, alpha)
		}
		best := obj(alpha)
		tol := 1e-6 * (1 + math.Abs(best))
		q := make([]float64, k)
		for s := range 2000 {
			clear(q)
			if s < k {
				q[s] = 1
			} else {
				for j := range q {
					q[j] = rng.ExpFloat64()
				}
				floats.Scale(1/floats.Sum(q), q)
			}
			if v := obj(q); v < best-tol {
				t.Fatalf("trial %d (k = %d): objective %.9g at %v, below the QP's %.9g", trial, k, v, q, best)
			}
		}
	}
}

// TestProjectSimplex checks the projection's optimality condition: p - a is
// constant on p's support and at most that constant elsewhere.
func TestProjectSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		k := 1 + rng.IntN(10)
		a := make([]float64, k)
		for j := range a {
			a[j] = 2 * rng.NormFloat64()
		}
		p := append([]float64(nil), a...)
		projectSimplex(p, make([]float64, k))
		if math.Abs(floats.Sum(p)-1) > 1e-12 || floats.Min(p) < 0 {
			t.Fatalf("projection %v of %v off the simplex", p, a)
		}
		theta := math.NaN()
		for j := range p {
			if p[j] > 0 {
				if d := a[j] - p[j]; math.IsNaN(theta) {
					theta = d
				} else if math.Abs(d-theta) > 1e-12 {
					t.Fatalf("projection %v of %v: shifts %v and %v on the support", p, a, theta, d)
				}
			}
		}
		for j := range p {
			if p[j] == 0 && a[j] > theta+1e-12 {
				t.Fatalf("projection %v of %v: entry %d zero above the shift %v", p, a, j, theta)
			}
		}
	}
}

// TestBundleReduce checks the bundle's Gram matrix and values at the
// center, carried through add and reduce, against direct products.
func TestBundleReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 40
	vec := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	randPlanes := func(k int) []plane {
		ps := make([]plane, k)
		for j := range ps {
			ps[j] = plane{c: rng.NormFloat64(), g: vec()}
		}
		return ps
	}
	b := &bundle{center: vec()}
	b.add(randPlanes(5)...)
	for round := range 20 {
		alpha := make([]float64, len(b.planes))
		for j := range alpha {
			if rng.IntN(3) > 0 {
				alpha[j] = rng.ExpFloat64()
			}
		}
		alpha[0] += 0.1
		floats.Scale(1/floats.Sum(alpha), alpha)
		keep := rng.Perm(len(b.planes))[:rng.IntN(min(len(b.planes), 6))]
		center := b.center
		if round%2 == 0 {
			center = vec()
		}
		at := make([]float64, len(b.planes))
		for j, p := range b.planes {
			at[j] = p.at(center)
		}
		b = b.reduce(alpha, keep, center, at)
		b.add(randPlanes(1 + rng.IntN(4))...)
		for j, p := range b.planes {
			tol := 1e-12 * (1 + math.Abs(p.at(center)))
			if math.Abs(b.atC[j]-p.at(center)) > tol {
				t.Fatalf("round %d, plane %d: value %v at the center, want %v", round, j, b.atC[j], p.at(center))
			}
			for l, q := range b.planes {
				want := floats.Dot(p.g, q.g)
				if len(b.gram[j]) != len(b.planes) || math.Abs(b.gram[j][l]-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("round %d: gram[%d][%d] = %v, want %v", round, j, l, b.gram[j][l], want)
				}
			}
		}
	}
}
