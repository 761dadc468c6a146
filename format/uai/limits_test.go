package uai

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/sdrmap/sdrmap/model"
)

// allocated returns the bytes allocated by f (runtime.MemStats.TotalAlloc),
// an upper bound on the peak heap that f adds.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestLimits checks issue 45, item 2: a tiny header asking for a huge
// model is refused, naming the file, line and limit, before the memory is
// allocated (MARKOV 1 100000000 0 took 3.9 GB; cardinality 2^31 crashed
// the runtime).
func TestLimits(t *testing.T) {
	lim := model.Limits{MaxEntries: 1 << 20, MaxN: 1 << 16}
	for _, c := range []struct{ name, text, want string }{
		{"huge cardinality", "MARKOV 1 100000000 0", "larger than 65536, the limit on N (--max-n"},
		{"2^31 states", "MARKOV\n1\n2147483648\n0\n", "larger than 65536"},
		{"N over many variables", "MARKOV 3 30000 30000 30000 0", "reaches 90001"},
		{"many variables", "MARKOV 70000 " + strings.Repeat("1 ", 70000) + "0", "reaches 70001"},
		{"huge table", "MARKOV 2 1000 2000 1 2 0 1 2000000", "2000000 table entries, more than the limit 1048576"},
		{"entries over factors", "MARKOV 2 1000 1000 2 2 0 1 2 0 1", "factors 0..1: 2000000 table entries"},
	} {
		var err error
		mem := allocated(func() { _, err = ParseModelLimits("big.uai", []byte(c.text), lim) })
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line == 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a ParseError with a line, mentioning %q", c.name, err, c.want)
		}
		if mem > 8<<20 {
			t.Errorf("%s: %d bytes allocated before the error", c.name, mem)
		}
	}
	// The default limits fit the machine: 2^31 states are refused there too.
	if _, err := ParseModel("big.uai", []byte("MARKOV 1 2147483648 0")); err == nil {
		t.Error("cardinality 2^31 accepted with the default limits")
	}
}

// TestDecompressionBombs checks that gzip, xz and zip archives that expand
// beyond the limit are refused after reading at most about the limit.
func TestDecompressionBombs(t *testing.T) {
	big := bytes.Repeat([]byte("0 "), 16<<20) // 32 MiB of text
	var gz, xzb, zb bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(big)
	gw.Close()
	xw, err := xz.NewWriter(&xzb)
	if err != nil {
		t.Fatal(err)
	}
	xw.Write(big)
	xw.Close()
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("m.uai")
	w.Write(big)
	zw.Close()
	dir := t.TempDir()
	const limit = 1 << 20
	for name, raw := range map[string][]byte{"m.uai.gz": gz.Bytes(), "m.uai.xz": xzb.Bytes(), "m.uai.zip": zb.Bytes(), "m.uai": big} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		mem := allocated(func() { _, err = ReadAllLimit(path, limit) })
		if err == nil || !strings.Contains(err.Error(), "more than 1048576 bytes") || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s: error %v, want the limit exceeded, naming the file", name, err)
		}
		if mem > 16*limit {
			t.Errorf("%s: %d bytes allocated to refuse it", name, mem)
		}
	}
	// Through the model reader: MaxBytes follows MaxEntries.
	_, err = ReadModelFileLimits(filepath.Join(dir, "m.uai.gz"), model.Limits{MaxEntries: 1 << 16, MaxN: 1 << 10})
	if err == nil || !strings.Contains(err.Error(), "bytes (decompressed)") {
		t.Errorf("bomb through ReadModelFileLimits: %v", err)
	}
}

// fuzzLimits and fuzzMemCap are the fuzz target's limits and the memory it
// may allocate per input, whatever the input.
var fuzzLimits = model.Limits{MaxEntries: 1 << 16, MaxN: 1 << 12}

const fuzzMemCap = 64 << 20

// FuzzModelEvidence reads whole inputs as sdrmap solve does (decompression,
// model, evidence, the evidence checked against the model, validation, the
// pairwise view and an energy) within fuzzLimits and checks, besides no
// panic, that every error is a ParseError or names its problem and that
// no input allocates more than fuzzMemCap. Run:
//
//	go test ./format/uai -run '^$' -fuzz FuzzModelEvidence -fuzztime 3m
func FuzzModelEvidence(f *testing.F) {
	f.Add([]byte(small), []byte("1 0 1"))
	f.Add([]byte("MARKOV\n2\n2 2\n1\n2 0 1\n4\n0 0 0 1\n"), []byte("1\n1 1 0\n"))
	f.Add([]byte("MARKOV 1 100000000 0"), []byte("0"))
	f.Add([]byte("MARKOV 3 2 2 2 1 3 0 1 2 8 1 2 3 4 5e-324 1e-400 1e999 0"), []byte("1 2 1"))
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(small))
	gw.Close()
	f.Add(gz.Bytes(), []byte("0"))
	f.Fuzz(func(t *testing.T, mdata, edata []byte) {
		mem := allocated(func() {
			data, err := DecompressLimit(mdata, fuzzLimits.MaxBytes())
			if err != nil {
				return
			}
			m, err := ParseModelLimits("fuzz.uai", data, fuzzLimits)
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error is not a ParseError: %v", err)
				}
				return
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("the reader returned a model that does not validate: %v", err)
			}
			ev, err := ParseEvidence("fuzz.evid", edata)
			if err != nil {
				return
			}
			if _, err := ev.Clamps(m); err != nil {
				return
			}
			p, err := m.Pairwise(ev)
			if err != nil {
				return
			}
			if e := p.Energy(make([]int, p.NumVars())); e != e {
				t.Fatal("NaN energy")
			}
		})
		if mem > fuzzMemCap {
			t.Fatalf("%d bytes allocated (cap %d) for a %d-byte model", mem, fuzzMemCap, len(mdata))
		}
	})
}

// TestEvidenceLimits checks that evidence and result files are bounded by
// the variables that the limits allow: two values per variable and a few
// counts, before their values are stored.
func TestEvidenceLimits(t *testing.T) {
	lim := model.Limits{MaxEntries: 1 << 10, MaxN: 100}
	dir := t.TempDir()
	long := filepath.Join(dir, "long.evid")
	os.WriteFile(long, []byte("1000 "+strings.Repeat("0 1 ", 1000)), 0o644)
	if _, err := ReadEvidenceFileLimits(long, lim); err == nil || !strings.Contains(err.Error(), "more than 203 values") {
		t.Errorf("long evidence: %v", err)
	}
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(bytes.Repeat([]byte("0 "), 8<<20))
	gw.Close()
	bomb := filepath.Join(dir, "bomb.evid")
	os.WriteFile(bomb, gz.Bytes(), 0o644)
	var err error
	mem := allocated(func() { _, err = ReadEvidenceFileLimits(bomb, lim) })
	if err == nil || !strings.Contains(err.Error(), "bytes (decompressed)") || mem > 8<<20 {
		t.Errorf("evidence bomb: %v, %d bytes allocated", err, mem)
	}
	res := filepath.Join(dir, "long.MAP")
	os.WriteFile(res, []byte("MAP 500 "+strings.Repeat("0 ", 500)), 0o644)
	if _, err := ReadResultFileLimits(res, lim); err == nil || !strings.Contains(err.Error(), "more than 203 values") {
		t.Errorf("long result: %v", err)
	}
	if ev, err := ReadEvidenceFileLimits(long, model.Limits{MaxN: 2000}); err != nil || len(ev) != 1000 {
		t.Errorf("within the limits: %d observations, %v", len(ev), err)
	}
}
