package uai

import (
	"bufio"
	"io"
	"strconv"

	"github.com/sdrmap/sdrmap/internal/logprob"
	"github.com/sdrmap/sdrmap/model"
)

// WriteModel writes m in the UAI model format, entries as exp of the log
// values with 17 significant digits (forbidden entries as 0), in decimal
// exponent form where exp underflows or overflows a float64
// (logprob.AppendDecimal), so that ParseModel reads the same logs back.
func WriteModel(w io.Writer, m *model.Model) error {
	bw := bufio.NewWriter(w)
	b := make([]byte, 0, 64)
	if m.Bayes {
		bw.WriteString("BAYES\n")
	} else {
		bw.WriteString("MARKOV\n")
	}
	line := func(xs []int) {
		b = b[:0]
		for i, v := range xs {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, '\n')
		bw.Write(b)
	}
	line([]int{m.NumVars()})
	line(m.Card)
	line([]int{len(m.Factors)})
	for i := range m.Factors {
		line(append([]int{len(m.Factors[i].Scope)}, m.Factors[i].Scope...))
	}
	for i := range m.Factors {
		f := &m.Factors[i]
		bw.WriteString("\n")
		line([]int{len(f.Log)})
		for k, v := range f.Log {
			b = b[:0]
			if k > 0 {
				b = append(b, ' ')
			}
			if f.IsForbidden(k) {
				b = append(b, '0')
			} else {
				b = logprob.AppendDecimal(b, v)
			}
			bw.Write(b)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}
