package uai

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/sdrmap/sdrmap/model"
)

// WriteModel writes m in the UAI model format, entries as exp of the log
// values with 17 significant digits (forbidden entries as 0). A log value
// whose exp is not a normal double (beyond about +-708: an energy of 1000
// from a cost function network) is refused, naming the factor, rather than
// written as 0 or Inf.
func WriteModel(w io.Writer, m *model.Model) error {
	for i := range m.Factors {
		f := &m.Factors[i]
		for k, v := range f.Log {
			if e := math.Exp(v); !f.IsForbidden(k) && (e < 0x1p-1022 || math.IsInf(e, 1)) {
				return fmt.Errorf("factor %d, entry %d: log potential %v: its exp is outside the normal range of doubles, which the UAI format (probabilities) cannot hold", i, k, v)
			}
		}
	}
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
				b = strconv.AppendFloat(b, math.Exp(v), 'g', 17, 64)
			}
			bw.Write(b)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}
