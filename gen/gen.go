// Package gen builds deterministic random MAP instances for tests and
// benchmarks: planted Z_m synchronization (the ORIENT family of Huang, Chen
// and Guibas), Potts grids (GM-Montage scale), frustrated binary models
// (GM-Char-like) and dense matching models (GM-Matching-like).
//
// Every generator is a pure function of its arguments: the same seed gives
// the same model on every platform (math/rand/v2 PCG). Tables follow the
// model and UAI conventions: w = ln phi in log space, forbidden entries
// (phi = 0) as flags; the energy of x is E(x) = -sum_f w_f(x_f). Invalid
// arguments (sizes < 1 and the like) panic, as they are programming errors.
package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/sdrmap/sdrmap/model"
)

// Stream constants of the PCG generators, one per family, so that two
// families never share a random stream for the same seed.
const (
	streamOrient   = 0x6f7269656e74
	streamPotts    = 0x706f747473
	streamBinary   = 0x62696e617279
	streamMatching = 0x6d61746368
)

func newRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// Orient returns a planted Z_m synchronization instance and its planted
// assignment. Hidden labels g_i are uniform in Z_m = {0..m-1}; the graph is
// RandomGraph(n, degree) (connected, average degree about degree); each edge
// (i, j), i < j, carries the shift s_ij = g_j - g_i (mod m), replaced with
// probability noise by a uniform random shift (which may coincide with the
// true one), and the table
//
//	W_ij(a, b) = 1 if b - a = s_ij (mod m), else 0   (log space: phi = e or 1).
//
// There are no unary factors, so the model keeps the global Z_m symmetry:
// if x is optimal, so is x + c (mod m) for every c, and an optimum can differ
// from the planted assignment by such a shift. With noise 0 the planted
// assignment satisfies every edge and is optimal with energy -|E|.
func Orient(n, m int, degree, noise float64, seed uint64) (*model.Model, []int) {
	if n < 1 || m < 1 {
		panic(fmt.Sprintf("gen.Orient: n = %d, m = %d: both must be >= 1", n, m))
	}
	if !(noise >= 0 && noise <= 1) {
		panic(fmt.Sprintf("gen.Orient: noise %v outside [0, 1]", noise))
	}
	r := newRand(seed, streamOrient)
	g := make([]int, n)
	for i := range g {
		g[i] = r.IntN(m)
	}
	edges := randomGraph(r, n, degree)
	md := &model.Model{Card: fill(n, m), Factors: make([]model.Factor, len(edges))}
	logs := make([]float64, len(edges)*m*m)
	for e, ij := range edges {
		i, j := ij[0], ij[1]
		s := mod(g[j]-g[i], m)
		if r.Float64() < noise {
			s = r.IntN(m)
		}
		w := logs[e*m*m : (e+1)*m*m : (e+1)*m*m]
		for a := 0; a < m; a++ {
			w[a*m+mod(a+s, m)] = 1
		}
		md.Factors[e] = model.Factor{Scope: []int{i, j}, Table: model.Table{Log: w}}
	}
	return md, g
}

// PottsGrid returns a rows x cols 4-connected grid with labels states per
// variable (variable r*cols + c at row r, column c). Unary log potentials are
// standard normal; every grid edge has the Potts table
//
//	W_ij(a, b) = coupling if a = b, else 0,
//
// so coupling > 0 favours equal neighbours (smoothing, energy -coupling per
// agreeing edge). Factors: the rows*cols unaries in variable order, then the
// horizontal edges, then the vertical ones. Tables share two large backing
// arrays, so 10^5 variables take a few tens of milliseconds.
func PottsGrid(rows, cols, labels int, coupling float64, seed uint64) *model.Model {
	if rows < 1 || cols < 1 || labels < 1 {
		panic(fmt.Sprintf("gen.PottsGrid: rows = %d, cols = %d, labels = %d: all must be >= 1", rows, cols, labels))
	}
	r := newRand(seed, streamPotts)
	n := rows * cols
	ne := rows*(cols-1) + (rows-1)*cols
	md := &model.Model{Card: fill(n, labels), Factors: make([]model.Factor, 0, n+ne)}
	un := make([]float64, n*labels)
	for k := range un {
		un[k] = r.NormFloat64()
	}
	scopes := make([]int, n+2*ne)
	for i := 0; i < n; i++ {
		scopes[i] = i
		md.Factors = append(md.Factors, model.Factor{
			Scope: scopes[i : i+1 : i+1],
			Table: model.Table{Log: un[i*labels : (i+1)*labels : (i+1)*labels]},
		})
	}
	pw := make([]float64, ne*labels*labels)
	sp, tp := n, 0
	edge := func(i, j int) {
		scopes[sp], scopes[sp+1] = i, j
		w := pw[tp : tp+labels*labels : tp+labels*labels]
		for a := 0; a < labels; a++ {
			w[a*labels+a] = coupling
		}
		md.Factors = append(md.Factors, model.Factor{Scope: scopes[sp : sp+2 : sp+2], Table: model.Table{Log: w}})
		sp += 2
		tp += labels * labels
	}
	for rr := 0; rr < rows; rr++ {
		for c := 0; c+1 < cols; c++ {
			edge(rr*cols+c, rr*cols+c+1)
		}
	}
	for rr := 0; rr+1 < rows; rr++ {
		for c := 0; c < cols; c++ {
			edge(rr*cols+c, (rr+1)*cols+c)
		}
	}
	return md
}

// Binary returns a binary model on RandomGraph(n, degree) (the complete
// graph when degree >= n-1): one unary factor per variable with standard
// normal log potentials, then one pairwise factor per edge with four
// independent standard normal entries. Such tables are generically
// non-submodular (frustrated), as in the GM-Char instances.
func Binary(n int, degree float64, seed uint64) *model.Model {
	if n < 1 {
		panic(fmt.Sprintf("gen.Binary: n = %d must be >= 1", n))
	}
	r := newRand(seed, streamBinary)
	edges := randomGraph(r, n, degree)
	md := &model.Model{Card: fill(n, 2), Factors: make([]model.Factor, 0, n+len(edges))}
	for i := 0; i < n; i++ {
		md.Factors = append(md.Factors, model.Factor{Scope: []int{i}, Table: model.Table{Log: normals(r, 2)}})
	}
	for _, ij := range edges {
		md.Factors = append(md.Factors, model.Factor{Scope: []int{ij[0], ij[1]}, Table: model.Table{Log: normals(r, 4)}})
	}
	return md
}

// DenseMatching returns a GM-Matching-like model: n variables with labels
// states each on the complete graph. Each variable has a unary cost and each
// pair of variables a pairwise cost, uniform in [0, 1) per entry (log
// potential w = -cost), and pairs with equal labels are forbidden (phi = 0):
// a feasible assignment is an injective map of the variables into the labels,
// so the model is infeasible (no assignment of finite energy) when labels < n.
func DenseMatching(n, labels int, seed uint64) *model.Model {
	if n < 1 || labels < 1 {
		panic(fmt.Sprintf("gen.DenseMatching: n = %d, labels = %d: both must be >= 1", n, labels))
	}
	r := newRand(seed, streamMatching)
	md := &model.Model{Card: fill(n, labels)}
	for i := 0; i < n; i++ {
		w := make([]float64, labels)
		for a := range w {
			w[a] = -r.Float64()
		}
		md.Factors = append(md.Factors, model.Factor{Scope: []int{i}, Table: model.Table{Log: w}})
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			f := model.Factor{Scope: []int{i, j}, Table: model.Table{Log: make([]float64, labels*labels)}}
			for k := range f.Log {
				if k/labels == k%labels {
					f.Forbid(k)
				} else {
					f.Log[k] = -r.Float64()
				}
			}
			md.Factors = append(md.Factors, f)
		}
	}
	return md
}

// RandomGraph returns the edges (i, j), i < j, sorted, of a connected random
// graph on n vertices with about n*degree/2 edges: a uniformly random
// recursive spanning tree (each vertex, in a random order, joined to a random
// earlier one) plus distinct uniformly random extra edges. The edge count is
// round(n*degree/2) clamped to [n-1, n(n-1)/2], so degree <= 2 gives a tree
// and degree >= n-1 the complete graph.
func RandomGraph(n int, degree float64, seed uint64) [][2]int {
	if n < 1 {
		panic(fmt.Sprintf("gen.RandomGraph: n = %d must be >= 1", n))
	}
	return randomGraph(newRand(seed, 0), n, degree)
}

func randomGraph(r *rand.Rand, n int, degree float64) [][2]int {
	maxE := n * (n - 1) / 2
	target := n - 1
	if t := math.Round(float64(n) * degree / 2); t > float64(target) {
		target = int(math.Min(t, float64(maxE)))
	}
	key := func(i, j int) int64 {
		if i > j {
			i, j = j, i
		}
		return int64(i)*int64(n) + int64(j)
	}
	seen := make(map[int64]bool, target)
	edges := make([][2]int, 0, target)
	add := func(i, j int) {
		if i > j {
			i, j = j, i
		}
		seen[key(i, j)] = true
		edges = append(edges, [2]int{i, j})
	}
	perm := r.Perm(n)
	for k := 1; k < n; k++ {
		add(perm[k], perm[r.IntN(k)])
	}
	if extra := target - len(edges); extra > 0 {
		if 2*target > maxE {
			// Dense: draw the extra edges from the list of free pairs.
			var free [][2]int
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					if !seen[key(i, j)] {
						free = append(free, [2]int{i, j})
					}
				}
			}
			for k := 0; k < extra; k++ {
				l := k + r.IntN(len(free)-k)
				free[k], free[l] = free[l], free[k]
				add(free[k][0], free[k][1])
			}
		} else {
			for len(edges) < target {
				i, j := r.IntN(n), r.IntN(n)
				if i != j && !seen[key(i, j)] {
					add(i, j)
				}
			}
		}
	}
	sort.Slice(edges, func(a, b int) bool {
		return edges[a][0] < edges[b][0] || (edges[a][0] == edges[b][0] && edges[a][1] < edges[b][1])
	})
	return edges
}

func fill(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func normals(r *rand.Rand, k int) []float64 {
	w := make([]float64, k)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	return w
}

func mod(a, m int) int { return ((a % m) + m) % m }
