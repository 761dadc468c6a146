//go:build hdf5

package opengm

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/refdata"
)

// writeRaw writes r under group with the HDF5 library; opt, if not nil,
// adjusts each dataset (chunking, compression, rank).
func writeRaw(t *testing.T, file, group string, r rawFile, opt func(d *namedData)) {
	t.Helper()
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	slices.Sort(names)
	var ds []namedData
	for _, name := range names {
		d := namedData{name: path.Join("/", group, name), data: r[name]}
		if opt != nil {
			opt(&d)
		}
		ds = append(ds, d)
	}
	if err := writeData(file, ds); err != nil {
		t.Fatal(err)
	}
}

func gzipChunked(d *namedData) { d.chunk, d.gzip = 3, 6 }

func TestReadFunctionTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	dir := t.TempDir()
	type variant struct {
		name string
		opt  func(*namedData)
	}
	variants := []variant{{"contiguous", nil}, {"gzip-chunked", gzipChunked}}
	for _, id := range allTypes {
		for _, v := range variants {
			t.Run(typeName(id)+"/"+v.name, func(t *testing.T) {
				b := typeCase(rng, id)
				file := filepath.Join(dir, fmt.Sprintf("%d-%s.h5", id, v.name))
				writeRaw(t, file, "gm", b.file(), v.opt)
				m, err := ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				checkModel(t, rng, m, b)
			})
		}
	}
	for i := range 10 {
		v := variants[i%2]
		t.Run(fmt.Sprintf("mixed%d/%s", i, v.name), func(t *testing.T) {
			b := mixedCase(rng)
			file := filepath.Join(dir, fmt.Sprintf("mixed%d.h5", i))
			writeRaw(t, file, "gm", b.file(), v.opt)
			m, err := ReadFile(file + ":gm")
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, rng, m, b)
		})
	}
}

// TestStoredValueTypes stores the values as float32, uint64 and int64, as
// OpenGM does for models of those value types (header value type 0, 2, 3).
func TestStoredValueTypes(t *testing.T) {
	b := &builder{card: []int{2, 3}}
	vals := []float64{1, 2, 3, 4, 5, 6}
	ti, fi := b.fn(idExplicit, []uint64{2, 2, 3}, vals, func(x []int) float64 { return vals[firstFastest(x, []uint64{2, 3})] })
	b.factor(ti, fi, 0, 1)
	ti, fi = b.fn(idPotts, []uint64{2, 3}, []float64{0, 2}, func(x []int) float64 {
		if x[0] == x[1] {
			return 0
		}
		return 2
	})
	b.factor(ti, fi, 0, 1)
	rng := rand.New(rand.NewPCG(9, 10))
	for code, conv := range map[uint64]func([]float64) any{
		0: func(v []float64) any {
			out := make([]float32, len(v))
			for i, x := range v {
				out[i] = float32(x)
			}
			return out
		},
		2: func(v []float64) any {
			out := make([]uint64, len(v))
			for i, x := range v {
				out[i] = uint64(x)
			}
			return out
		},
		3: func(v []float64) any {
			out := make([]int64, len(v))
			for i, x := range v {
				out[i] = int64(x)
			}
			return out
		},
	} {
		r := b.file()
		h := u64(r, "header")
		h[len(h)-1] = code
		for name, v := range r {
			if strings.HasSuffix(name, "/values") {
				r[name] = conv(v.([]float64))
			}
		}
		file := filepath.Join(t.TempDir(), "m.h5")
		writeRaw(t, file, "gm", r, nil)
		m, err := ReadFile(file)
		if err != nil {
			t.Fatalf("value type %d: %v", code, err)
		}
		checkModel(t, rng, m, b)
	}
}

func TestReadMalformed(t *testing.T) {
	dir := t.TempDir()
	n := 0
	run := func(base rawFile, cases []malformed) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := base.clone()
				c.mutate(r)
				n++
				file := filepath.Join(dir, fmt.Sprintf("bad%d.h5", n))
				writeRaw(t, file, "gm", r, nil)
				_, err := ReadFile(file)
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %v (%T), want a *ParseError", err, err)
				}
				if msg := err.Error(); !strings.HasPrefix(msg, file+": ") || !strings.Contains(msg, c.want) {
					t.Fatalf("error %q, want it to start with the file and contain %q", msg, c.want)
				}
			})
		}
	}
	run(baseCase().file(), malformedCases)
	run(sparseCase().file(), sparseMalformed)
}

// TestReadHDF5Problems covers what only an HDF5 file can get wrong: the
// file itself, the group, the shape and type of datasets.
func TestReadHDF5Problems(t *testing.T) {
	dir := t.TempDir()
	good := baseCase().file()
	file := func(name string) string { return filepath.Join(dir, name) }

	text := file("text.h5")
	if err := os.WriteFile(text, []byte("MARKOV\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := file("full.h5")
	writeRaw(t, full, "gm", good, nil)
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	cut := file("cut.h5")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	headerGroup := good.clone()
	headerGroup["header/x"] = headerGroup["header"]
	delete(headerGroup, "header")
	writeRaw(t, file("headergroup.h5"), "gm", headerGroup, nil)
	writeRaw(t, file("twod.h5"), "gm", good, func(d *namedData) {
		if strings.HasSuffix(d.name, "/factors") {
			d.rows = 2
		}
	})
	two := file("two.h5")
	writeTwoGroups(t, two, good)

	for _, c := range []struct{ arg, want string }{
		{text, text + ": not an HDF5 file"},
		{cut, cut + ": cannot open HDF5 file"},
		{full + ":nope", full + `: no group "nope"; top-level groups: gm`},
		{full + ":gm/factors", full + ": /gm/factors: not a group"},
		{file("headergroup.h5"), "/gm/header: is a group, expected a dataset"},
		{file("twod.h5"), "/gm/factors: has 2 dimensions, expected a one-dimensional dataset"},
		{two, two + `: no group "gm" holding a model; top-level groups: a, b; select one as ` + two + ":GROUP"},
	} {
		_, err := ReadFile(c.arg)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadFile(%q): error %v, want a *ParseError containing %q", c.arg, err, c.want)
		}
	}
	if _, err := ReadFile(file("missing.h5")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error %v, want fs.ErrNotExist", err)
	}
}

// writeTwoGroups writes r under the groups a and b.
func writeTwoGroups(t *testing.T, file string, r rawFile) {
	t.Helper()
	var ds []namedData
	for _, g := range []string{"a", "b"} {
		for name, v := range r {
			ds = append(ds, namedData{name: path.Join("/", g, name), data: v})
		}
	}
	if err := writeData(file, ds); err != nil {
		t.Fatal(err)
	}
}

func TestGroupSelection(t *testing.T) {
	dir := t.TempDir()
	b := baseCase()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ group, arg string }{
		{"model", ""},          // the only top-level group
		{"a/b/c", ":a/b/c"},    // nested, selected
		{"/", ":/"},            // at the root
		{"gm", ":/gm"},         // absolute
		{"other", ":other"},    // selected by name
		{"/other/", ":other/"}, // trailing slash
		{"gm", ""},             // the default
	} {
		file := filepath.Join(dir, strings.ReplaceAll(c.group, "/", "_")+".h5")
		writeRaw(t, file, c.group, b.file(), nil)
		m, err := ReadFile(file + c.arg)
		if err != nil {
			t.Errorf("group %q, argument %q: %v", c.group, c.arg, err)
			continue
		}
		checkModel(t, rng, m, b)
	}
}

func TestWriteRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	dir := t.TempDir()
	for i := range 30 {
		m := randomModel(rng)
		group := []string{"", "gm", "nested/model"}[i%3]
		file := filepath.Join(dir, fmt.Sprintf("w%d.h5", i))
		if err := WriteFile(file, group, m); err != nil {
			t.Fatal(err)
		}
		arg := file
		if group != "" {
			arg += ":" + group
		}
		got, err := ReadFile(arg)
		if err != nil {
			t.Fatal(err)
		}
		sameEnergies(t, rng, m, got)
	}
	bad := filepath.Join(dir, "no-such-dir", "m.h5")
	if err := WriteFile(bad, "gm", randomModel(rng)); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("WriteFile into a missing directory: error %v", err)
	}
}

// TestConcurrentReads reads from several goroutines: the library calls
// are serialized.
func TestConcurrentReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	b := mixedCase(rng)
	file := filepath.Join(t.TempDir(), "m.h5")
	writeRaw(t, file, "gm", b.file(), gzipChunked)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = ReadFile(file)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestSharedInstancesRoundTrip converts every shared UAI instance to HDF5
// and back: energies of random assignments agree to 1e-12 relative, and
// every factor entry exactly.
func TestSharedInstancesRoundTrip(t *testing.T) {
	dir := refdata.Require(t)
	ins, err := refdata.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	rng := rand.New(rand.NewPCG(17, 18))
	for i, in := range ins {
		t.Run(in.File, func(t *testing.T) {
			m, err := uai.ReadModelFile(refdata.Path(dir, in))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(tmp, fmt.Sprintf("%d.h5", i))
			if err := WriteFile(file, "gm", m); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sameEnergies(t, rng, m, got)
			if st := got.Stats(); st.ForbiddenEntries != in.Forbidden || st.Factors != in.Factors || st.MaxArity != in.MaxArity {
				t.Errorf("read back %d factors, max arity %d, %d forbidden; reference %d, %d, %d", st.Factors, st.MaxArity, st.ForbiddenEntries, in.Factors, in.MaxArity, in.Forbidden)
			}
		})
	}
}
