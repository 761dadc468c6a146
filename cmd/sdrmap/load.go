package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sdrmap/sdrmap/format/opengm"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/model"
)

// Energy conventions, stated beside every energy that sdrmap prints. Both
// are E(x) = -sum of the model's log values; they differ in what the file
// holds.
const (
	uaiConvention    = "-sum ln phi"                   // UAI: tables of phi >= 0
	opengmConvention = "sum of OpenGM function values" // OpenGM HDF5: energies, minimized
)

// input is a model read from the command line, with its evidence and the
// convention of its energies.
type input struct {
	m          *model.Model
	ev         model.Evidence
	convention string
}

// load reads a model (UAI, possibly compressed, or OpenGM HDF5 given as
// file.h5 or file.h5:group) and, if evidPath is not empty, its evidence
// (checked against the model).
func load(path, evidPath string) (*input, error) {
	in := &input{convention: uaiConvention}
	var err error
	if opengm.IsHDF5(path) {
		in.m, err = opengm.ReadFile(path)
		in.convention = opengmConvention
	} else {
		in.m, err = uai.ReadModelFile(path)
	}
	if err != nil {
		return nil, err
	}
	if evidPath == "" {
		return in, nil
	}
	if in.ev, err = uai.ReadEvidenceFile(evidPath); err != nil {
		return nil, err
	}
	if _, err := in.ev.Clamps(in.m); err != nil {
		return nil, fmt.Errorf("%s: %w", evidPath, err)
	}
	return in, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
