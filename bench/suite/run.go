package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/bench/peers"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/higherorder"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/sdr"
)

// External solvers run through package peers: toulbar2 on the UAI file
// (with VAC preprocessing, -A), CSDP, SDPA and DSDP on the SDPA export of
// the relaxation.
var External = []string{"toulbar2", "csdp", "sdpa", "dsdp"}

// StatusSkipped is the status of a solver that is not installed,
// StatusError that of a run that failed, StatusInterrupted that of an
// external solver's run cut short by the end of the context (sdrmap's own
// solvers report "interrupted" themselves).
const (
	StatusSkipped     = "skipped"
	StatusError       = "error"
	StatusInterrupted = "interrupted"
)

// MaxTrace bounds the number of points of an SDR solver's trace.
const MaxTrace = 200

// IsSDP reports whether the solver solves the relaxation (Table 3): the
// external SDP solvers and sdrmap's relaxation methods (Method.Relaxation).
func IsSDP(solver string) bool {
	if m, ok := methods.Lookup(solver); ok {
		return m.Relaxation()
	}
	return !IsMAP(solver)
}

// IsMAP reports whether the solver returns an assignment (Table 1): all but
// the external SDP solvers.
func IsMAP(solver string) bool {
	switch solver {
	case "csdp", "sdpa", "dsdp":
		return false
	}
	return true
}

// ValidSolvers lists the solver names Run accepts: sdrmap's own, then the
// external ones.
func ValidSolvers() []string {
	return append(sdrmap.Solvers(), External...)
}

// CheckSolvers returns an error naming the first unknown solver and the
// valid ones, or for an empty or repeated list.
func CheckSolvers(names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("no solvers given (valid: %s)", strings.Join(ValidSolvers(), ", "))
	}
	valid := ValidSolvers()
	seen := map[string]bool{}
	for _, n := range names {
		if !slices.Contains(valid, n) {
			return fmt.Errorf("unknown solver %q (valid: %s)", n, strings.Join(valid, ", "))
		}
		if seen[n] {
			return fmt.Errorf("solver %q given twice", n)
		}
		seen[n] = true
	}
	return nil
}

// Options configures Run.
type Options struct {
	Solvers   []string      // solver names (CheckSolvers)
	TimeLimit time.Duration // per run; 0: none
	Repeat    int           // runs per (instance, solver), >= 1; the time reported is the median
	Seed      uint64        // seed of sdrmap's solvers
	Log       io.Writer     // one line per record (nil: none)
	// Record, when not nil, is called with every record as soon as it is
	// complete (e.g. to append it to results.jsonl); an error stops Run.
	Record func(*Record) error
	// CommitDir is where to ask git for the sdrmap commit when the working
	// directory is not in the repository (e.g. the suite file's folder).
	CommitDir string
}

// Run runs every solver on every entry and returns the records in suite
// order (instances) and Options.Solvers order. Failed runs become records
// of status "error", missing external solvers records of status "skipped"
// (with one line on Log per solver). When ctx ends, Run returns the records
// completed so far, the interrupted one included, and ctx's error.
func Run(ctx context.Context, entries []Entry, o Options) ([]Record, error) {
	if err := CheckSolvers(o.Solvers); err != nil {
		return nil, err
	}
	if o.Repeat < 1 {
		o.Repeat = 1
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format, args...)
		}
	}
	missing := map[string]bool{}
	for _, s := range o.Solvers {
		if slices.Contains(External, s) && !peers.Available(s) {
			missing[s] = true
			logf("bench: %s is not installed (%s not on PATH): skipped, its records have status \"skipped\"\n", s, peers.Binaries[s])
		}
	}
	base := Record{TimeLimitS: o.TimeLimit.Seconds(), Seed: o.Seed, Machine: ThisMachine(), Commit: Commit(o.CommitDir)}
	var out []Record
	total, done := len(entries)*len(o.Solvers), 0
	for _, e := range entries {
		in := &instance{entry: e}
		err := in.load()
		for _, s := range o.Solvers {
			done++
			rec := base
			rec.Instance, rec.Category, rec.Source, rec.Solver = e.Name, e.Category, e.Source(), s
			rec.Energy, rec.Bound, rec.Gap = Float(math.NaN()), Float(math.NaN()), Float(math.NaN())
			rec.Stats = in.stats
			switch {
			case err != nil:
				rec.Status, rec.Error = StatusError, err.Error()
			case missing[s]:
				rec.Status = StatusSkipped
			default:
				in.runRepeats(ctx, &rec, o)
			}
			rec.Date = time.Now().UTC().Format(time.RFC3339)
			out = append(out, rec)
			logf("[%d/%d] %s\n", done, total, summary(&rec))
			if o.Record != nil {
				if err := o.Record(&out[len(out)-1]); err != nil {
					in.close()
					return out, err
				}
			}
			if ctx.Err() != nil {
				in.close()
				return out, ctx.Err()
			}
		}
		in.close()
	}
	return out, nil
}

// summary is the log line of a record.
func summary(r *Record) string {
	s := fmt.Sprintf("%s %s: %s", r.Instance, r.Solver, r.status())
	switch r.Status {
	case StatusSkipped:
		return s
	case StatusError:
		return s + ": " + r.Error
	}
	if !math.IsNaN(float64(r.Energy)) {
		s += fmt.Sprintf(", energy %.9g", float64(r.Energy))
	}
	if b := float64(r.Bound); !math.IsNaN(b) && !math.IsInf(b, -1) {
		s += fmt.Sprintf(", bound %.9g", b)
	}
	if d := r.sdp(); d != nil {
		s += fmt.Sprintf(", sdp gap %.2e, pinf %.2e", float64(d.Gap), float64(d.PInf))
	}
	return s + fmt.Sprintf(", %.3gs", r.TimeS)
}

// instance is an entry being run: its model and the files the external
// solvers read, made when first needed.
type instance struct {
	entry Entry
	m     *model.Model
	ev    model.Evidence
	stats Stats
	dir   string // temporary files
	uai   string // model file for toulbar2
	evid  string
	sdpa  string  // SDPA export of the relaxation
	konst float64 // the relaxation's Const: energy = <C, Xbar> - Const
	n     int     // the relaxation's order N
}

func (in *instance) load() error {
	m, ev, err := in.entry.Load()
	if err != nil {
		return err
	}
	in.m, in.ev = m, ev
	st := m.Stats()
	in.stats = Stats{
		Variables: st.Variables, MinCard: st.MinCardinality, MaxCard: st.MaxCardinality, Factors: st.Factors,
		Edges: st.Edges, MaxArity: st.MaxArity, SDRDimension: st.SDRDimension, Evidence: len(ev),
	}
	if st.MaxArity > 2 {
		_, mp, err := higherorder.Convert(m, higherorder.Settings{})
		if err != nil {
			return err
		}
		in.stats.SDRDimensionConverted = mp.Stats.After.N
	}
	return nil
}

func (in *instance) close() {
	if in.dir != "" {
		os.RemoveAll(in.dir)
		in.dir = ""
	}
}

func (in *instance) tempDir() (string, error) {
	if in.dir == "" {
		d, err := os.MkdirTemp("", "sdrmap-bench-")
		if err != nil {
			return "", err
		}
		in.dir = d
	}
	return in.dir, nil
}

// uaiFile returns the model file for toulbar2 (a generated model is
// written to a temporary file).
func (in *instance) uaiFile() (string, string, error) {
	if in.entry.Gen == nil {
		return in.entry.Path, in.entry.Evid, nil
	}
	if in.uai == "" {
		dir, err := in.tempDir()
		if err != nil {
			return "", "", err
		}
		f, err := os.Create(filepath.Join(dir, "model.uai"))
		if err != nil {
			return "", "", err
		}
		if err := uai.WriteModel(f, in.m); err != nil {
			f.Close()
			return "", "", err
		}
		if err := f.Close(); err != nil {
			return "", "", err
		}
		in.uai = f.Name()
	}
	return in.uai, "", nil
}

// sdpaFile returns the SDPA export of the relaxation (of the pairwise view
// under evidence, after converting higher-order factors as sdrmap.Solve
// does).
func (in *instance) sdpaFile() (string, error) {
	if in.sdpa != "" {
		return in.sdpa, nil
	}
	work, ev := in.m, in.ev
	if in.m.MaxArity() > 2 {
		conv, mp, err := higherorder.Convert(in.m, higherorder.Settings{})
		if err != nil {
			return "", err
		}
		if ev, err = mp.Evidence(in.ev); err != nil {
			return "", err
		}
		work = conv
	}
	p, err := work.Pairwise(ev)
	if err != nil {
		return "", err
	}
	prob, err := sdr.Build(p)
	if err != nil {
		return "", err
	}
	dir, err := in.tempDir()
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "relaxation.dat-s")
	if err := peers.WriteSDPAFile(file, prob); err != nil {
		return "", err
	}
	in.sdpa, in.konst, in.n = file, prob.Const, prob.N()
	return file, nil
}

// runRepeats fills rec from o.Repeat runs: the figures of the first, the
// median time of all.
func (in *instance) runRepeats(ctx context.Context, rec *Record, o Options) {
	for k := range o.Repeat {
		t, err := in.runOnce(ctx, rec, o, k == 0)
		if err != nil {
			rec.Status, rec.Error = StatusError, err.Error()
			if errors.Is(err, peers.ErrNotFound) {
				rec.Status = StatusSkipped
			}
			rec.Times = append(rec.Times, t)
			break
		}
		rec.Times = append(rec.Times, t)
		if ctx.Err() != nil {
			break
		}
	}
	rec.TimeS = median(rec.Times)
	if ctx.Err() != nil && rec.Status == StatusError {
		rec.Status = StatusInterrupted
	}
}

// runOnce runs the solver once and returns its wall time in seconds. On
// the first run it fills rec; later runs only time.
func (in *instance) runOnce(ctx context.Context, rec *Record, o Options, first bool) (float64, error) {
	s := rec.Solver
	switch s {
	case "toulbar2":
		file, evid, err := in.uaiFile()
		if err != nil {
			return 0, err
		}
		r, err := peers.Toulbar2With(ctx, file, peers.Toulbar2Options{Evidence: evid, TimeLimit: o.TimeLimit, VAC: true})
		if first {
			rec.Status, rec.Reason = r.Status, r.Reason
			rec.Energy, rec.Bound = Float(r.Energy), Float(r.Bound)
			rec.Gap = Float(r.Energy - r.Bound)
			if r.MaxRSS > 0 {
				rec.MemPeakBytes, rec.MemSource = r.MaxRSS, "rusage-maxrss-child"
			}
			rec.Trace = []TracePoint{{T: r.Time.Seconds(), Energy: rec.Energy, Bound: rec.Bound, SDPGap: Float(math.NaN())}}
		}
		return r.Time.Seconds(), err
	case "csdp", "sdpa", "dsdp":
		file, err := in.sdpaFile()
		if err != nil {
			return 0, err
		}
		run := map[string]func(context.Context, string, time.Duration, ...string) (peers.Run, error){
			"csdp": peers.CSDP, "sdpa": peers.SDPA, "dsdp": peers.DSDP,
		}[s]
		r, err := run(ctx, file, o.TimeLimit)
		if first {
			rec.Status, rec.Reason, rec.Iterations = r.Status, r.Reason, r.Iterations
			gap := math.NaN()
			if !math.IsNaN(r.Objective) && !math.IsNaN(r.DualObjective) {
				gap = sdr.Gap(r.Objective, r.DualObjective)
			}
			rec.SDP = &SDP{Objective: Float(r.Objective), Dual: Float(r.DualObjective), Gap: Float(gap),
				PInf: Float(r.PrimalInfeas), Dimension: in.n}
			if r.MaxRSS > 0 {
				rec.MemPeakBytes, rec.MemSource = r.MaxRSS, "rusage-maxrss-child"
			}
			rec.Trace = []TracePoint{{T: r.Time.Seconds(), Energy: Float(math.NaN()),
				Bound: Float(r.DualObjective - in.konst), SDPGap: Float(gap)}}
		}
		return r.Time.Seconds(), err
	}
	return in.runSdrmap(ctx, rec, o, first)
}

// runSdrmap runs one of sdrmap's solvers in process.
func (in *instance) runSdrmap(ctx context.Context, rec *Record, o Options, first bool) (float64, error) {
	set := sdrmap.Settings{Solver: rec.Solver, Evidence: in.ev, TimeLimit: o.TimeLimit, Seed: o.Seed}
	var (
		mu    sync.Mutex
		trace []TracePoint
	)
	if first && IsSDP(rec.Solver) {
		set.Progress = func(p sdrmap.Progress) {
			mu.Lock()
			defer mu.Unlock()
			trace = append(trace, TracePoint{T: p.Elapsed.Seconds(), Iteration: p.Iteration,
				Energy: Float(p.Energy), Bound: Float(p.Bound), SDPGap: Float(p.SDPGap)})
		}
	}
	runtime.GC()
	debug.FreeOSMemory()
	mem := startMemSampler()
	start := time.Now()
	res, err := sdrmap.Solve(ctx, in.m, set)
	wall := time.Since(start).Seconds()
	peak := mem.stop()
	if err != nil || !first {
		return wall, err
	}
	rec.Record = res.Record()
	rec.Assignment = nil
	rec.MemPeakBytes, rec.MemSource, rec.MaxRSSSelfBytes = peak, "go-runtime-sampled", maxRSSSelf()
	mu.Lock()
	defer mu.Unlock()
	if len(trace) > 0 {
		rec.Trace = subsample(trace, MaxTrace)
	} else {
		p := TracePoint{T: wall, Energy: rec.Energy, Bound: rec.Bound, SDPGap: Float(math.NaN())}
		if rec.SDR != nil {
			p.SDPGap = Float(rec.SDR.Gap)
		}
		rec.Trace = []TracePoint{p}
	}
	return wall, nil
}

// subsample keeps at most n points, evenly spaced by index, the first and
// last included.
func subsample(ps []TracePoint, n int) []TracePoint {
	if len(ps) <= n {
		return ps
	}
	out := make([]TracePoint, 0, n)
	for i := range n {
		out = append(out, ps[int(math.Round(float64(i)*float64(len(ps)-1)/float64(n-1)))])
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// memSampler samples the Go runtime's mapped memory (total minus
// released heap) every 10 ms and keeps the peak.
type memSampler struct {
	quit chan struct{}
	peak chan int64
}

func goMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}

func startMemSampler() *memSampler {
	m := &memSampler{quit: make(chan struct{}), peak: make(chan int64)}
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		peak := goMemory()
		for {
			select {
			case <-t.C:
				peak = max(peak, goMemory())
			case <-m.quit:
				m.peak <- max(peak, goMemory())
				return
			}
		}
	}()
	return m
}

func (m *memSampler) stop() int64 {
	close(m.quit)
	return <-m.peak
}
