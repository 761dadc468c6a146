package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/spf13/pflag"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/jsonfloat"
	"github.com/sdrmap/sdrmap/internal/refdata"
)

// mainEnv makes the test binary run Main on its arguments (for the tests
// that kill a batch midway).
const mainEnv = "SDRMAP_BATCH_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	beamlog.LogLevel = "warn"
	beam.Init()
	code := m.Run()
	if sdrmapBin != "" {
		os.RemoveAll(filepath.Dir(sdrmapBin))
	}
	os.Exit(code)
}

// writePotts writes gen.PottsGrid(n, n, 4, 1.5, seed) to path.
func writePotts(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := uai.WriteModel(f, gen.PottsGrid(n, n, 4, 1.5, seed)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, dst); err != nil {
		t.Fatal(err)
	}
}

// readResults reads results.jsonl, keyed by input; a second record of the
// same input fails the test.
func readResults(t *testing.T, out string) map[string]Record {
	t.Helper()
	f, err := os.Open(filepath.Join(out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := map[string]Record{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		if _, dup := recs[r.Input]; dup {
			t.Errorf("two records of %s", r.Input)
		}
		recs[r.Input] = r
	}
	return recs
}

// num reads a JSON energy: a number or "+Inf", "-Inf".
func num(v any) jsonfloat.Float {
	b, _ := json.Marshal(v)
	var f jsonfloat.Float
	if err := json.Unmarshal(b, &f); err != nil {
		return jsonfloat.Float(math.NaN())
	}
	return f
}

var (
	sdrmapOnce sync.Once
	sdrmapBin  string
	sdrmapErr  error
)

// sdrmapCmd runs the sdrmap command (built once in the parent module) and
// decodes its JSON output.
func sdrmapCmd(t *testing.T, args ...string) map[string]any {
	t.Helper()
	sdrmapOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sdrmap-batch-test")
		if err != nil {
			sdrmapErr = err
			return
		}
		sdrmapBin = filepath.Join(dir, "sdrmap")
		build := exec.Command("go", "build", "-o", sdrmapBin, "./cmd/sdrmap")
		build.Dir = ".." // the sdrmap module, as its users build it
		out, err := build.CombinedOutput()
		if err != nil {
			sdrmapErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if sdrmapErr != nil {
		t.Fatal(sdrmapErr)
	}
	out, err := exec.Command(sdrmapBin, args...).Output()
	if err != nil {
		t.Fatalf("sdrmap %s: %v", strings.Join(args, " "), err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("sdrmap %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v
}

// TestBatch solves generated models (one with evidence), shared instances
// and a malformed file on the embedded runner: one record per input, the
// malformed file's is its error, every other record equals what
// `sdrmap solve --json` prints for the same seed, and every .MPE evaluates
// with `sdrmap eval` to its record's energy. A second run skips them all.
func TestBatch(t *testing.T) {
	data := refdata.Require(t)
	in, out := t.TempDir(), t.TempDir()
	writePotts(t, filepath.Join(in, "gen", "potts6.uai"), 6, 1)
	writePotts(t, filepath.Join(in, "gen", "potts12.uai"), 12, 2)
	writePotts(t, filepath.Join(in, "gen", "ev", "potts8.uai"), 8, 3)
	writeFile(t, filepath.Join(in, "gen", "ev", "potts8.uai.evid"), "2 0 1 9 3\n")
	writeFile(t, filepath.Join(in, "bad.uai"), "MARKOV\n3\n2 2\n")
	for _, f := range []string{"segmentation/uai2014_Segmentation_11.uai.xz", "segmentation/uai2014_Segmentation_12.uai.xz", "image_alignment/uai2014_ImageAlignment_12.uai.xz"} {
		link(t, filepath.Join(data, "uai", f), filepath.Join(in, f))
	}
	abs, err := filepath.Abs("../testdata/uai2008_pdb1akg.uai.xz")
	if err != nil {
		t.Fatal(err)
	}
	link(t, abs, filepath.Join(in, "pdb1akg.uai.xz"))
	items, err := Match([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 8 {
		t.Fatalf("matched %d models, want 8: %+v", len(items), items)
	}
	fl := testFlags()
	fl.Seed = 7
	sum, err := Run(context.Background(), Config{Inputs: []string{in}, Out: out, Flags: fl, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Solved != 7 || sum.Error != 1 || sum.Unfinished != 0 {
		t.Errorf("summary %+v, want 7 solved, 1 failed", sum)
	}
	t.Logf("Beam counters: %v", sum.Counters)
	recs := readResults(t, out)
	if len(recs) != len(items) {
		t.Errorf("%d records for %d models", len(recs), len(items))
	}
	for _, it := range items {
		r, ok := recs[it.Input]
		if !ok {
			t.Errorf("no record of %s", it.Input)
			continue
		}
		if filepath.Base(it.Input) == "bad.uai" {
			if r.Error == "" || !strings.Contains(r.Error, "bad.uai") || r.Output != "" || r.Termination != "" {
				t.Errorf("malformed file: record %+v, want an error naming the file", r)
			}
			continue
		}
		if r.Error != "" || r.Evidence != it.Evidence || r.Seed != 7 {
			t.Errorf("%s: record %+v", it.Input, r)
			continue
		}
		args := []string{it.Input, "--json"}
		if it.Evidence != "" {
			args = append(args, "--evid", it.Evidence)
		}
		ev := sdrmapCmd(t, append([]string{"eval"}, append(args, filepath.Join(out, r.Output))...)...)
		if e := num(ev["energy"]); e != r.Energy {
			t.Errorf("%s: sdrmap eval of %s gives %v, the record says %v", it.Input, r.Output, e, r.Energy)
		}
		sv := sdrmapCmd(t, append([]string{"solve", "--seed", "7"}, args...)...)
		if sv["status"] != nil || sv["termination"] != string(r.Termination) || sv["answer"] != string(r.Answer) || num(sv["energy"]) != r.Energy || num(sv["bound"]) != r.Bound ||
			num(sv["gap"]) != r.Gap || sv["solver"] != r.Solver {
			t.Errorf("%s: sdrmap solve gives %v %v %v %v %v %v %v, the record %+v", it.Input,
				sv["status"], sv["termination"], sv["answer"], sv["energy"], sv["bound"], sv["gap"], sv["solver"], r)
		}
	}
	sum, err = Run(context.Background(), Config{Inputs: []string{in}, Out: out, Flags: fl, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != len(items) || len(readResults(t, out)) != len(items) {
		t.Errorf("second run: skipped %d of %d, want all", sum.Skipped, len(items))
	}
}

// testFlags are the defaults of the solve flags.
func testFlags() Flags {
	var fl Flags
	fl.Register(pflag.NewFlagSet("test", pflag.ContinueOnError))
	return fl
}

// TestTimeLimit: per-model time limits hold in a batch: sdpad-lr, which
// runs for minutes on these grids without a limit, stops at --time-limit.
// Its last steps (rounding, the certificate) run past the limit: about
// 0.1 s alone, up to 0.5 s on a machine that others load.
func TestTimeLimit(t *testing.T) {
	const slack = 1.5
	in, out := t.TempDir(), t.TempDir()
	for i := range 3 {
		writePotts(t, filepath.Join(in, fmt.Sprintf("p%d.uai", i)), 12, uint64(i))
	}
	fl := testFlags()
	fl.Solver, fl.TimeLimit = "sdpad-lr", 0.5
	if _, err := Run(context.Background(), Config{Inputs: []string{in}, Out: out, Flags: fl, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	recs := readResults(t, out)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	for _, r := range recs {
		if r.Termination != sdrmap.OutOfTime || r.TimeS < 0.5 || r.TimeS > 0.5+slack {
			t.Errorf("%s: %s after %.3f s, want time-limit within %g s after 0.5 s", r.Input, r.Termination, r.TimeS, slack)
		}
	}
}

// TestIdle: while a model is being read (here: from a FIFO nobody writes
// to yet) the batch uses no CPU. Prism 2.77 spins a core beside every
// bundle of a stage without outputs (see Run), which took that core from
// the solves.
func TestIdle(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	fifo := filepath.Join(in, "slow.uai")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Config{Inputs: []string{in}, Out: out, Flags: testFlags(), Workers: 1})
		done <- err
	}()
	time.Sleep(time.Second) // the pipeline starts and blocks in the read
	c0 := cpuTime(t)
	time.Sleep(time.Second)
	cpu := cpuTime(t) - c0
	var b bytes.Buffer
	if err := uai.WriteModel(&b, gen.PottsGrid(3, 3, 2, 1, 1)); err != nil {
		t.Fatal(err)
	}
	// Serve the model to every reader (solvecmd.Load opens it more than
	// once) until the batch ends; the pause lets each reader see the end.
	stop := make(chan struct{})
	defer func() {
		close(stop)
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close() // wakes a writer waiting in open
		}
	}()
	go func() {
		for {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.Write(b.Bytes())
			f.Close()
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the batch did not end in 60 s")
	}
	if r := readResults(t, out)[fifo]; r.Termination != sdrmap.Converged {
		t.Errorf("record %+v", r)
	}
	t.Logf("CPU while waiting 1 s: %v", cpu)
	if cpu > 100*time.Millisecond {
		t.Errorf("the batch used %v of CPU in 1 s waiting for its input", cpu)
	}
}

// cpuTime is the CPU time of this process so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestMatch: directories, model files and manifests; evidence beside a
// model; two models with the same output path are refused.
func TestMatch(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"a/x.uai", "a/x.uai.evid", "a/sub/y.uai.xz", "a/notes.txt", "b/x.uai", "z.uai.gz"} {
		writeFile(t, filepath.Join(d, f), "")
	}
	writeFile(t, filepath.Join(d, "list"), "# models\nb/x.uai ../e.evid\n\n/abs/w.uai\n")
	items, err := Match([]string{filepath.Join(d, "a"), filepath.Join(d, "z.uai.gz"), filepath.Join(d, "list")})
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{
		{Input: filepath.Join(d, "b/x.uai"), Evidence: filepath.Join(filepath.Dir(d), "e.evid"), Rel: "b/x.uai"},
		{Input: filepath.Join(d, "a/sub/y.uai.xz"), Rel: "sub/y.uai.xz"},
		{Input: "/abs/w.uai", Rel: "w.uai"},
		{Input: filepath.Join(d, "a/x.uai"), Evidence: filepath.Join(d, "a/x.uai.evid"), Rel: "x.uai"},
		{Input: filepath.Join(d, "z.uai.gz"), Rel: "z.uai.gz"},
	}
	if fmt.Sprint(items) != fmt.Sprint(want) {
		t.Errorf("Match:\n got %v\nwant %v", items, want)
	}
	if got := mpePath("sub/y.uai.xz"); got != "sub/y.uai.MPE" {
		t.Errorf("mpePath = %s", got)
	}
	_, err = Match([]string{filepath.Join(d, "a"), filepath.Join(d, "b")})
	if err == nil || !strings.Contains(err.Error(), "both write x.uai") {
		t.Errorf("same output path: err = %v", err)
	}
	writeFile(t, filepath.Join(d, "badlist"), "a b c\n")
	if _, err := Match([]string{filepath.Join(d, "badlist")}); err == nil || !strings.Contains(err.Error(), "badlist:1") {
		t.Errorf("bad manifest: err = %v", err)
	}
}

// TestMatchSameOutput: X.uai and X.uai.xz (or a:b.uai and a.b.uai) would
// write the same .MPE file: Match refuses them, naming both.
func TestMatchSameOutput(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"a/x.uai", "a/x.uai.xz", "b/y.uai.gz", "b/y.uai.zip", "c/p:q.uai", "c/p.q.uai"} {
		writeFile(t, filepath.Join(d, f), "")
	}
	for _, c := range []struct {
		in        []string
		x, y, out string
	}{
		{[]string{"a"}, "a/x.uai", "a/x.uai.xz", "x.uai.MPE"},
		{[]string{"b/y.uai.gz", "b/y.uai.zip"}, "b/y.uai.gz", "b/y.uai.zip", "y.uai.MPE"},
		{[]string{"c"}, "c/p.q.uai", "c/p:q.uai", "p.q.uai.MPE"},
	} {
		var in []string
		for _, f := range c.in {
			in = append(in, filepath.Join(d, f))
		}
		_, err := Match(in)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(d, c.x)+" and "+filepath.Join(d, c.y)) || !strings.Contains(err.Error(), c.out) {
			t.Errorf("Match(%v): err = %v, want one naming %s, %s and %s", c.in, err, c.x, c.y, c.out)
		}
	}
}

// TestKillResume interrupts a batch with SIGINT, kills the re-run with
// SIGKILL, and runs it a third time: every model ends with exactly one
// record, and the interrupted run kept its finished records.
func TestKillResume(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, out := t.TempDir(), t.TempDir()
	const n = 6
	for i := range n {
		writePotts(t, filepath.Join(in, fmt.Sprintf("p%d.uai", i)), 12, uint64(i))
	}
	args := []string{in, "--out", out, "--solver", "sdpad-lr", "--time-limit", "0.5", "--workers", "1", "--progress=false"}
	records := func() int {
		m, _ := filepath.Glob(filepath.Join(out, recordsDir, "*.json"))
		return len(m)
	}
	run := func(sig syscall.Signal, after int) (int, string) {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), mainEnv+"=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if sig != 0 {
			for deadline := time.Now().Add(60 * time.Second); records() < after; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no record %d after 60 s: %s", after, stderr.String())
				}
			}
			cmd.Process.Signal(sig)
		}
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stderr.String()
	}
	code, msg := run(syscall.SIGINT, 1)
	if code != 1 || !strings.Contains(msg, "interrupted") {
		t.Fatalf("SIGINT: exit %d, stderr %s", code, msg)
	}
	first := records()
	if first >= n || len(readResults(t, out)) != first {
		t.Fatalf("after SIGINT: %d records, results.jsonl has %d; want them equal and < %d", first, len(readResults(t, out)), n)
	}
	if code, msg = run(syscall.SIGKILL, first+1); code != -1 {
		t.Fatalf("SIGKILL: exit %d, stderr %s", code, msg)
	}
	second := records()
	if code, msg = run(0, 0); code != 0 || !strings.Contains(msg, fmt.Sprintf("%d skipped", second)) {
		t.Fatalf("re-run: exit %d (want 0, %d skipped), stderr %s", code, second, msg)
	}
	recs := readResults(t, out)
	var got []string
	for k, r := range recs {
		if r.Error != "" {
			t.Errorf("%s: %s", k, r.Error)
		}
		got = append(got, filepath.Base(k))
	}
	sort.Strings(got)
	if len(got) != n || records() != n {
		t.Errorf("after the re-run: records of %v (%d files), want p0..p%d once each", got, records(), n-1)
	}
	t.Logf("records after SIGINT %d, after SIGKILL %d, after the re-run %d", first, second, len(got))
}

// TestRunnerFails: a job service that cannot be reached (--runner flink
// --endpoint localhost:1) makes Run return an error naming the runner and
// the endpoint, not panic; the records kept are in results.jsonl.
func TestRunnerFails(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writePotts(t, filepath.Join(in, "p0.uai"), 4, 1)
	writePotts(t, filepath.Join(in, "p1.uai"), 4, 2)
	done := Record{Input: filepath.Join(in, "p0.uai"), Record: sdrmap.Record{Solver: "done"}}
	if err := writeRecord(out, "p0.uai", done); err != nil {
		t.Fatal(err)
	}
	worker := filepath.Join(t.TempDir(), "worker") // not run: spares a build
	writeFile(t, worker, "")
	for name, v := range map[string]string{"runner": "flink", "endpoint": "localhost:1", "worker_binary": worker} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { flag.Set(name, old) })
	}
	// Beam dials the job service for 2 minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	sum, err := Run(ctx, Config{Inputs: []string{in}, Out: out, Flags: testFlags(), Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "flink") || !strings.Contains(err.Error(), "localhost:1") {
		t.Fatalf("err = %v, want one naming flink and localhost:1", err)
	}
	t.Log(err)
	if sum == nil || sum.Skipped != 1 || sum.Unfinished != 1 {
		t.Errorf("summary %+v, want 1 skipped, 1 without a record", sum)
	}
	if recs := readResults(t, out); len(recs) != 1 || recs[done.Input].Solver != "done" {
		t.Errorf("results.jsonl: %v, want the record of p0.uai", recs)
	}
}
