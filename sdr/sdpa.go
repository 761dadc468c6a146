package sdr

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteSDPA writes the SDR of prob in SDPA sparse format (.dat-s) for CSDP
// and SDPA.
//
// The file holds the standard pair that both tools read the same way:
//
//	(SDPA primal, CSDP dual)   minimize c^T u  s.t.  sum_k F_k u_k - F_0 PSD
//	(SDPA dual, CSDP primal)   maximize <F_0, Z>  s.t.  <F_k, Z> = c_k, Z PSD
//
// with Z = diag(Xbar, s): block 1 is Xbar (N x N), block 2 a diagonal (LP)
// block of slacks s_e = Xbar[ia,jb] >= 0, one per allowed edge entry (P).
// Constraints: the rows of y in order (E0..E4, F_k = A_k, c_k = b_k), then
// one row per entry of P, Xbar[ia,jb] - s_e = 0. F_0 = -C, so the
// maximization is max -<C,Xbar>, and the minimization is min <b,u> over the
// dual variables u = y of the package doc (slack rows: u = -z) with
// C + A*(y) - P*(z) PSD and z >= 0. Both objective values that csdp and
// sdpa print therefore equal -min <C,Xbar> = the SDR's value of max f - Const
// in the paper's maximization form; the energy bound is -value - Const.
func WriteSDPA(w io.Writer, prob *Problem) error {
	bw := bufio.NewWriter(w)
	n := prob.N()
	m := prob.Y.Len + prob.NumZ
	fmt.Fprintf(bw, "\"SDR of a pairwise MRF (sdrmap): max <-C,Xbar>, %d variables, %d edges\n", prob.NumVars(), len(prob.Edges))
	fmt.Fprintf(bw, "%d\n", m)
	if prob.NumZ > 0 {
		fmt.Fprintf(bw, "2\n%d -%d\n", n, prob.NumZ)
	} else {
		fmt.Fprintf(bw, "1\n%d\n", n)
	}
	for k := range m {
		if k > 0 {
			bw.WriteByte(' ')
		}
		v := 0.0
		if k < prob.Y.Len {
			v = prob.B[k]
		}
		bw.WriteString(num(v))
	}
	bw.WriteByte('\n')
	// entry writes one upper-triangular entry, 1-based.
	entry := func(mat, blk, i, j int, v float64) {
		if v == 0 {
			return
		}
		if i > j {
			i, j = j, i
		}
		fmt.Fprintf(bw, "%d %d %d %d %s\n", mat, blk, i+1, j+1, num(v))
	}
	c := prob.C
	for k, v := range c.Row0 {
		entry(0, 1, 0, k, -v)
	}
	for i, mi := range prob.Card {
		o := prob.Offset[i]
		for a := range mi {
			for b := a; b < mi; b++ {
				entry(0, 1, o+a, o+b, -c.Diag[i][a*mi+b])
			}
		}
	}
	for e := range prob.Edges {
		ed := &prob.Edges[e]
		oi, oj, mj := prob.Offset[ed.I], prob.Offset[ed.J], prob.Card[ed.J]
		for q, v := range c.Edge[e] {
			entry(0, 1, oi+q/mj, oj+q%mj, -v)
		}
	}
	entry(1, 1, 0, 0, 1) // E0
	for i, mi := range prob.Card {
		o := prob.Offset[i]
		for a := range mi {
			entry(prob.IndexE1(i)+1, 1, 0, o+a, 0.5)
		}
		for a := range mi {
			k := prob.IndexE2(i, a) + 1
			entry(k, 1, o+a, o+a, 1)
			entry(k, 1, 0, o+a, -0.5)
		}
		for a := range mi {
			for b := a + 1; b < mi; b++ {
				entry(prob.IndexE3(i, a, b)+1, 1, o+a, o+b, 0.5)
			}
		}
	}
	for e := range prob.Edges {
		ed := &prob.Edges[e]
		oi, oj, mi, mj := prob.Offset[ed.I], prob.Offset[ed.J], prob.Card[ed.I], prob.Card[ed.J]
		y4, z := ed.Y4, ed.Z
		for q := range mi * mj {
			a, b := q/mj, q%mj
			if ed.Forbidden != nil && ed.Forbidden[q] {
				entry(y4+1, 1, oi+a, oj+b, 0.5)
				y4++
				continue
			}
			k := prob.Y.Len + z + 1
			entry(k, 1, oi+a, oj+b, 0.5)
			entry(k, 2, z, z, -1)
			z++
		}
	}
	return bw.Flush()
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
