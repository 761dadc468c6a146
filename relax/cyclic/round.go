package cyclic

import (
	"math"
	"math/rand/v2"
)

// round reads assignments from the phases of frequency 1: at an integral
// point u_1i = omega^-x_i v for a common unit v, so x_i = -arg(u_1i . conj(g))
// m / 2 pi (mod m, up to a common shift that leaves E unchanged) for any
// g with v . conj(g) != 0. It tries the top right singular vector of U_1
// and draws-1 random complex Gaussian g, and returns the best assignment
// and its energy.
func (a *alm) round(x []float64, draws int, rng *rand.Rand) ([]int, float64) {
	r := a.r
	g := make([]float64, 2*r)
	a.topSingular(x, g, rng)
	best, cur := make([]int, a.n), make([]int, a.n)
	bestE := math.Inf(1)
	for d := range draws {
		if d > 0 {
			for c := range g {
				g[c] = rng.NormFloat64()
			}
		}
		for i := range a.n {
			u := a.row(x, 0, i)
			var zr, zi float64 // u . conj(g)
			for c := 0; c < 2*r; c += 2 {
				zr += u[c]*g[c] + u[c+1]*g[c+1]
				zi += u[c+1]*g[c] - u[c]*g[c+1]
			}
			cur[i] = mod(int(math.Round(-math.Atan2(zi, zr)*float64(a.m)/(2*math.Pi))), a.m)
		}
		if e := a.p.Energy(cur); e < bestE {
			bestE = e
			copy(best, cur)
		}
	}
	return best, bestE
}

// topSingular sets g to the top right singular vector of U_1 (complex,
// 2r reals) by power iteration on U_1^* U_1 from a random start.
func (a *alm) topSingular(x, g []float64, rng *rand.Rand) {
	r := a.r
	for c := range g {
		g[c] = rng.NormFloat64()
	}
	h := make([]float64, 2*r)
	for range 30 {
		clear(h)
		for i := range a.n {
			u := a.row(x, 0, i)
			var zr, zi float64 // z = u . g (no conjugate): (U g)_i
			for c := 0; c < 2*r; c += 2 {
				zr += u[c]*g[c] - u[c+1]*g[c+1]
				zi += u[c]*g[c+1] + u[c+1]*g[c]
			}
			for c := 0; c < 2*r; c += 2 { // h += conj(u) z
				h[c] += u[c]*zr + u[c+1]*zi
				h[c+1] += u[c]*zi - u[c+1]*zr
			}
		}
		nn := 0.0
		for _, v := range h {
			nn += v * v
		}
		if nn == 0 {
			return
		}
		s := 1 / math.Sqrt(nn)
		for c := range g {
			g[c] = h[c] * s
		}
	}
	// The phases read u . conj(g); the singular direction is conj(g).
	for c := 1; c < 2*r; c += 2 {
		g[c] = -g[c]
	}
}
