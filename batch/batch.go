// Package batch solves many models as `sdrmap solve` does, as an Apache Beam
// pipeline: the inputs are matched on the launching machine, reshuffled so
// that the models spread over the workers, solved by one ParDo and written by
// another. The embedded runner (Prism) runs it in process; --runner and
// Beam's pipeline flags send it to a Flink, Spark or Dataflow job service,
// whose workers must see the inputs and the output folder at the same paths.
//
// Nothing is lost: every model ends with a record (its error when it failed
// to read or solve) written atomically to DIR/.records/REL.json, beside its
// assignment DIR/REL.MPE; a re-run skips the models whose record is of the
// same input (REL, its path under its input folder, and the SHA-256 of the
// model's and the evidence's bytes); DIR/results.jsonl, all records sorted
// by input, is rewritten at the end of every run, interrupted or not.
package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/sdrmap/sdrmap"
)

// Record is one line of results.jsonl: the run's sdrmap.Record (the
// encoding of `sdrmap solve --json`, without the assignment, which is in
// Output) between the model's files and the seed; a model that failed to
// read or solve has Error and no termination or answer.
type Record struct {
	Input    string `json:"input"`
	Evidence string `json:"evidence,omitempty"`
	Output   string `json:"output,omitempty"` // the .MPE file, relative to the output folder
	sdrmap.Record
	Seed  uint64 `json:"seed"`
	Error string `json:"error,omitempty"`
	// Notes: for toulbar2 files, the bound rounded up to the costs'
	// precision, a total cost at the file's bound (solvecmd.Input.Finish).
	Notes []string `json:"notes,omitempty"`
	// The input's identity (with its path under its input folder, the
	// record's own path): a re-run skips the model only when they match.
	InputSHA256    string `json:"input_sha256,omitempty"`
	EvidenceSHA256 string `json:"evidence_sha256,omitempty"`
}

// Outcome is what the solving ParDo passes to the writing one.
type Outcome struct {
	Rel        string
	Record     Record
	Assignment []int
}

// Files and folders of the output folder.
const (
	ResultsFile = "results.jsonl"
	recordsDir  = ".records"
)

// Beam counters, namespace "sdrmap".
var (
	solvedCount      = beam.NewCounter("sdrmap", "solved")
	provenCount      = beam.NewCounter("sdrmap", "proven_optimal")
	failedCount      = beam.NewCounter("sdrmap", "failed")
	interruptedCount = beam.NewCounter("sdrmap", "interrupted")
)

func init() {
	register.DoFn3x0[context.Context, Item, func(Outcome)](&solveFn{})
	register.Emitter1[Outcome]()
	register.DoFn3x1[context.Context, Outcome, func(string), error](&writeFn{})
	register.Emitter1[string]()
	register.Function1x0(discard)
}

// solveFn solves one model; at most Workers at once per worker process.
type solveFn struct {
	Flags   Flags
	Workers int
}

var (
	slotsOnce sync.Once
	slots     chan struct{}
)

func (f *solveFn) Setup() {
	slotsOnce.Do(func() { slots = make(chan struct{}, max(1, f.Workers)) })
}

func (f *solveFn) ProcessElement(ctx context.Context, it Item, emit func(Outcome)) {
	stop := stopContext()
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-stop.Done():
	case <-ctx.Done():
	}
	if stop.Err() != nil || ctx.Err() != nil {
		interruptedCount.Inc(ctx, 1)
		return
	}
	sctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(stop, cancel)()
	defer cancel()
	rec, x, interrupted := solve(sctx, it, f.Flags)
	if interrupted {
		interruptedCount.Inc(ctx, 1)
		return
	}
	emit(Outcome{Rel: it.Rel, Record: rec, Assignment: x})
}

// writeFn writes a model's assignment, then its record, each atomically,
// and emits its output path.
type writeFn struct {
	Out string
}

func (f *writeFn) ProcessElement(ctx context.Context, o Outcome, emit func(string)) error {
	rec := o.Record
	if o.Assignment != nil {
		rec.Output = mpePath(o.Rel)
		p := filepath.Join(f.Out, rec.Output)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := writeMPE(p, o.Assignment); err != nil {
			return err
		}
	}
	if err := writeRecord(f.Out, o.Rel, rec); err != nil {
		return err
	}
	switch {
	case rec.Error != "":
		failedCount.Inc(ctx, 1)
	default:
		solvedCount.Inc(ctx, 1)
		if proven(rec) {
			provenCount.Inc(ctx, 1)
		}
	}
	emit(o.Rel)
	return nil
}

func discard(string) {}

func recordPath(out, rel string) string { return filepath.Join(out, recordsDir, rel+".json") }

// readRecord reads the record of rel; an error wrapping fs.ErrNotExist
// when there is none, another one when it cannot be read.
func readRecord(out, rel string) (Record, error) {
	var r Record
	b, err := os.ReadFile(recordPath(out, rel))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", recordPath(out, rel), err)
	}
	return r, nil
}

// sameInput reports whether rec is the record of it: the same model and
// evidence bytes (its path under its input folder, it.Rel, is where rec
// was found). A record without hashes (an older sdrmap-batch, or a model
// that could not be read) matches by its input path.
func sameInput(rec Record, it Item) bool {
	if rec.InputSHA256 == "" {
		return rec.Input == it.Input
	}
	return rec.InputSHA256 == it.InputSHA256 && rec.EvidenceSHA256 == it.EvidenceSHA256
}

// identify sets it's SHA-256 hashes, of the model file's bytes and of the
// evidence file's; a file that cannot be read is left without one (its
// solve then records the error).
func identify(it *Item) {
	it.InputSHA256, _ = fileSHA256(modelFile(it.Input))
	if it.Evidence != "" {
		it.EvidenceSHA256, _ = fileSHA256(it.Evidence)
	}
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// removeOutputs removes the record and the assignment of rel (of another
// input, which is to be solved again).
func removeOutputs(out, rel string) error {
	for _, p := range []string{recordPath(out, rel), filepath.Join(out, mpePath(rel))} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// writeRecord writes rec to its own file through a temporary file and a
// rename, so that a record is either whole or absent.
func writeRecord(out, rel string, rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return writeAtomic(recordPath(out, rel), append(b, '\n'))
}

func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

var (
	stopOnce sync.Once
	stopped  context.Context
)

// stopContext returns a context that the first SIGINT or SIGTERM of the
// process cancels; later ones have their default effect (a second Ctrl-C
// kills).
func stopContext() context.Context {
	stopOnce.Do(func() {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		stopped = ctx
		go func() {
			<-ctx.Done()
			stop()
		}()
	})
	return stopped
}

// Config is a batch run.
type Config struct {
	Inputs   []string
	Out      string
	Flags    Flags
	Workers  int       // solves at once per worker process
	Progress io.Writer // a progress line goes here when not nil (a terminal)
	Log      io.Writer // the summary goes here
}

// Summary counts the models of a run, from the records written (Beam's
// counters as the runner reports them are in Counters: Prism was seen to
// drop a bundle's increments now and then).
type Summary struct {
	Models, Skipped       int // matched, and skipped for having a record of the same input
	SkippedFailed         int // of the skipped, those whose record is an error
	Replaced              int // records of another input at the same REL, solved again
	Solved, Proven, Error int // records written in this run
	Unfinished            int // models left without a record (interrupted)
	Counters              map[string]int
	Interrupted           bool
}

// Failed returns the number of models whose record is an error: written
// in this run or skipped.
func (s *Summary) Failed() int { return s.Error + s.SkippedFailed }

// Run matches the inputs, skips the models with a record of the same input
// (sameInput; a record of another input at the same path is removed and
// the model solved), solves the rest
// with the runner of Beam's --runner flag (Prism by default) and rewrites
// results.jsonl. After Ctrl-C it stops starting models, drops the running
// ones and still rewrites results.jsonl; so it does when the runner fails
// (a job service it cannot reach), and returns that error, naming the runner.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if err := checkFlags(cfg.Flags); err != nil {
		return nil, err
	}
	items, err := Match(cfg.Inputs)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(cfg.Out, recordsDir), 0o755); err != nil {
		return nil, err
	}
	sum := &Summary{Models: len(items), Counters: map[string]int{}}
	var todo []any
	run := map[string]bool{}
	for i := range items {
		it := &items[i]
		identify(it)
		rec, err := readRecord(cfg.Out, it.Rel)
		switch {
		case err == nil && sameInput(rec, *it):
			sum.Skipped++
			if rec.Error != "" {
				sum.SkippedFailed++
			}
			continue
		case err == nil:
			if cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "sdrmap-batch: %s: the record of %s is of another input (%s, sha256 %.12s); solving it again\n",
					it.Input, it.Rel, rec.Input, rec.InputSHA256)
			}
			if err := removeOutputs(cfg.Out, it.Rel); err != nil {
				return nil, err
			}
			sum.Replaced++
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
		todo, run[it.Input] = append(todo, *it), true
	}
	stop := stopContext()
	if len(todo) > 0 && stop.Err() == nil {
		p, s := beam.NewPipelineWithRoot()
		col := beam.Reshuffle(s, beam.Create(s, todo...))
		outs := beam.ParDo(s, &solveFn{Flags: cfg.Flags, Workers: cfg.Workers}, col)
		written := beam.ParDo(s, &writeFn{Out: cfg.Out}, outs)
		// A stage without outputs makes Prism 2.77 poll in a busy loop for
		// as long as its bundle runs (stage.Execute: DataWait is closed at
		// once), taking a core from the solves; so the solving stage
		// outputs the paths written, through a reshuffle.
		beam.ParDo0(s, discard, beam.Reshuffle(s, written))
		var done func()
		if cfg.Progress != nil {
			done = progress(cfg.Progress, cfg.Out, sum.Skipped, len(items))
		}
		res, rerr := beamx.RunWithMetrics(ctx, p)
		if done != nil {
			done()
		}
		if rerr != nil {
			err = fmt.Errorf("pipeline on %s: %w", runnerName(), rerr)
		} else {
			addCounters(sum.Counters, res)
		}
	}
	sum.Interrupted = stop.Err() != nil
	recs, merr := Merge(cfg.Out)
	if err == nil {
		err = merr
	}
	sum.Unfinished = len(todo)
	for _, r := range recs {
		if !run[r.Input] {
			continue
		}
		sum.Unfinished--
		switch {
		case r.Error != "":
			sum.Error++
		case proven(r):
			sum.Proven++
			fallthrough
		default:
			sum.Solved++
		}
	}
	return sum, err
}

// runnerName names the runner of Beam's flags, and its job service if set.
func runnerName() string {
	r := *runners.Runner
	if r == "" {
		r = "prism"
	}
	r = "runner " + r
	if *jobopts.Endpoint != "" {
		r += " (job service " + *jobopts.Endpoint + ")"
	}
	return r
}

// addCounters adds the "sdrmap" counters of a run to m. A universal
// runner's result without metrics (--async) panics in Metrics: it adds none.
func addCounters(m map[string]int, res beam.PipelineResult) {
	if res == nil {
		return
	}
	defer func() { recover() }()
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == "sdrmap" {
			m[c.Name()] += int(c.Result())
		}
	}
}

// Merge rewrites DIR/results.jsonl (atomically) from the records, sorted by
// input path, and returns them.
func Merge(out string) ([]Record, error) {
	root := filepath.Join(out, recordsDir)
	var lines [][]byte
	var recs []Record
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		lines, recs = append(lines, b), append(recs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return recs[idx[a]].Input < recs[idx[b]].Input })
	var all []byte
	for _, i := range idx {
		all = append(all, lines[i]...)
	}
	return recs, writeAtomic(filepath.Join(out, ResultsFile), all)
}

// progress rewrites a line on w twice a second with the number of records,
// until the returned function is called.
func progress(w io.Writer, out string, skipped, total int) func() {
	start := time.Now()
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				fmt.Fprintf(w, "\r%79s\r", "")
				return
			case <-tick.C:
				n := 0
				filepath.WalkDir(filepath.Join(out, recordsDir), func(_ string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".json") && !strings.HasPrefix(d.Name(), ".") {
						n++
					}
					return nil
				})
				fmt.Fprintf(w, "\r%-79s", fmt.Sprintf("sdrmap-batch: %d of %d models done (%d skipped), %s",
					n, total, skipped, time.Since(start).Round(time.Second)))
			}
		}
	}()
	return func() { close(quit); <-finished }
}
