package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

// input is a model read from the command line, with its evidence and the
// convention of its energies.
type input = solvecmd.Input

// load reads a model and its evidence as solve does (solvecmd.Load).
var load = solvecmd.Load

// loadWithin is load within the limits of --max-entries and --max-n (a
// negative one is a bad command line).
func loadWithin(l solvecmd.LimitFlags, path, evid string) (*input, error) {
	if _, err := l.Limits(); err != nil {
		return nil, usageError{err}
	}
	return l.Load(path, evid)
}

// writeJSON writes v, a JSON object, with one top-level field per line and
// each value compact: the assignment of a large model stays on one line.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	var out bytes.Buffer
	out.WriteString("{")
	for sep := "\n"; dec.More(); sep = ",\n" {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return err
		}
		k, _ := json.Marshal(key)
		fmt.Fprintf(&out, "%s  %s: %s", sep, k, val)
	}
	out.WriteString("\n}\n")
	_, err = w.Write(out.Bytes())
	return err
}
