package uai

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/sdrmap/sdrmap/internal/randmodel"
)

const small = `MARKOV
3
2 2 3
4
1 0
2 0 1
2 1 2
0
2
0.25 0.75
4
1 2
3 4
6
1 0 2 0.5 0.5 0.5
1
2.5
`

func TestParseSmall(t *testing.T) {
	m, err := ParseModel("small.uai", []byte(small))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Factors) != 4 || m.Factors[2].ForbiddenCount() != 1 || m.MaxArity() != 2 {
		t.Fatalf("parsed %+v", m)
	}
	// x = (1, 0, 2): 0.75 * 3 * 2 * 2.5 (last scope variable fastest).
	want := -math.Log(0.75 * 3 * 2 * 2.5)
	if e := m.Energy([]int{1, 0, 2}); math.Abs(e-want) > 1e-15 {
		t.Fatalf("energy %v, want %v", e, want)
	}
	if e := m.Energy([]int{0, 0, 1}); !math.IsInf(e, 1) {
		t.Fatalf("forbidden entry gives %v", e)
	}
	// Any whitespace layout parses to the same model.
	squashed := strings.Join(strings.Fields(small), "\t \r\n  ")
	m2, err := ParseModel("squashed.uai", []byte(squashed))
	if err != nil {
		t.Fatal(err)
	}
	if m2.Energy([]int{1, 0, 2}) != m.Energy([]int{1, 0, 2}) {
		t.Fatal("layout changes the model")
	}
}

// TestBadModels checks that every malformed model gets a ParseError naming
// the file, line and problem.
func TestBadModels(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"empty", "", "expected MARKOV or BAYES"},
		{"keyword", "MRF 1 2 0", "expected MARKOV or BAYES"},
		{"truncated header", "MARKOV\n3\n2 2", "unexpected end of file"},
		{"non-numeric", "MARKOV\n2\n2 x\n0", `found "x"`},
		{"negative count", "MARKOV\n-2", "non-negative integer"},
		{"cardinality 0", "MARKOV\n2\n2 0\n0", "cardinality 0"},
		{"scope out of range", "MARKOV\n2\n2 2\n1\n1 2\n2 1 1", "out of range"},
		{"repeated scope", "MARKOV\n2\n2 2\n1\n2 1 1\n4 1 1 1 1", "appears twice"},
		{"count mismatch", "MARKOV\n2\n2 2\n1\n1 0\n3 1 1 1", "needs 2"},
		{"truncated table", "MARKOV\n2\n2 2\n1\n2 0 1\n4 1 1 1", "unexpected end of file"},
		{"negative entry", "MARKOV\n1\n2\n1\n1 0\n2 1 -1", "factor 0: negative entry -1"},
		{"negative tiny entry", "MARKOV\n1\n2\n1\n1 0\n2 1 -1e-400", "negative"},
		{"word entry", "MARKOV\n1\n2\n1\n1 0\n2 1 x", "(a number), found \"x\""},
		{"nan entry", "MARKOV\n1\n2\n1\n1 0\n2 1 NaN", "not finite"},
		{"inf entry", "MARKOV\n1\n2\n1\n1 0\n2 1 inf", "not finite"},
		{"trailing", "MARKOV\n1\n2\n1\n1 0\n2 1 1 7", "after the last table"},
		{"huge counts", "MARKOV\n999999999999", "is larger than 7, the most the rest of the file can hold"},
		{"huge table", "MARKOV\n4\n100000 100000 100000 100000\n1\n4 0 1 2 3\n", "more than"},
		{"too many factors", "MARKOV\n1\n2\n5000\n1 0", "larger than"},
	}
	for _, c := range cases {
		_, err := ParseModel("bad.uai", []byte(c.text))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: got %v, want a ParseError", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bad.uai:") {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
	// The line number is the one of the offending token.
	_, err := ParseModel("l.uai", []byte("MARKOV\n1\n2\n1\n1 0\n2\n1 -3\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "l.uai:7: token 9:") {
		t.Errorf("got %v, want line 7 token 9", err)
	}
}

func TestEvidenceLayouts(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"2 0 1 3 0", "[{0 1} {3 0}]"},
		{"1\n2 0 1 3 0\n", "[{0 1} {3 0}]"},
		{"0", "[]"},
		{"1\n0\n", "[]"},
	} {
		ev, err := ParseEvidence("e", []byte(c.text))
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if got := sprint(ev); got != c.want {
			t.Errorf("%q: got %s, want %s", c.text, got, c.want)
		}
	}
	for _, bad := range []string{"", "3 0 1", "2 0 1 3", "2\n1 0 1\n1 0 0", "1 0 x"} {
		if _, err := ParseEvidence("e", []byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestResultRoundTrip(t *testing.T) {
	x := []int{3, 0, 1, 7}
	var b bytes.Buffer
	if err := WriteResult(&b, x); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{b.String(), "MPE\n1\n4 3 0 1 7\n"} {
		y, err := ParseResult("r", []byte(text))
		if err != nil || sprint(y) != sprint(x) {
			t.Fatalf("%q: got %v, %v", text, y, err)
		}
	}
	for _, bad := range []string{"", "MAP", "MAP\n3 1 2", "FOO 1 0", "MAP 2 1 -1"} {
		if _, err := ParseResult("r", []byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestWriteModelRoundTrip writes random models and reads them back: every
// assignment keeps its energy (to the precision of 17 printed digits).
func TestWriteModelRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		m := randmodel.New(r, randmodel.Options{Vars: 1 + r.IntN(5), MaxCard: 4, Factors: r.IntN(8), MaxArity: 3, Forbidden: 0.2, Constant: true})
		var b bytes.Buffer
		if err := WriteModel(&b, m); err != nil {
			t.Fatal(err)
		}
		m2, err := ParseModel("rt", b.Bytes())
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		x := make([]int, m.NumVars())
		for s := 0; s < 10; s++ {
			for i := range x {
				x[i] = r.IntN(m.Card[i])
			}
			e1, e2 := m.Energy(x), m2.Energy(x)
			if math.IsInf(e1, 1) != math.IsInf(e2, 1) || !math.IsInf(e1, 1) && math.Abs(e1-e2) > 1e-13*math.Max(1, math.Abs(e1)) {
				t.Fatalf("energy %v became %v", e1, e2)
			}
		}
	}
}

func TestDecompress(t *testing.T) {
	var gz, xzb, zb bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(small))
	w.Close()
	xw, _ := xz.NewWriter(&xzb)
	xw.Write([]byte(small))
	xw.Close()
	zw := zip.NewWriter(&zb)
	f, _ := zw.Create("m.uai")
	f.Write([]byte(small))
	zw.Close()
	for name, raw := range map[string][]byte{"gz": gz.Bytes(), "xz": xzb.Bytes(), "zip": zb.Bytes(), "plain": []byte(small)} {
		data, err := Decompress(raw)
		if err != nil || string(data) != small {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Decompress(gz.Bytes()[:gz.Len()/2]); err == nil {
		t.Error("truncated gzip accepted")
	}
	var two bytes.Buffer
	zw = zip.NewWriter(&two)
	zw.Create("a")
	zw.Create("b")
	zw.Close()
	if _, err := Decompress(two.Bytes()); err == nil || !strings.Contains(err.Error(), "exactly one") {
		t.Errorf("two-member zip: %v", err)
	}
}

// FuzzParseModel: no input may panic, and anything accepted must evaluate
// an assignment without NaN.
func FuzzParseModel(f *testing.F) {
	f.Add([]byte(small))
	f.Add([]byte("MARKOV\n1\n2\n1\n1 0\n2 0 1"))
	f.Add([]byte("BAYES 2 2 2 2 1 0 2 0 1 2 .5 .5 4 .1 .9 .2 .8"))
	f.Add([]byte("MARKOV 2 2 2 1 0 1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseModel("fuzz", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a ParseError: %v", err)
			}
			return
		}
		x := make([]int, m.NumVars())
		if e := m.Energy(x); math.IsNaN(e) {
			t.Fatal("NaN energy")
		}
		if p, err := m.Pairwise(nil); err == nil && math.IsNaN(p.Energy(make([]int, p.NumVars()))) {
			t.Fatal("NaN pairwise energy")
		}
	})
}

func FuzzParseEvidence(f *testing.F) {
	f.Add([]byte("2 0 1 3 0"))
	f.Add([]byte("1\n2 0 1 3 0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseEvidence("fuzz", data)
		ParseResult("fuzz", data)
	})
}

func sprint(v any) string { return fmt.Sprint(v) }
