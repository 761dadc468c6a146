package sdrmap

import (
	"encoding/json"

	"github.com/sdrmap/sdrmap/internal/jsonfloat"
)

// MarshalJSON encodes r with the field names of its tags; infinities and
// NaN as the strings "+Inf", "-Inf", "NaN" (package jsonfloat).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		plain
		Energy jsonfloat.Float `json:"energy"`
		Log10  jsonfloat.Float `json:"log10"`
		Bound  jsonfloat.Float `json:"bound"`
		Gap    jsonfloat.Float `json:"gap"`
	}{plain(r), jsonfloat.Float(r.Energy), jsonfloat.Float(r.Log10), jsonfloat.Float(r.Bound), jsonfloat.Float(r.Gap)})
}
