package uai

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/internal/refdata"
	"github.com/sdrmap/sdrmap/model"
)

// TestSharedInstances parses every shared instance and checks the summary
// against reference.tsv, and the energy of each shipped .MAP assignment
// against map_energy / map_log10 (to 1e-6 relative).
func TestSharedInstances(t *testing.T) {
	dir := refdata.Require(t)
	ins, err := refdata.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) < 10 {
		t.Fatalf("reference.tsv lists %d instances", len(ins))
	}
	for _, in := range ins {
		t.Run(in.File, func(t *testing.T) {
			path := refdata.Path(dir, in)
			m, err := ReadModelFile(path)
			if err != nil {
				t.Fatal(err)
			}
			st := m.Stats()
			got := []int{st.Variables, st.MinCardinality, st.MaxCardinality, st.Factors, st.MaxArity, st.ForbiddenEntries}
			want := []int{in.Variables, in.MinCard, in.MaxCard, in.Factors, in.MaxArity, in.Forbidden}
			for k := range got {
				if got[k] != want[k] {
					t.Errorf("stats %v, reference %v (variables, min card, max card, factors, max arity, forbidden)", got, want)
					break
				}
			}
			if _, err := m.Pairwise(nil); (err == nil) != in.Pairwise {
				t.Errorf("pairwise view error %v, reference pairwise=%v", err, in.Pairwise)
			}
			mapPath := strings.TrimSuffix(path, ".xz") + ".MAP"
			if _, err := os.Stat(mapPath); err != nil {
				return
			}
			x, err := ReadResultFile(mapPath)
			if err != nil {
				t.Fatal(err)
			}
			var ev model.Evidence
			if evPath := strings.TrimSuffix(path, ".xz") + ".evid"; fileExists(evPath) {
				if ev, err = ReadEvidenceFile(evPath); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Check(x); err != nil {
				t.Fatal(err)
			}
			if cl, _ := ev.Clamps(m); cl != nil {
				for v, c := range cl {
					if c >= 0 && x[v] != c {
						t.Fatalf(".MAP sets evidence variable %d to %d, evidence says %d", v, x[v], c)
					}
				}
			}
			e := m.Energy(x)
			if !close(e, in.MapEnergy, 1e-6) {
				t.Errorf("energy %.9f, reference %.9f", e, in.MapEnergy)
			}
			if l := model.Log10(e); !close(l, in.MapLog10, 1e-6) {
				t.Errorf("log10 %.9f, reference %.9f", l, in.MapLog10)
			}
			if p, err := m.Pairwise(ev); err == nil {
				if pe := p.Energy(p.Restrict(x)); !close(pe, e, 1e-12) {
					t.Errorf("pairwise energy %.12f, model energy %.12f", pe, e)
				}
			}
		})
	}
}

func close(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
