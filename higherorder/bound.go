package higherorder

import (
	"fmt"

	"github.com/sdrmap/sdrmap/model"
)

// SizeBound bounds the table entries and the order N = 1 + sum of the
// cardinalities of m converted by Convert, without converting it: a factor
// of arity k > 2 with A allowed entries becomes at most an auxiliary
// variable of A states and k edges to it, A (1 + sum of its scope's
// cardinalities) entries; the other factors keep their tables. Callers
// compare it with model.Limits before converting.
func SizeBound(m *model.Model) (entries, n int64) {
	n = int64(model.SDRDimension(m.Card))
	for fi := range m.Factors {
		f := &m.Factors[fi]
		size := int64(len(f.Log))
		entries += size
		if len(f.Scope) <= 2 {
			continue
		}
		allowed := size - int64(f.ForbiddenCount())
		sum := int64(1)
		for _, v := range f.Scope {
			sum += int64(m.Card[v])
		}
		entries += allowed * sum
		n += allowed
	}
	return entries, n
}

// CheckSize returns an error when converting m may exceed lim (SizeBound
// against lim.OrDefault()), naming the flag that raises the limit.
func CheckSize(m *model.Model, lim model.Limits) error {
	lim = lim.OrDefault()
	entries, n := SizeBound(m)
	switch {
	case entries > lim.MaxEntries:
		return fmt.Errorf("converting the factors of arity > 2 may need up to %d table entries, more than the limit %d (--max-entries raises it)", entries, lim.MaxEntries)
	case n > lim.MaxN:
		return fmt.Errorf("converting the factors of arity > 2 may need N up to %d, more than the limit %d (--max-n raises it)", n, lim.MaxN)
	}
	return nil
}
