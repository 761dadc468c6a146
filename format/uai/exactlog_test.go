package uai

import (
	"bytes"
	"math"
	"testing"

	"github.com/sdrmap/sdrmap/model"
)

// TestExactLogs checks issue 45, item 1: subnormal entries (math.Log gives
// -709.09 for 5e-324 on amd64), entries that underflow a float64 (1e-400
// was read as 0, a forbidden entry) or overflow it (1e999 was refused) get
// their exact logs. The wanted values are ln(m) + e ln 10 to 7 digits.
func TestExactLogs(t *testing.T) {
	m, err := ParseModel("tiny.uai", []byte("MARKOV\n1\n5\n1\n1 0\n5\n5e-324 1e-308 1e-400 1e999 0x1p-1074\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := &m.Factors[0]
	want := []float64{-744.4281, -709.1962, -921.0340, 2300.2825, -744.4401}
	for k, w := range want {
		if f.IsForbidden(k) || math.Abs(f.Log[k]-w) > 1e-4 {
			t.Errorf("entry %d: log %v (forbidden %v), want %v", k, f.Log[k], f.IsForbidden(k), w)
		}
	}
	// The model: the optimum is the state of 1e-308, energy 709.196.
	m, err = ParseModel("two.uai", []byte("MARKOV\n1\n2\n1\n1 0\n2\n5e-324 1e-308\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e0, e1 := m.Energy([]int{0}), m.Energy([]int{1}); !(e1 < e0) || math.Abs(e0-744.4281) > 1e-4 {
		t.Errorf("energies %v and %v; want 744.4281 > 709.1962", e0, e1)
	}
}

// TestAllZeroTable checks that a table of zeros is read, every entry
// forbidden: the model is infeasible, which is an answer, not an input
// error (sdrmap.Solve reports it).
func TestAllZeroTable(t *testing.T) {
	m, err := ParseModel("z.uai", []byte("MARKOV\n1\n2\n1\n1 0\n2 0 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Factors[0].ForbiddenCount() != 2 {
		t.Fatalf("forbidden entries %d, want 2", m.Factors[0].ForbiddenCount())
	}
}

// TestWriteExtremeLogs checks that logs whose exp underflows or overflows a
// float64 survive WriteModel and ParseModel (they used to be written as 0,
// a forbidden entry, and +Inf, refused).
func TestWriteExtremeLogs(t *testing.T) {
	logs := []float64{-800, 800, -1e6, 1e6, -744.44, 0, -3.5}
	m := &model.Model{Card: []int{len(logs)}, Factors: []model.Factor{{Scope: []int{0}, Table: model.Table{Log: logs}}}}
	var b bytes.Buffer
	if err := WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	back, err := ParseModel("w.uai", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range logs {
		if got := back.Factors[0].Log[k]; back.Factors[0].IsForbidden(k) || math.Abs(got-w) > 4e-16*math.Max(1, math.Abs(w)) {
			t.Errorf("entry %d: wrote %v, read %v", k, w, got)
		}
	}
}
