package main

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

// flat is a model in newModel's layout.
type flat struct {
	card, arity, scope []int64
	tables             []float64
}

// randomFlat returns a random model of n variables with tables of energies.
func randomFlat(rng *rand.Rand, n, nf int) flat {
	var f flat
	for range n {
		f.card = append(f.card, int64(1+rng.IntN(3)))
	}
	for range nf {
		k := rng.IntN(4)
		size := 1
		for _, v := range rng.Perm(n)[:k] {
			f.scope = append(f.scope, int64(v))
			size *= int(f.card[v])
		}
		f.arity = append(f.arity, int64(k))
		for range size {
			f.tables = append(f.tables, rng.NormFloat64())
		}
	}
	return f
}

// energyOf sums the tables at x by walking the flat arrays (the oracle).
func (f flat) energyOf(x []int) float64 {
	e, so, to := 0.0, 0, 0
	for _, k := range f.arity {
		idx, size := 0, 1
		for _, v := range f.scope[so : so+int(k)] {
			idx = idx*int(f.card[v]) + x[v]
			size *= int(f.card[v])
		}
		e += f.tables[to+idx]
		so, to = so+int(k), to+size
	}
	return e
}

func TestNewModelEnergies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		f := randomFlat(rng, 6, 9)
		in, err := newModel(f.card, f.arity, f.scope, f.tables, formEnergy)
		if err != nil {
			t.Fatal(err)
		}
		// Export and rebuild: the same energies again.
		s := sizes(in.Model)
		g := flat{make([]int64, s[0]), make([]int64, s[1]), make([]int64, s[2]), make([]float64, s[3])}
		exportModel(in.Model, g.card, g.arity, g.scope, g.tables)
		back, err := newModel(g.card, g.arity, g.scope, g.tables, formEnergy)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			x := make([]int, len(f.card))
			x64 := make([]int64, len(f.card))
			for i, c := range f.card {
				x[i] = rng.IntN(int(c))
				x64[i] = int64(x[i])
			}
			want := f.energyOf(x)
			for _, m := range []*solvecmd.Input{in, back} {
				got, err := energy(m.Model, x64)
				if err != nil || math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
					t.Fatalf("energy %v (%v), want %v", got, err, want)
				}
			}
		}
	}
}

func TestProbabilityForm(t *testing.T) {
	in, err := newModel([]int64{2}, []int64{1}, []int64{0}, []float64{0, 0.25}, formProbability)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := energy(in.Model, []int64{1}); math.Abs(e-math.Log(4)) > 1e-15 {
		t.Errorf("energy of phi 0.25: %v, want ln 4", e)
	}
	if e, _ := energy(in.Model, []int64{0}); !math.IsInf(e, 1) {
		t.Errorf("energy of phi 0: %v, want +Inf", e)
	}
	if in.Convention != solvecmd.UAIConvention {
		t.Errorf("convention %q", in.Convention)
	}
}

func TestNewModelErrors(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		f    flat
		form int
		want string
	}{
		{flat{[]int64{2, 0}, nil, nil, nil}, formEnergy, "variable 1 has cardinality 0"},
		{flat{[]int64{2, 2}, []int64{1, 2}, []int64{0, 1, 1}, make([]float64, 6)}, formEnergy, "factor 1: variable 1 appears twice"},
		{flat{[]int64{2, 2}, []int64{1, 2}, []int64{0, 1}, make([]float64, 6)}, formEnergy, "factor 1: arity 2, but 1 scope entries are left"},
		{flat{[]int64{2, 2}, []int64{2}, []int64{0, 2}, make([]float64, 4)}, formEnergy, "factor 0: variable 2 out of range 0..1"},
		{flat{[]int64{2, 2}, []int64{2}, []int64{0, 1}, make([]float64, 3)}, formEnergy, "factor 0: its table needs 4 entries, 3 are left"},
		{flat{[]int64{2}, []int64{1}, []int64{0}, []float64{0, math.NaN()}}, formEnergy, "factor 0: entry 1: NaN"},
		{flat{[]int64{2}, []int64{1}, []int64{0}, []float64{math.Inf(-1), 0}}, formEnergy, "factor 0: entry 0: energy -Inf"},
		{flat{[]int64{2}, []int64{1}, []int64{0}, []float64{inf, inf}}, formEnergy, "factor 0: all 2 entries are forbidden"},
		{flat{[]int64{2}, []int64{1}, []int64{0}, []float64{1, -1}}, formProbability, "factor 0: entry 1: probability -1"},
		{flat{[]int64{2}, []int64{1}, []int64{0}, []float64{0, 0}}, formProbability, "factor 0: all 2 entries are forbidden"},
		{flat{[]int64{2}, []int64{1}, []int64{0}, []float64{1, 2, 3}}, formEnergy, "1 scope entries and 3 table entries given, the factors use 1 and 2"},
		{flat{[]int64{2}, nil, nil, nil}, 7, "form 7"},
	} {
		_, err := newModel(c.f.card, c.f.arity, c.f.scope, c.f.tables, c.form)
		if err == nil || !strings.Contains(err.Error(), c.want) || classify(err, kindRuntime) != kindValue {
			t.Errorf("%+v: error %v, want %q of kind value", c.f, err, c.want)
		}
	}
}

func TestParseOptions(t *testing.T) {
	in, err := newModel([]int64{2, 2}, nil, nil, nil, formEnergy)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseOptions("{}", in)
	if err != nil {
		t.Fatal(err)
	}
	// The defaults are the command's.
	var fl solvecmd.Flags
	fl.Register(pflag.NewFlagSet("solve", pflag.ContinueOnError))
	want, err := fl.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("defaults %+v, the command's %+v", s, want)
	}
	s, err = parseOptions(`{"solver": "trws", "time_limit": 2.5, "evidence": [[1, 1]], "seed": 3, "no_polish": true}`, in)
	if err != nil || s.Solver != "trws" || s.TimeLimit != 2500*time.Millisecond || len(s.Evidence) != 1 || s.Seed != 3 || !s.NoPolish {
		t.Errorf("%+v, %v", s, err)
	}
	for text, kind := range map[string]errKind{
		`{"bogus": 1}`:              kindType,
		`{"tol": -1}`:               kindValue,
		`{"seed": "x"}`:             kindValue,
		`{"evidence": [[0, 5]]}`:    kindValue,
		`{"solver": "nope"}`:        kindValue,
		`{"rounding": "coin flip"}`: kindValue,
	} {
		if _, err := parseOptions(text, in); err == nil || classify(err, kindRuntime) != kind {
			t.Errorf("%s: error %v, want kind %d", text, err, kind)
		}
	}
}

// grid returns an h x w grid with l labels, random unary energies and Potts
// edges, in newModel's layout.
func grid(rng *rand.Rand, h, w, l int) flat {
	var f flat
	for i := range h * w {
		f.card = append(f.card, int64(l))
		f.arity = append(f.arity, 1)
		f.scope = append(f.scope, int64(i))
		for range l {
			f.tables = append(f.tables, rng.Float64())
		}
	}
	edge := func(a, b int) {
		f.arity = append(f.arity, 2)
		f.scope = append(f.scope, int64(a), int64(b))
		for i := range l * l {
			f.tables = append(f.tables, 0.8*float64(min(1, i%(l+1))))
		}
	}
	for r := range h {
		for c := range w {
			if c+1 < w {
				edge(r*w+c, r*w+c+1)
			}
			if r+1 < h {
				edge(r*w+c, (r+1)*w+c)
			}
		}
	}
	return f
}

func TestJobCancelReturnsTheBestSoFar(t *testing.T) {
	f := grid(rand.New(rand.NewPCG(3, 4)), 60, 60, 4)
	in, err := newModel(f.card, f.arity, f.scope, f.tables, formEnergy)
	if err != nil {
		t.Fatal(err)
	}
	j, err := startSolve(in, `{"solver": "factor", "no_probe": true, "tol": 1e-12}`)
	if err != nil {
		t.Fatal(err)
	}
	if j.wait(time.Second) {
		t.Fatal("the solve ended within a second; the test needs a longer one")
	}
	j.cancel()
	if !j.wait(time.Minute) {
		t.Fatal("the solve did not end within a minute of its cancellation")
	}
	if j.err != nil || j.res.Termination != sdrmap.Interrupted || len(j.res.Assignment) != len(f.card) {
		t.Fatalf("%+v, %v", j.res, j.err)
	}
	x := make([]int, len(f.card))
	for i, v := range j.res.Assignment {
		x[i] = v
	}
	if want := f.energyOf(x); math.Abs(j.res.Energy-want) > 1e-9*want {
		t.Errorf("energy %v, the tables give %v", j.res.Energy, want)
	}
	if _, err := j.summary(); err != nil {
		t.Error(err)
	}
}

func TestGuardAndClassify(t *testing.T) {
	err := guard(func() error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "panic: boom") || classify(err, kindValue) != kindRuntime {
		t.Errorf("recovered panic: %v", err)
	}
	_, err = solvecmd.Load(filepath.Join(t.TempDir(), "missing.uai"), "")
	if classify(err, kindValue) != kindNotFound {
		t.Errorf("missing file: %v, kind %d", err, classify(err, kindValue))
	}
	if classify(errors.New("x"), kindValue) != kindValue {
		t.Error("an error without a kind has the default kind")
	}
}

func TestHandles(t *testing.T) {
	in, _ := newModel([]int64{2}, nil, nil, nil, formEnergy)
	h := register(in)
	if got, err := lookup[*solvecmd.Input](h, "model"); err != nil || got != in {
		t.Fatal(got, err)
	}
	if _, err := lookup[*job](h, "solve"); err == nil {
		t.Error("a model handle looked up as a solve")
	}
	release(h)
	if _, err := lookup[*solvecmd.Input](h, "model"); err == nil || classify(err, kindValue) != kindRuntime {
		t.Errorf("released handle: %v", err)
	}
}

func TestWriteModel(t *testing.T) {
	f := grid(rand.New(rand.NewPCG(5, 6)), 3, 4, 3)
	in, err := newModel(f.card, f.arity, f.scope, f.tables, formEnergy)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeModel(in.Model, filepath.Join(dir, "m.uai")); err != nil {
		t.Fatal(err)
	}
	back, err := solvecmd.Load(filepath.Join(dir, "m.uai"), "")
	if err != nil {
		t.Fatal(err)
	}
	x := make([]int64, len(f.card))
	for i := range x {
		x[i] = int64(i % 3)
	}
	a, _ := energy(in.Model, x)
	b, _ := energy(back.Model, x)
	if math.Abs(a-b) > 1e-13*math.Abs(a) {
		t.Errorf("energy %v after writing and reading, %v before", b, a)
	}
	if err := writeModel(in.Model, filepath.Join(dir, "m.wcsp")); err == nil || classify(err, kindRuntime) != kindValue {
		t.Errorf("m.wcsp: %v", err)
	}
}

// TestConcurrentSolves: solves of one model at once (as Python threads run
// them) give the results of one at a time; run with -race.
func TestConcurrentSolves(t *testing.T) {
	f := grid(rand.New(rand.NewPCG(7, 8)), 8, 8, 3)
	in, err := newModel(f.card, f.arity, f.scope, f.tables, formEnergy)
	if err != nil {
		t.Fatal(err)
	}
	opts := []string{`{"solver": "sdpad-lr"}`, `{"solver": "trws"}`, `{"solver": "auto", "seed": 2}`}
	var alone, together []*job
	for _, o := range opts {
		j, err := startSolve(in, o)
		if err != nil {
			t.Fatal(err)
		}
		<-j.done
		alone = append(alone, j)
	}
	for _, o := range opts {
		j, _ := startSolve(in, o)
		together = append(together, j)
	}
	for i, j := range together {
		<-j.done
		if j.err != nil || alone[i].err != nil || j.res.Energy != alone[i].res.Energy || j.res.Bound != alone[i].res.Bound {
			t.Errorf("%s: energy %v, bound %v (%v) at once; %v, %v (%v) alone", opts[i],
				j.res.Energy, j.res.Bound, j.err, alone[i].res.Energy, alone[i].res.Bound, alone[i].err)
		}
	}
}
