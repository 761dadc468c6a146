package higherorder

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/refdata"
)

// TestSharedInstances converts the shared higher-order instances, logs the
// sizes before and after and the conversion time, and checks the energies of
// random assignments (and of the assignments of smallest unary energy, which
// GeomSurf's feasible everywhere) through the map.
func TestSharedInstances(t *testing.T) {
	dir := refdata.Require(t)
	for _, file := range []string{"gm_label/GeomSurf-7-gm256.uai.xz", "higher_order/tb2_pedigree9.uai.xz"} {
		m, err := uai.ReadModelFile(filepath.Join(dir, "uai", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, enc := range []Encoding{EncodeAuto, EncodeJoint} {
			start := time.Now()
			conv, mp, err := Convert(m, Settings{Encoding: enc})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if conv.MaxArity() > 2 {
				t.Fatalf("%s: arity %d after conversion", file, conv.MaxArity())
			}
			if _, err := conv.Pairwise(nil); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			st := mp.Stats
			t.Logf("%s encoding %d: %v\n  before: vars %d N %d edges %d pattern %d\n  after:  vars %d N %d edges %d pattern %d\n  aux %d, encoded %d, decomposed %d, merged %d, absorbed %d factors",
				file, enc, elapsed.Round(time.Millisecond),
				st.Before.Vars, st.Before.N, st.Before.Edges, st.Before.Pattern,
				st.After.Vars, st.After.N, st.After.Edges, st.After.Pattern,
				st.Aux, st.Encoded, st.Decomposed, st.Merged, st.Absorbed)
			r := rand.New(rand.NewPCG(1, 1))
			finite := 0
			for range 200 {
				x := make([]int, m.NumVars())
				for v := range x {
					x[v] = r.IntN(m.Card[v])
				}
				e, f := m.Energy(x), conv.Energy(mp.Converted(x))
				if math.IsInf(e, 1) != math.IsInf(f, 1) || (!math.IsInf(e, 1) && math.Abs(e-f) > 1e-9*math.Max(1, math.Abs(e))) {
					t.Fatalf("%s: energy %v, converted %v", file, e, f)
				}
				if !math.IsInf(e, 1) {
					finite++
				}
			}
			t.Logf("  %d of 200 random assignments of finite energy, all equal after conversion", finite)
		}
	}
}
