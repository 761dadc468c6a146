package sdrmap

import (
	"encoding/json"

	"github.com/sdrmap/sdrmap/internal/jsonfloat"
)

// Record is the JSON form of a Result, the one encoding of a run's outcome:
// json.Marshal(Result), `sdrmap solve --json` and the lines of batch's and
// bench's results.jsonl all write it (the last three add fields of their
// own beside it). Infinities and NaN are the strings "+Inf", "-Inf" and
// "NaN" (package jsonfloat). There is no status field: termination says
// why the run stopped, answer what the assignment is.
type Record struct {
	Solver      string          `json:"solver"`
	Termination Termination     `json:"termination"`
	Answer      Answer          `json:"answer"`
	Energy      jsonfloat.Float `json:"energy"`
	Log10       jsonfloat.Float `json:"log10"`
	Bound       jsonfloat.Float `json:"bound"`
	Gap         jsonfloat.Float `json:"gap"`
	TimeS       float64         `json:"time_s"` // wall time, seconds
	Iterations  int             `json:"iterations"`
	Rounds      int             `json:"rounds"`
	SDR         *SDRInfo        `json:"sdr,omitempty"`
	Assignment  []int           `json:"assignment,omitempty"`
}

// Record returns the record of r.
func (r *Result) Record() Record {
	return Record{Solver: r.Solver, Termination: r.Termination, Answer: r.Answer,
		Energy: jsonfloat.Float(r.Energy), Log10: jsonfloat.Float(r.Log10),
		Bound: jsonfloat.Float(r.Bound), Gap: jsonfloat.Float(r.Gap), TimeS: r.Time.Seconds(),
		Iterations: r.Iterations, Rounds: r.Rounds, SDR: r.SDR, Assignment: r.Assignment}
}

// MarshalJSON encodes r as its Record.
func (r Result) MarshalJSON() ([]byte, error) { return json.Marshal(r.Record()) }
