package gen

import (
	"fmt"

	"github.com/sdrmap/sdrmap/model"
)

const streamDense = 0x64656e7365

// Dense returns a dense random model: n variables with labels states each
// on the random graph G(n, p) (each pair of variables an edge with
// probability p, independently; p = 1 gives the complete graph), one unary
// factor per variable and one pairwise factor per edge with independent
// standard normal log potentials, and each pairwise entry forbidden (phi =
// 0) with probability forbid, except that a table never forbids all its
// entries. With forbid > 0 the model may have no assignment of finite
// energy.
func Dense(n, labels int, p, forbid float64, seed uint64) *model.Model {
	if n < 1 || labels < 1 || !(p >= 0 && p <= 1) || !(forbid >= 0 && forbid < 1) {
		panic(fmt.Sprintf("gen.Dense: n = %d, labels = %d, p = %v, forbid = %v: need n, labels >= 1, p in [0, 1], forbid in [0, 1)", n, labels, p, forbid))
	}
	r := newRand(seed, streamDense)
	md := &model.Model{Card: fill(n, labels)}
	for i := range n {
		md.Factors = append(md.Factors, model.Factor{Scope: []int{i}, Table: model.Table{Log: normals(r, labels)}})
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if p < 1 && r.Float64() >= p {
				continue
			}
			f := model.Factor{Scope: []int{i, j}, Table: model.Table{Log: normals(r, labels*labels)}}
			if forbid > 0 {
				allowed := 0
				for k := range f.Log {
					if r.Float64() < forbid {
						f.Forbid(k)
					} else {
						allowed++
					}
				}
				if allowed == 0 {
					k := r.IntN(len(f.Log))
					f.Forbidden[k], f.Log[k] = false, r.NormFloat64()
				}
			}
			md.Factors = append(md.Factors, f)
		}
	}
	return md
}
