package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/bench/suite"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/gen"
)

// TestOneRecord: one run (trws, seed 7, deterministic) written three ways:
// json.Marshal of sdrmap.Solve's Result, `sdrmap solve --json` and a line
// of bench's results.jsonl. They share the field names and values of
// sdrmap.Record (time_s apart, a wall time), and none has the legacy
// status. (The batch module's TestOneRecord does the same for its record.)
func TestOneRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.uai")
	m := gen.PottsGrid(6, 6, 4, 1.5, 3)
	var mb bytes.Buffer
	err := uai.WriteModel(&mb, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, mb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err = uai.ReadModelFile(path); err != nil { // the model the CLI reads
		t.Fatal(err)
	}
	res, err := sdrmap.Solve(context.Background(), m, sdrmap.Settings{Solver: "trws", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	api := decodeJSON(t, mustMarshal(t, res))
	out, errs, code := runCLI(t, "solve", path, "--solver", "trws", "--seed", "7", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	cli := decodeJSON(t, []byte(out))
	recs, err := suite.Run(context.Background(), []suite.Entry{{Name: "p", Category: "test", Path: path}},
		suite.Options{Solvers: []string{"trws"}, Repeat: 1, Seed: 7})
	if err != nil || len(recs) != 1 {
		t.Fatalf("bench: %v, %d records", err, len(recs))
	}
	var b bytes.Buffer
	if err := suite.WriteRecord(&b, &recs[0]); err != nil {
		t.Fatal(err)
	}
	bench := decodeJSON(t, b.Bytes())
	for name, got := range map[string]map[string]any{"solve --json": cli, "bench": bench} {
		for _, k := range []string{"solver", "termination", "answer", "energy", "log10", "bound", "gap", "iterations", "rounds"} {
			if g, w := got[k], api[k]; g != w {
				t.Errorf("%s: %s = %v, json.Marshal(Result) has %v", name, k, g, w)
			}
		}
	}
	for name, got := range map[string]map[string]any{"json.Marshal(Result)": api, "solve --json": cli, "bench": bench} {
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

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}
