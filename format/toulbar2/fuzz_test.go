package toulbar2

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/model"
)

// checkParsed checks what a parser returned: an error naming the file, or
// a model whose tables match its cardinalities and hold finite log values.
func checkParsed(t *testing.T, p *Problem, err error, name string) {
	if err != nil {
		if !strings.HasPrefix(err.Error(), name+":") {
			t.Fatalf("error %q does not start with the file name", err)
		}
		return
	}
	m := p.Model
	for fi := range m.Factors {
		f := &m.Factors[fi]
		size := 1
		for _, v := range f.Scope {
			if v < 0 || v >= m.NumVars() {
				t.Fatalf("factor %d: variable %d out of range", fi, v)
			}
			size *= m.Card[v]
		}
		if len(f.Log) != size {
			t.Fatalf("factor %d: %d entries, want %d", fi, len(f.Log), size)
		}
		for k, l := range f.Log {
			if !f.IsForbidden(k) && (math.IsNaN(l) || math.IsInf(l, 0)) {
				t.Fatalf("factor %d entry %d: log %v", fi, k, l)
			}
		}
	}
}

// fuzzLimits keep the fuzzed models small.
var fuzzLimits = model.Limits{MaxEntries: 1 << 22, MaxN: 1 << 16}

// seeds returns the test files and generated ones as fuzzing seeds.
func seeds(f *testing.F, ext string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"+ext))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 10 {
		g := genRandom(rng, ext == ".cfn")
		if ext == ".cfn" {
			f.Add([]byte(g.cfn(rng)))
		} else {
			f.Add([]byte(g.wcsp(rng)))
		}
	}
}

// FuzzParseWCSP: any input gives a model or an error naming the file,
// never a panic.
func FuzzParseWCSP(f *testing.F) {
	seeds(f, ".wcsp")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseWCSPLimits("f.wcsp", data, fuzzLimits)
		checkParsed(t, p, err, "f.wcsp")
	})
}

// FuzzParseCFN: any input gives a model or an error naming the file,
// never a panic.
func FuzzParseCFN(f *testing.F) {
	seeds(f, ".cfn")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseCFNLimits("f.cfn", data, fuzzLimits)
		checkParsed(t, p, err, "f.cfn")
	})
}
