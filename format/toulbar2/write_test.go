package toulbar2

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/model"
)

// randomModel returns a model with factors of arity 0 to 3, costs drawn by
// cost and about one entry in eight forbidden.
func randomModel(rng *rand.Rand, cost func() float64) *model.Model {
	m := &model.Model{Card: make([]int, 1+rng.IntN(5))}
	for i := range m.Card {
		m.Card[i] = 1 + rng.IntN(4)
	}
	for range 1 + rng.IntN(6) {
		a := min(rng.IntN(4), m.NumVars())
		f := model.Factor{Scope: rng.Perm(m.NumVars())[:a]}
		size := 1
		for _, v := range f.Scope {
			size *= m.Card[v]
		}
		f.Log = make([]float64, size)
		for k := range f.Log {
			f.Log[k] = 0 - cost()
			if rng.IntN(8) == 0 && k > 0 { // never all: an all-forbidden factor forbids everything on reading a cfn
				f.Forbid(k)
			}
		}
		m.Factors = append(m.Factors, f)
	}
	return m
}

// sameModel reports whether a and b have the same cardinalities, scopes,
// forbidden entries and log values (exactly, or within tol relative).
func sameModel(t *testing.T, a, b *model.Model, tol float64) {
	t.Helper()
	if len(a.Card) != len(b.Card) || len(a.Factors) != len(b.Factors) {
		t.Fatalf("%d variables and %d factors, read back %d and %d", len(a.Card), len(a.Factors), len(b.Card), len(b.Factors))
	}
	for i := range a.Card {
		if a.Card[i] != b.Card[i] {
			t.Fatalf("variable %d: %d states, read back %d", i, a.Card[i], b.Card[i])
		}
	}
	for fi := range a.Factors {
		fa, fb := &a.Factors[fi], &b.Factors[fi]
		if len(fa.Log) != len(fb.Log) || len(fa.Scope) != len(fb.Scope) {
			t.Fatalf("factor %d: shape differs", fi)
		}
		for j := range fa.Scope {
			if fa.Scope[j] != fb.Scope[j] {
				t.Fatalf("factor %d: scope %v, read back %v", fi, fa.Scope, fb.Scope)
			}
		}
		for k := range fa.Log {
			if fa.IsForbidden(k) != fb.IsForbidden(k) {
				t.Fatalf("factor %d entry %d: forbidden %v, read back %v", fi, k, fa.IsForbidden(k), fb.IsForbidden(k))
			}
			if !fa.IsForbidden(k) && math.Abs(fa.Log[k]-fb.Log[k]) > tol*math.Max(1, math.Abs(fa.Log[k])) {
				t.Fatalf("factor %d entry %d: log %v, read back %v", fi, k, fa.Log[k], fb.Log[k])
			}
		}
	}
}

// TestWriteRead writes random models and reads them back: wcsp (integer
// costs) and cfn (any double) exactly; through UAI (exp, then ln) and back
// to wcsp exactly, to cfn within 1e-15 relative.
func TestWriteRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		integer := i%2 == 0
		m := randomModel(rng, func() float64 {
			if integer {
				return float64(rng.IntN(200))
			}
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(5)-2))
		})
		var buf bytes.Buffer
		if integer {
			if err := WriteWCSP(&buf, m, Header{}); err != nil {
				t.Fatal(err)
			}
			p, err := ParseWCSP("w.wcsp", buf.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			sameModel(t, m, p.Model, 0)
		}
		buf.Reset()
		if err := WriteCFN(&buf, m, Header{}); err != nil {
			t.Fatal(err)
		}
		p, err := ParseCFN("w.cfn", buf.Bytes())
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		sameModel(t, m, p.Model, 0)
		// Through UAI.
		buf.Reset()
		if err := uai.WriteModel(&buf, m); err != nil {
			t.Fatal(err)
		}
		u, err := uai.ParseModel("u.uai", buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if integer {
			if err := WriteWCSP(&buf, u, Header{}); err != nil {
				t.Fatal(err)
			}
			p, err = ParseWCSP("w.wcsp", buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			sameModel(t, m, p.Model, 0)
			continue
		}
		if err := WriteCFN(&buf, u, Header{}); err != nil {
			t.Fatal(err)
		}
		if p, err = ParseCFN("w.cfn", buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		sameModel(t, m, p.Model, 1e-15)
	}
}

// TestRewriteGenerated reads generated toulbar2 files, writes them in both
// formats with their header and reads them back: the same model, the same
// bound where the format can keep it, and toulbar2 (when installed) finds
// the same optimum on the written files.
func TestRewriteGenerated(t *testing.T) {
	_, tb2 := lookToulbar2()
	dir := t.TempDir()
	if d := os.Getenv("KEEP_TB2"); d != "" {
		dir = d
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 60 {
		cfn := i%2 == 1
		g := genRandom(rng, cfn)
		text := g.wcsp(rng)
		if cfn {
			text = g.cfn(rng)
		}
		var p *Problem
		var err error
		if cfn {
			p, err = ParseCFN("g.cfn", []byte(text))
		} else {
			p, err = ParseWCSP("g.wcsp", []byte(text))
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"wcsp", "cfn"} {
			var buf bytes.Buffer
			if format == "wcsp" {
				err = WriteWCSP(&buf, p.Model, HeaderOf(p))
			} else {
				err = WriteCFN(&buf, p.Model, HeaderOf(p))
			}
			if err != nil {
				if format == "wcsp" && cfn {
					continue // decimal costs, or energies below 0
				}
				t.Fatal(err)
			}
			file := filepath.Join(dir, strconv.Itoa(i)+"."+format)
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			q, err := ReadFile(file)
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			sameEnergies(t, p.Model, q.Model)
			want, _, feasible := optimum(p)
			got, _, feasibleQ := optimum(q)
			if feasible != feasibleQ || (feasible && math.Abs(want-got) > 1e-9*math.Max(1, math.Abs(want))) {
				t.Errorf("%s from %s: optimum within the bound %v (%v), read back %v (%v)\n%s\n%s", format, text[:10], want, feasible, got, feasibleQ, text, buf.String())
			}
			if !tb2 {
				continue
			}
			cost, _, ok := toulbar2Result(t, file)
			if ok != feasibleQ || (ok && math.Abs(cost-got) > 1e-9*math.Max(1, math.Abs(got))) {
				t.Errorf("%s: toulbar2's optimum %v (%v), enumeration %v (%v)\n%s", file, cost, ok, got, feasibleQ, buf.String())
			}
		}
	}
}

// sameEnergies checks that a and b give every assignment the same energy.
func sameEnergies(t *testing.T, a, b *model.Model) {
	t.Helper()
	if len(a.Card) != len(b.Card) {
		t.Fatalf("%d variables, read back %d", len(a.Card), len(b.Card))
	}
	x := make([]int, len(a.Card))
	for {
		if ea, eb := a.Energy(x), b.Energy(x); ea != eb && math.Abs(ea-eb) > 1e-12*math.Max(1, math.Abs(ea)) {
			t.Fatalf("energy of %v: %v, read back %v", x, ea, eb)
		}
		i := len(x) - 1
		for ; i >= 0; i-- {
			if x[i]++; x[i] < a.Card[i] {
				break
			}
			x[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

func TestWriteWCSPShift(t *testing.T) {
	m := &model.Model{Card: []int{2, 2}, Factors: []model.Factor{
		{Scope: []int{0}, Table: model.Table{Log: []float64{3, -1}}},
		{Scope: []int{0, 1}, Table: model.Table{Log: []float64{-5, -7, -9, -5}}},
	}}
	var buf bytes.Buffer
	if err := WriteWCSP(&buf, m, Header{}); err != nil {
		t.Fatal(err)
	}
	p, err := ParseWCSP("s.wcsp", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sameEnergies(t, m, p.Model)
	for _, f := range p.Model.Factors {
		for _, l := range f.Log {
			if l > 0 {
				t.Fatalf("negative cost %v written:\n%s", -l, buf.String())
			}
		}
	}
	m.Factors[0].Log[0] = 8 // energy -8 + 5 at (0, 0)
	if err := WriteWCSP(&buf, m, Header{}); err == nil || !strings.Contains(err.Error(), "below 0") {
		t.Errorf("a model with energies below 0: error %v", err)
	}
}
