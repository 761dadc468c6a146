package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"sdrmap/format/uai"
	"sdrmap/model"
)

// energyConvention is stated beside every energy that sdrmap prints.
const energyConvention = "-sum ln phi"

// load reads a model and, if evidPath is not empty, its evidence (checked
// against the model).
func load(path, evidPath string) (*model.Model, model.Evidence, error) {
	m, err := uai.ReadModelFile(path)
	if err != nil {
		return nil, nil, err
	}
	if evidPath == "" {
		return m, nil, nil
	}
	ev, err := uai.ReadEvidenceFile(evidPath)
	if err != nil {
		return nil, nil, err
	}
	if _, err := ev.Clamps(m); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", evidPath, err)
	}
	return m, ev, nil
}

// jsonFloat encodes infinities as strings ("+Inf"), which JSON cannot hold
// as numbers.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return json.Marshal(fmt.Sprint(v))
	}
	return json.Marshal(v)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
