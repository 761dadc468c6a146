package cyclic

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/eigen"
)

// certifier computes the bound of the package doc for the dual point of
// the multipliers: z = mu and, per frequency, y_k from the stationarity of
// U_k (y_ki = Re <(G_k U_k)_i, u_ki>), with lambda_min(G_k - Diag(y_k)) by
// Lanczos on the real form [[Re, -Im], [Im, Re]] of the Hermitian slack.
type certifier struct {
	a      *alm
	wr, wi []float64    // G_k(I, J) = wr - i wi of edge e at [k ne + e]
	y, g   []float64    // y_k at y[k n:]; gradient scratch
	warm   []*mat.Dense // per frequency, the last eigenvectors
}

func newCertifier(a *alm) *certifier {
	ne := len(a.p.Edges)
	return &certifier{a: a, wr: make([]float64, a.k*ne), wi: make([]float64, a.k*ne),
		y: make([]float64, a.k*a.n), warm: make([]*mat.Dense, a.k)}
}

// direction returns the smallest eigenvector of block k's slack found by
// the last certificate (real form), nil if none.
func (cf *certifier) direction(k int) []float64 {
	if cf.warm[k] == nil {
		return nil
	}
	return mat.Col(nil, 0, cf.warm[k])
}

// bound returns the certified lower bound on the energy (in the model's
// units) of the dual point of the multipliers at x, and the largest
// negative part of the slacks' smallest eigenvalues (scaled costs). stop
// cuts the eigensolves short, and then there is no bound (-Inf).
func (cf *certifier) bound(x []float64, tol float64, seed uint64, stop func() bool) (float64, float64) {
	a := cf.a
	m, ne := a.m, len(a.p.Edges)
	for j, t := range a.t {
		a.w[j] = t - a.mu[j]
	}
	base := 0.0
	for _, w := range a.w {
		base += w
	}
	base /= float64(m)
	if len(cf.g) != a.size() {
		cf.g = make([]float64, a.size())
	}
	a.gradient(x, cf.g)
	for e := range a.p.Edges {
		w := a.w[e*m : (e+1)*m]
		for k := range a.k {
			wr, wi := a.transform(w, k)
			// G_k(I, J) = conj(W) / 2m
			cf.wr[k*ne+e], cf.wi[k*ne+e] = wr/float64(2*m), wi/float64(2*m)
		}
	}
	b, dinf := base, 0.0
	for k := range a.k {
		ys := 0.0
		for i := range a.n {
			u, g := a.row(x, k, i), a.row(cf.g, k, i)
			d := 0.0
			for c, v := range u {
				d += v * g[c]
			}
			cf.y[k*a.n+i] = d / (2 * a.alpha[k])
			ys += cf.y[k*a.n+i]
		}
		lam := cf.lambdaMin(k, tol, seed, stop)
		if math.IsInf(lam, -1) {
			return math.Inf(-1), math.Inf(1)
		}
		b += a.alpha[k] * (ys + float64(a.n)*min(0, lam))
		dinf = max(dinf, -lam)
	}
	return a.p.Const + a.scale*b, max(0, dinf)
}

// lambdaMin returns a lower bound on the smallest eigenvalue of the slack
// G_k - Diag(y_k) (eigen.LowerBound of a Lanczos solve), -Inf if stop cut
// the solve short.
func (cf *certifier) lambdaMin(k int, tol float64, seed uint64, stop func() bool) float64 {
	a := cf.a
	n, ne := a.n, len(a.p.Edges)
	dim := 2 * n
	if a.real(k) {
		dim = n
	}
	wr, wi, y := cf.wr[k*ne:(k+1)*ne], cf.wi[k*ne:(k+1)*ne], cf.y[k*n:(k+1)*n]
	v, out := make([]float64, dim), make([]float64, dim)
	apply := func(dst, src *mat.Dense) {
		dr, sr := dst.RawMatrix(), src.RawMatrix()
		for c := range sr.Cols {
			for i := range dim {
				v[i] = sr.Data[i*sr.Stride+c]
				out[i] = -y[i%n] * v[i]
			}
			for e, ed := range a.p.Edges {
				I, J := ed.I, ed.J
				gr, gi := wr[e], wi[e]
				if dim == n {
					out[I] += gr * v[J]
					out[J] += gr * v[I]
					continue
				}
				// out_I += G(I,J) v_J with G(I,J) = gr - i gi; out_J += conj(G(I,J)) v_I
				out[I] += gr*v[J] + gi*v[n+J]
				out[n+I] += gr*v[n+J] - gi*v[J]
				out[J] += gr*v[I] - gi*v[n+I]
				out[n+J] += gr*v[n+I] + gi*v[I]
			}
			for i := range dim {
				dr.Data[i*dr.Stride+c] = out[i]
			}
		}
	}
	res, err := eigen.Smallest(eigen.Func{N: dim, F: apply}, 2, cf.warm[k],
		eigen.Settings{Lanczos: true, Tol: tol, MaxIter: 3000, Seed: seed, Stop: stop})
	if err != nil && (!errors.Is(err, eigen.ErrNotConverged) || (stop != nil && stop())) {
		return math.Inf(-1)
	}
	cf.warm[k] = res.Vectors
	return eigen.LowerBound(res)
}
