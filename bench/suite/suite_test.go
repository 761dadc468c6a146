package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/bench/peers"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/gen"
)

// writeModels writes small UAI files under dir/a and dir/b, and an
// evidence file.
func writeModels(t *testing.T, dir string) {
	t.Helper()
	for _, sub := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range []string{"a/one.uai", "a/two.uai", "b/three.uai"} {
		var buf bytes.Buffer
		if err := uai.WriteModel(&buf, gen.Binary(5, 2, uint64(i+1))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "b", "three.uai.evid"), []byte("1 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParse(t *testing.T) {
	dir := t.TempDir()
	writeModels(t, dir)
	text := `# a suite
file a/one.uai   # category from the folder
file b/three.uai --evid b/three.uai.evid category mine name third

file a/*.uai category globbed   # one.uai and two.uai... but one is taken: renamed below
gen potts --rows 3 --cols 4 --labels 2 --seed 5
gen orient --vars 30 --labels 4 --degree 3 --noise 0.2 category orient-small name o30
gen binary
gen matching --vars=5 --labels=6
`
	// The glob would repeat one.uai's name: rename the first line.
	text = strings.Replace(text, "file a/one.uai ", "file a/one.uai name first ", 1)
	es, err := Parse(strings.NewReader(text), "x.suite", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, category, path, evid, gen string }{
		{"first", "a", "a/one.uai", "", ""},
		{"third", "mine", "b/three.uai", "b/three.uai.evid", ""},
		{"one", "globbed", "a/one.uai", "", ""},
		{"two", "globbed", "a/two.uai", "", ""},
		{"potts-rows3-cols4-labels2-seed5", "potts", "", "", "gen potts --rows 3 --cols 4 --labels 2 --seed 5"},
		{"o30", "orient-small", "", "", "gen orient --vars 30 --labels 4 --degree 3 --noise 0.2"},
		{"binary", "binary", "", "", "gen binary"},
		{"matching-vars5-labels6", "matching", "", "", "gen matching --vars=5 --labels=6"},
	}
	if len(es) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(es), len(want), es)
	}
	for i, w := range want {
		e := es[i]
		rel := func(p string) string {
			if p == "" {
				return ""
			}
			r, _ := filepath.Rel(dir, p)
			return filepath.ToSlash(r)
		}
		g := ""
		if e.Gen != nil {
			g = e.Gen.String()
		}
		if e.Name != w.name || e.Category != w.category || rel(e.Path) != w.path || rel(e.Evid) != w.evid || g != w.gen {
			t.Errorf("entry %d: %q %q %q %q %q, want %+v", i, e.Name, e.Category, rel(e.Path), rel(e.Evid), g, w)
		}
	}
	if es[4].Gen.Rows != 3 || es[4].Gen.Cols != 4 || es[4].Gen.Labels != 2 || es[4].Gen.Seed != 5 || es[4].Gen.Coupling != 1 {
		t.Errorf("potts spec %+v", es[4].Gen)
	}
	if g := es[6].Gen; g.Vars != 100 || g.Degree != 4 || g.Seed != 1 {
		t.Errorf("binary defaults %+v", g)
	}
	if es[1].Pos != "x.suite:3" {
		t.Errorf("position %q", es[1].Pos)
	}
	// The entries load: the evidence is read and checked.
	m, ev, err := es[1].Load()
	if err != nil || m.NumVars() != 5 || len(ev) != 1 {
		t.Fatalf("load: %v, %v, %v", m, ev, err)
	}
	m, _, err = es[4].Load()
	if err != nil || m.NumVars() != 12 {
		t.Fatalf("load gen: %v, %v", m, err)
	}
}

func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	writeModels(t, dir)
	for _, c := range []struct{ line, want string }{
		{"solve a/one.uai", `x.suite:2: unknown entry "solve"`},
		{"file", "x.suite:2: file needs a PATH"},
		{"file a/missing.uai", "x.suite:2: stat " + filepath.Join(dir, "a/missing.uai") + ": no such file"},
		{"file a/one.uai --evid", "x.suite:2: --evid needs a file"},
		{"file a/one.uai --evid b/none.evid", "no such file"},
		{"file a/one.uai --tol 3", `x.suite:2: unknown option "--tol"`},
		{"file a/one.uai a/two.uai", `x.suite:2: unexpected "a/two.uai"`},
		{"file c/*.uai", "x.suite:2: glob " + filepath.Join(dir, "c/*.uai") + " matches no file"},
		{"file a/*.uai name x", "x.suite:2: a glob cannot take --evid or name"},
		{"file a/one.uai category", `x.suite:2: "category" needs a value`},
		{"gen", "x.suite:2: gen needs a kind"},
		{"gen spinglass", `x.suite:2: unknown gen kind "spinglass"`},
		{"gen potts --rows 0", "x.suite:2: gen potts: --rows must be >= 1"},
		{"gen orient --noise 2", "x.suite:2: gen orient: --noise must be a probability"},
		{"gen potts --noise 0.1", "x.suite:2: gen potts: unknown flag: --noise"},
		{"gen potts --rows x", "x.suite:2: gen potts: invalid argument"},
		{"gen potts extra", `x.suite:2: gen potts: unexpected argument "extra"`},
		{"gen potts -o out.uai", "x.suite:2: gen potts: unknown shorthand flag: 'o'"},
		{"gen matching --vars 100000", "table entries"},
		{"gen binary --vars 5 name one", `x.suite:2: instance name "one" already used at x.suite:1`},
	} {
		_, err := Parse(strings.NewReader("file a/one.uai\n"+c.line+"\n"), "x.suite", dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.line, err, c.want)
		}
	}
	if _, err := Parse(strings.NewReader("# nothing\n\n"), "e.suite", dir); err == nil || !strings.Contains(err.Error(), "e.suite: no instances") {
		t.Errorf("empty suite: %v", err)
	}
}

// TestShippedSuites parses the suites of bench/suites: generated.suite
// always, the others when the shared data sits beside the repository.
func TestShippedSuites(t *testing.T) {
	es, err := ParseFile("../suites/generated.suite")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 6 || es[0].Gen.Vars != 1000 || es[2].Gen.Noise != 0.5 || es[3].Gen.Rows != 32 || es[5].Gen.Labels != 20 {
		t.Errorf("generated.suite: %d entries: %+v", len(es), es)
	}
	if _, err := os.Stat("../../../shared/data/uai"); err != nil {
		t.Skip("no ../shared/data beside the repository")
	}
	es, err = ParseFile("../suites/uai.suite")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../../shared/data/uai/*/*.uai.xz")
	if len(es) != len(files) {
		t.Errorf("uai.suite has %d instances, the data %d", len(es), len(files))
	}
	for _, e := range es {
		if e.Category != filepath.Base(filepath.Dir(e.Path)) {
			t.Errorf("%s: category %q", e.Path, e.Category)
		}
		if e.Category == "dbn" && e.Evid == "" {
			t.Errorf("%s: no evidence", e.Name)
		}
	}
	es, err = ParseFile("../suites/sdp.suite")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 5 || es[0].Name != "grid10" || es[0].Gen.Labels != 4 {
		t.Errorf("sdp.suite: %+v", es)
	}
	es, err = ParseFile("../suites/dense.suite")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 5 || es[0].Evid == "" || es[4].Category != "object_detection" {
		t.Errorf("dense.suite: %+v", es)
	}
}

func TestFloatJSON(t *testing.T) {
	for _, v := range []float64{0, -1.5, 1e-300, math.Inf(1), math.Inf(-1), -12966.651449123456} {
		b, err := json.Marshal(Float(v))
		if err != nil {
			t.Fatal(err)
		}
		var f Float
		if err := json.Unmarshal(b, &f); err != nil || float64(f) != v {
			t.Errorf("%v -> %s -> %v, %v", v, b, f, err)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte(`"NaN"`), &f); err != nil || !math.IsNaN(float64(f)) {
		t.Errorf("NaN: %v %v", f, err)
	}
}

func TestCheckSolvers(t *testing.T) {
	if err := CheckSolvers([]string{"icm", "toulbar2", "csdp"}); err != nil {
		t.Error(err)
	}
	err := CheckSolvers([]string{"icm", "gurobi"})
	if err == nil || !strings.Contains(err.Error(), `unknown solver "gurobi"`) || !strings.Contains(err.Error(), "sdpad-lr") || !strings.Contains(err.Error(), "dsdp") {
		t.Errorf("unknown solver: %v", err)
	}
	if err := CheckSolvers([]string{"icm", "icm"}); err == nil {
		t.Error("repeated solver accepted")
	}
}

func TestSubsampleMedian(t *testing.T) {
	ps := make([]TracePoint, 1000)
	for i := range ps {
		ps[i].Iteration = i
	}
	s := subsample(ps, MaxTrace)
	if len(s) != MaxTrace || s[0].Iteration != 0 || s[len(s)-1].Iteration != 999 {
		t.Errorf("subsample: %d points, %d..%d", len(s), s[0].Iteration, s[len(s)-1].Iteration)
	}
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median %v", m)
	}
}

// TestRunRender runs icm, trws and sdpad-lr twice on two tiny generated
// instances and checks the records, the tables and the plots, and that
// rendering the records read back from JSONL gives the same files.
func TestRunRender(t *testing.T) {
	es, err := Parse(strings.NewReader("gen potts --rows 3 --cols 3 --labels 3\ngen binary --vars 8 --degree 3 category char\n"), "t.suite", ".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var jsonl bytes.Buffer
	var log bytes.Buffer
	recs, err := Run(context.Background(), es, Options{
		Solvers: []string{"icm", "trws", "sdpad-lr"}, TimeLimit: 2 * time.Second, Repeat: 2, Seed: 1, Log: &log,
		Record: func(r *Record) error { return WriteRecord(&jsonl, r) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if r.Status == StatusError || r.Status == StatusSkipped {
			t.Errorf("%s %s: %s %s", r.Instance, r.Solver, r.Status, r.Error)
		}
		if len(r.Times) != 2 || r.TimeS != median(r.Times) || math.IsInf(float64(r.Energy), 0) {
			t.Errorf("%s %s: times %v median %v energy %v", r.Instance, r.Solver, r.Times, r.TimeS, r.Energy)
		}
		if r.Machine.NumCPU < 1 || r.Machine.GOOS == "" || r.Date == "" || r.MemSource != "go-runtime-sampled" || r.MemPeakBytes <= 0 {
			t.Errorf("%s %s: machine %+v date %q mem %d %q", r.Instance, r.Solver, r.Machine, r.Date, r.MemPeakBytes, r.MemSource)
		}
		if len(r.Trace) == 0 || len(r.Trace) > MaxTrace {
			t.Errorf("%s %s: %d trace points", r.Instance, r.Solver, len(r.Trace))
		}
		if (r.sdp() != nil) != (r.Solver == "sdpad-lr") || r.SDP != nil || r.Status != "" {
			t.Errorf("%s %s: sdr %+v, sdp %+v, status %q", r.Instance, r.Solver, r.SDR, r.SDP, r.Status)
		}
	}
	if recs[0].Stats.Variables != 9 || recs[0].Stats.SDRDimension != 28 || recs[3].Category != "char" {
		t.Errorf("stats %+v, category %q", recs[0].Stats, recs[3].Category)
	}
	if !strings.Contains(log.String(), "[6/6] binary-vars8-degree3 sdpad-lr: ") {
		t.Errorf("log:\n%s", log.String())
	}
	files, err := Render(recs, dir)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "tables.md"))
	for _, w := range []string{"## Table 1", "| potts | 1 |", "| char | 1 |", "| all | 2 |", "## Table 2", "| potts | 1 | 9 | 3 | 12 | 21 | 2 | 28 | 28 |",
		"## Table 3", "| potts-rows3-cols3-labels3 | 28 | sdpad-lr |", "sdp_gap_potts-rows3-cols3-labels3.png"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("tables.md lacks %q:\n%s", w, md)
		}
	}
	if len(files) != 5 { // tables.md and two plots per instance
		t.Errorf("files %v", files)
	}
	first := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		first[f] = b
		if strings.HasSuffix(f, ".png") {
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
	path := filepath.Join(dir, "results.jsonl")
	if err := os.WriteFile(path, jsonl.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := t.TempDir()
	files2, err := Render(back, dir2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files, ",") != strings.Join(files2, ",") {
		t.Fatalf("files %v, then %v", files, files2)
	}
	for _, f := range files2 {
		b, _ := os.ReadFile(filepath.Join(dir2, f))
		if !bytes.Equal(b, first[f]) {
			t.Errorf("%s differs when rendered from the JSONL", f)
		}
	}
}

// TestRunPeers runs toulbar2 and CSDP (when installed) on a tiny generated
// instance: toulbar2 finds the optimum of the exact solver, CSDP reports
// the SDP figures, and both report the peak memory of their process.
func TestRunPeers(t *testing.T) {
	var solvers []string
	for _, s := range []string{"toulbar2", "csdp"} {
		if peers.Available(s) {
			solvers = append(solvers, s)
		}
	}
	if len(solvers) == 0 {
		t.Skip("neither toulbar2 nor csdp installed")
	}
	es, err := Parse(strings.NewReader("gen binary --vars 8 --degree 3\n"), "t.suite", ".")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := Run(context.Background(), es, Options{Solvers: append([]string{"exact"}, solvers...), TimeLimit: 5 * time.Second, Repeat: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		if r.MemSource != "rusage-maxrss-child" || r.MemPeakBytes <= 0 || len(r.Trace) != 1 {
			t.Errorf("%s: memory %d %q, trace %v", r.Solver, r.MemPeakBytes, r.MemSource, r.Trace)
		}
		switch r.Solver {
		case "toulbar2":
			if r.Status != peers.StatusOptimal || math.Abs(float64(r.Energy-recs[0].Energy)) > 1e-6 {
				t.Errorf("toulbar2: %s energy %v, exact %v (%s)", r.Status, r.Energy, recs[0].Energy, r.Error)
			}
		case "csdp":
			if r.Status != peers.StatusOptimal || r.SDP == nil || r.SDP.Dimension != 17 || !(float64(r.SDP.Gap) < 1e-6) {
				t.Errorf("csdp: %s %+v (%s)", r.Status, r.SDP, r.Error)
			}
		}
	}
}
