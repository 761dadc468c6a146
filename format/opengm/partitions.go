package opengm

import (
	"slices"
	"sync"
)

// maxPottsGOrder is the largest order of a generalized Potts function that
// OpenGM reads and evaluates (v2.3.6 on: its equality pattern of d(d-1)/2
// bits must fit a 64-bit size_t, and its Bell numbers table stops there).
const maxPottsGOrder = 11

// bell[d] is the number of partitions of d arguments: the number of values
// of a generalized Potts function of order d.
var bell = [maxPottsGOrder + 1]int{1, 1, 2, 5, 15, 52, 203, 877, 4140, 21147, 115975, 678570}

var (
	patternsMu sync.Mutex
	patterns   = map[int][]uint64{}
)

// pottsGPatterns returns the equality patterns of the partitions of d
// arguments in increasing order: the value of a generalized Potts function
// at labels x is its value number k, where patterns[k] is x's pattern
// (equalityPattern). This is OpenGM's Partitions::number2Index: its list
// of partitions sorted as numbers.
func pottsGPatterns(d int) []uint64 {
	patternsMu.Lock()
	defer patternsMu.Unlock()
	if p, ok := patterns[d]; ok {
		return p
	}
	p := make([]uint64, 0, bell[d])
	// Enumerate the restricted growth strings l (l[0] = 0, l[i] <= 1 +
	// max(l[:i])): one per partition.
	l := make([]int, d)
	var rec func(i, top int)
	rec = func(i, top int) {
		if i == d {
			p = append(p, equalityPattern(l))
			return
		}
		for v := 0; v <= top+1; v++ {
			l[i] = v
			rec(i+1, max(top, v))
		}
	}
	if d == 0 {
		p = append(p, 0)
	} else {
		rec(1, 0)
	}
	slices.Sort(p)
	patterns[d] = p
	return p
}

// equalityPattern returns the bits of PottsGFunction::operator(): bit b
// set when the labels of the b-th pair (i, j), j < i, in the order (1,0),
// (2,0), (2,1), (3,0), ..., are equal.
func equalityPattern(x []int) uint64 {
	var pattern, bit uint64 = 0, 1
	for i := 1; i < len(x); i++ {
		for j := range i {
			if x[i] == x[j] {
				pattern |= bit
			}
			bit <<= 1
		}
	}
	return pattern
}
