package sdr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/model"
)

// BenchmarkFaceSym times a product with the compressed slack U^T S U the
// two ways: through Xbar's coordinates (Face.Lift, Sym.MulMat,
// Face.Restrict) and by FaceSym, on one column (Lanczos) and eight
// (LOBPCG), for a binary grid, a 4-label grid, ORIENT (16 labels, degree
// 50) and a dense 10-label matching model like the object-detection ones.
func BenchmarkFaceSym(b *testing.B) {
	r := rand.New(rand.NewPCG(17, 18))
	orient, _ := gen.Orient(200, 16, 50, 0.1, 1)
	for _, c := range []struct {
		name string
		m    *model.Model
	}{
		{"binary-grid-100", gridModel(r, 100, 2)},
		{"grid-100x4", gridModel(r, 100, 4)},
		{"orient-200", orient},
		{"matching-60x10", gen.DenseMatching(60, 10, 1)},
	} {
		p, s := randSlack(b, r, c.m)
		f := p.Face()
		fs := f.NewFaceSym()
		fs.Set(s)
		n, d := p.N(), f.Dim()
		for _, k := range []int{1, 8} {
			x, dst := randDense(r, d, k), mat.NewDense(d, k, nil)
			lift, slift := mat.NewDense(n, k, nil), mat.NewDense(n, k, nil)
			b.Run(fmt.Sprintf("%s/k=%d/lift", c.name, k), func(b *testing.B) {
				for b.Loop() {
					f.Lift(lift, x)
					s.MulMat(slift, lift)
					f.Restrict(dst, slift)
				}
			})
			b.Run(fmt.Sprintf("%s/k=%d/facesym", c.name, k), func(b *testing.B) {
				for b.Loop() {
					fs.MulMat(dst, x)
				}
			})
		}
		b.Run(c.name+"/set", func(b *testing.B) {
			for b.Loop() {
				fs.Set(s)
			}
		})
	}
}
