package suite

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/internal/jsonfloat"
)

// Record is one JSON line of results.jsonl: one solver on one instance.
// The run's figures are an sdrmap.Record, the encoding of `sdrmap solve
// --json` (without the assignment): for sdrmap's methods that of the first
// run, with time_s the median wall time over the repeats; the peers fill
// its solver, energy, bound, gap, iterations and time_s. Energies follow
// the UAI convention (lower is better, +Inf without an assignment of finite
// energy); infinities and NaN are written as the strings "+Inf", "-Inf" and
// "NaN".
type Record struct {
	Instance string `json:"instance"`
	Category string `json:"category"`
	Source   string `json:"source"` // the model file, or the gen command line
	sdrmap.Record
	// Status is a peer's own status ("optimal", "time limit", ...),
	// "skipped" when the solver is not installed, "error" when the run
	// failed (Error says why), "interrupted"; empty for sdrmap's methods,
	// whose termination and answer say it (records before 2026-11-27 have
	// their legacy status here).
	Status     string    `json:"status,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Error      string    `json:"error,omitempty"`
	SDP        *SDP      `json:"sdp,omitempty"` // relaxation figures of the SDP peers (and of sdrmap's methods in records before 2026-11-27; now Record.SDR)
	Times      []float64 `json:"times"`         // wall time of every repeat, seconds
	TimeLimitS float64   `json:"time_limit_s"`
	Seed       uint64    `json:"seed"`
	// MemPeakBytes is the peak memory of the first run; MemSource says how
	// it was measured: "rusage-maxrss-child" (ru_maxrss of the solver
	// process) or "go-runtime-sampled" (in-process solvers: the Go
	// runtime's mapped memory, /memory/classes/total minus
	// heap/released, sampled every 10 ms during the run).
	MemPeakBytes int64  `json:"mem_peak_bytes,omitempty"`
	MemSource    string `json:"mem_source,omitempty"`
	// MaxRSSSelfBytes is getrusage(RUSAGE_SELF) ru_maxrss after the run
	// (in-process solvers): the peak of the whole bench process so far.
	MaxRSSSelfBytes int64        `json:"maxrss_self_bytes,omitempty"`
	Stats           Stats        `json:"stats"`
	Trace           []TracePoint `json:"trace,omitempty"`
	Machine         Machine      `json:"machine"`
	Commit          string       `json:"commit,omitempty"`
	Date            string       `json:"date"` // RFC 3339, UTC, when the run ended
}

// SDP holds the relaxation figures (docs/relaxation.md, Protocol) in sdrmap's minimization
// convention: objective <C, Xbar>, its dual bound, the relative gap
// |pobj - dobj| / (1 + |pobj| + |dobj|) and the primal infeasibility.
type SDP struct {
	Objective Float `json:"objective"`
	Dual      Float `json:"dual"`
	Gap       Float `json:"sdp_gap"`
	PInf      Float `json:"pinf"`
	Dimension int   `json:"dimension,omitempty"`
	Rank      int   `json:"rank,omitempty"`
}

// Stats are the sizes of an instance (model.Stats, before evidence).
type Stats struct {
	Variables    int `json:"variables"`
	MinCard      int `json:"min_cardinality"`
	MaxCard      int `json:"max_cardinality"`
	Factors      int `json:"factors"`
	Edges        int `json:"edges"`
	MaxArity     int `json:"max_arity"`
	SDRDimension int `json:"sdr_dimension"` // N = 1 + sum of cardinalities
	// SDRDimensionConverted is N after the exact conversion of the
	// higher-order factors (package higherorder), 0 for pairwise models.
	SDRDimensionConverted int `json:"sdr_dimension_converted,omitempty"`
	Evidence              int `json:"evidence,omitempty"`
}

// TracePoint is one point of a run's history: for the SDR solvers one per
// sampled iteration (at most MaxTrace), for the others the final result.
type TracePoint struct {
	T         float64 `json:"t"` // seconds since the start of the solver
	Iteration int     `json:"iteration,omitempty"`
	Energy    Float   `json:"energy"`
	Bound     Float   `json:"bound"`
	SDPGap    Float   `json:"sdp_gap"`
}

// Machine describes the computer, without its name.
type Machine struct {
	GOOS     string `json:"goos"`
	GOARCH   string `json:"goarch"`
	CPU      string `json:"cpu,omitempty"`
	NumCPU   int    `json:"ncpu"`
	MemBytes int64  `json:"mem_total_bytes,omitempty"`
}

// sdp returns the relaxation figures of r: SDP, or those of an sdrmap
// method's Record.SDR.
func (r *Record) sdp() *SDP {
	if r.SDP != nil || r.SDR == nil {
		return r.SDP
	}
	d := r.SDR
	return &SDP{Objective: Float(d.PrimalObjective), Dual: Float(d.DualObjective), Gap: Float(d.Gap),
		PInf: Float(d.PrimalInfeasibility), Dimension: d.Dimension, Rank: d.Rank}
}

// status is what r's status column shows: Status, or an sdrmap method's
// termination and answer.
func (r *Record) status() string {
	if r.Status != "" || r.Termination == "" {
		return r.Status
	}
	return string(r.Termination) + ", " + string(r.Answer)
}

// Float is a float64 in sdrmap's JSON encoding (package jsonfloat).
type Float = jsonfloat.Float

// WriteRecord appends r to w as one JSON line.
func WriteRecord(w io.Writer, r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadRecords reads a JSONL file of records.
func ReadRecords(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	var out []Record
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
