package batch

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/format/uai"
)

// TestOneRecord: one run (trws, seed 7, deterministic) written three
// ways: json.Marshal of sdrmap.Solve's Result, `sdrmap solve --json` and
// this module's results.jsonl record. They share the field names and values
// of sdrmap.Record (time_s apart, a wall time), and none has the legacy
// status. (The sdrmap module's cmd/sdrmap TestOneRecord does the same for
// bench's record, which this module does not import.)
func TestOneRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.uai")
	writePotts(t, path, 6, 3)
	fl := testFlags()
	fl.Solver, fl.Seed = "trws", 7
	s, err := fl.Settings()
	if err != nil {
		t.Fatal(err)
	}
	m, err := uai.ReadModelFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sdrmap.Solve(context.Background(), m, s)
	if err != nil {
		t.Fatal(err)
	}
	api := decode(t, res)
	cli := sdrmapCmd(t, "solve", path, "--solver", "trws", "--seed", "7", "--json")
	rec, _, _ := solve(context.Background(), Item{Input: path}, fl)
	batch := decode(t, rec)
	shared := []string{"solver", "termination", "answer", "energy", "log10", "bound", "gap", "iterations", "rounds"}
	for name, got := range map[string]map[string]any{"solve --json": cli, "batch": batch} {
		for _, k := range shared {
			if g, w := got[k], api[k]; g != w {
				t.Errorf("%s: %s = %v, json.Marshal(Result) has %v", name, k, g, w)
			}
		}
	}
	for name, got := range map[string]map[string]any{"json.Marshal(Result)": api, "solve --json": cli, "batch": batch} {
		if _, ok := got["time_s"].(float64); !ok {
			t.Errorf("%s: no time_s", name)
		}
		if st, ok := got["status"]; ok {
			t.Errorf("%s: legacy status %v", name, st)
		}
	}
	if api["answer"] == "" || api["termination"] == "" {
		t.Errorf("record %v", api)
	}
}

func decode(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
