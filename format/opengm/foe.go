package opengm

import "math"

// idFoE is OpenGM's Field-of-Experts function (FoEFunction,
// FUNCTION_TYPE_ID_OFFSET + 33).
const idFoE = 16033

// foeFunction decodes a Field-of-Experts function at the cursor, as
// FunctionSerialization<FoEFunction>::deserialize: the index sequence
// holds the number of experts E, the order d and the number of labels L
// of every argument; the value sequence the E x d expert matrix (row by
// row) and then the E weights alpha.
func (s *seq) foeFunction() (function, error) {
	f := function{ixAt: s.ip, vsAt: s.vp}
	at := s.ip
	ne, err := s.index("number of experts", maxEntries)
	if err != nil {
		return f, err
	}
	d, err := s.index("order", maxEntries)
	if err != nil {
		return f, err
	}
	nl, err := s.index("number of labels", maxEntries)
	if err != nil {
		return f, err
	}
	if nl == 0 {
		return f, s.errIx(at+2, "Field-of-Experts function with 0 labels")
	}
	f.shape = make([]int, d)
	size := 1
	for j := range f.shape {
		f.shape[j] = nl
		if size *= nl; size > maxEntries {
			return f, s.errIx(at+1, "Field-of-Experts function of order %d over %d labels: its table would have more than %d entries", d, nl, maxEntries)
		}
	}
	if ne*d > maxEntries {
		return f, s.errIx(at, "%d experts of order %d: more than %d values", ne, d, maxEntries)
	}
	f.params, err = s.values(ne*d + ne)
	return f, err
}

// foe evaluates FoEFunction::operator() at labels x: the sum over experts
// e of alpha_e ln(1 + dot_e^2 / 2), dot_e = sum_j J[e][j] x_j, in
// OpenGM's order of operations.
func (f *function) foe(x []int) float64 {
	d := len(x)
	ne := len(f.params) / (d + 1)
	experts, alphas := f.params[:ne*d], f.params[ne*d:]
	val := 0.0
	i := 0
	for e := range ne {
		dot := 0.0
		for j := range d {
			dot += float64(experts[i] * float64(x[j]))
			i++
		}
		val += float64(alphas[e] * math.Log(1+float64(0.5*dot*dot)))
	}
	return val
}
