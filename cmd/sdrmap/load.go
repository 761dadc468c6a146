package main

import (
	"encoding/json"
	"io"

	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

// input is a model read from the command line, with its evidence and the
// convention of its energies.
type input = solvecmd.Input

// load reads a model and its evidence as solve does (solvecmd.Load).
var load = solvecmd.Load

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
