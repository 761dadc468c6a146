//go:build hdf5

package opengm

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/internal/refdata"
	"github.com/sdrmap/sdrmap/model"
)

// openGMWritten are the files of ../shared/data/opengm, written by OpenGM 2's
// own library (its README).
var openGMWritten = []string{
	"grid_potts", "grid_truncated", "third_order", "all_types", "grid30_potts",
	"grid_potts_float", "chain_int", "foe", "pottsg_order5",
}

// TestOpenGMWritten reads every file that OpenGM wrote and checks the
// energies OpenGM computed: those of the three labelings of X.labels.txt
// (X.energy.txt) and those of its inference algorithms' labelings
// (X.infer.txt), to 1e-9 relative; where the joint state space is small,
// the minimum by enumeration equals the energy of OpenGM's exact
// algorithms (Bruteforce, AStar), and TRW-S's bound lies below it.
func TestOpenGMWritten(t *testing.T) {
	dir := filepath.Join(refdata.Require(t), "opengm")
	for _, name := range openGMWritten {
		t.Run(name, func(t *testing.T) {
			base := filepath.Join(dir, name)
			m, err := ReadFile(base + ".h5")
			if err != nil {
				t.Fatal(err)
			}
			labels := readLines(t, base+".labels.txt")
			energies := readLines(t, base+".energy.txt")
			if len(labels) != 3 || len(energies) != 3 {
				t.Fatalf("%d labelings and %d energies, want 3 and 3", len(labels), len(energies))
			}
			for i, l := range labels {
				checkEnergy(t, m, ints(t, strings.Fields(l)), float(t, energies[i]), "labeling "+strconv.Itoa(i))
			}
			exact := math.NaN()
			for _, line := range readLines(t, base+".infer.txt") {
				f := strings.Fields(line)
				at := func(key string) int {
					for k, s := range f {
						if s == key {
							return k
						}
					}
					t.Fatalf("%s: no %q in %q", name, key, line)
					return 0
				}
				e := float(t, f[at("energy")+1])
				checkEnergy(t, m, ints(t, f[at("labeling")+1:]), e, f[0])
				if f[0] == "Bruteforce" || f[0] == "AStar" {
					exact = e
				}
				if strings.HasPrefix(f[0], "TRWS") {
					if b := float(t, f[at("bound")+1]); b > e*(1+1e-12) {
						t.Errorf("%s: bound %v above energy %v", f[0], b, e)
					}
				}
			}
			if math.IsNaN(exact) {
				return
			}
			if min, ok := enumerate(m, 1e6); ok && !close(min, exact) {
				t.Errorf("minimum by enumeration %.17g, OpenGM's exact algorithm %.17g", min, exact)
			}
		})
	}
}

func checkEnergy(t *testing.T, m *model.Model, x []int, want float64, what string) {
	t.Helper()
	if err := m.Check(x); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := m.Energy(x); !close(got, want) {
		t.Errorf("%s: energy %.17g, OpenGM %.17g (relative %.2g)", what, got, want, math.Abs(got-want)/math.Max(1, math.Abs(want)))
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// enumerate returns the minimum energy over all assignments, if there are
// at most limit of them.
func enumerate(m *model.Model, limit float64) (float64, bool) {
	n := 1.0
	for _, c := range m.Card {
		n *= float64(c)
	}
	if n > limit {
		return 0, false
	}
	x := make([]int, m.NumVars())
	best := math.Inf(1)
	for {
		best = math.Min(best, m.Energy(x))
		i := len(x) - 1
		for ; i >= 0; i-- {
			if x[i]++; x[i] < m.Card[i] {
				break
			}
			x[i] = 0
		}
		if i < 0 {
			return best, true
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			lines = append(lines, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func ints(t *testing.T, f []string) []int {
	t.Helper()
	x := make([]int, len(f))
	for i, s := range f {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		x[i] = v
	}
	return x
}

func float(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
