package opengm

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/model"
)

// TestDecodeLimits checks issue 45, item 2 for OpenGM: the lifted
// dimension, the number of factors and the factors' table entries are
// checked against model.Limits before the tables are built.
func TestDecodeLimits(t *testing.T) {
	potts := func(states uint64, factors int) rawFile {
		fs := []uint64{}
		for range factors {
			fs = append(fs, 0, 0, 2, 0, 1)
		}
		return rawFile{
			"header":                    []uint64{2, 0, 2, uint64(factors), 1, 16006, 1},
			"numbers-of-states":         []uint64{states, states},
			"function-id-16006/indices": []uint64{states, states},
			"function-id-16006/values":  []float64{0, 1},
			"factors":                   fs,
		}
	}
	lim := model.Limits{MaxEntries: 1 << 20, MaxN: 1 << 16}
	for _, c := range []struct {
		name string
		r    rawFile
		want string
	}{
		{"N", potts(40000, 1), "numbers-of-states[1]: the lifted dimension N = 1 + sum of the cardinalities reaches 80001"},
		{"one huge Potts table", potts(30000, 1), "factors[0]: factors 0..0: 900000000 table entries, more than the limit 1048576"},
		{"many factors", potts(1000, 2), "factors[5]: factors 0..1: 2000000 table entries"},
		{"factor count", potts(2, 1<<21), "header[3]: 2097152 factors"},
	} {
		_, err := decodeLimits(memSource(c.r), "big.h5", "gm", lim)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a ParseError containing %q", c.name, err, c.want)
		}
	}
	if _, err := decodeLimits(memSource(potts(1000, 1)), "ok.h5", "gm", lim); err != nil {
		t.Errorf("within the limits: %v", err)
	}
}

// TestDecodeAllForbidden checks that a function of +Inf values only is
// read (every entry forbidden): the model is infeasible, an answer of
// sdrmap.Solve, not a malformed file.
func TestDecodeAllForbidden(t *testing.T) {
	r := rawFile{
		"header":            []uint64{2, 0, 1, 1, 1, 16000, 1},
		"numbers-of-states": []uint64{2},
		exIx:                []uint64{1, 2},
		exVs:                []float64{math.Inf(1), math.Inf(1)},
		"factors":           []uint64{0, 0, 1, 0},
	}
	m, err := decode(memSource(r), "inf.h5", "gm")
	if err != nil || m.Factors[0].ForbiddenCount() != 2 {
		t.Fatalf("error %v; want a factor with 2 forbidden entries", err)
	}
}
