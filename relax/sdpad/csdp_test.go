package sdpad

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/internal/refdata"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// csdpValue solves the SDPA export of p with CSDP and returns min <C,Xbar>
// (CSDP maximizes <-C,Xbar>, see sdr.WriteSDPA). Without csdp on PATH the
// test is skipped, except under CI.
func csdpValue(t testing.TB, p *sdr.Problem) float64 {
	t.Helper()
	bin, err := exec.LookPath("csdp")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("csdp not found on PATH")
		}
		t.Skip("csdp not found on PATH")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "sdr.dat-s")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := sdr.WriteSDPA(f, p); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, file)
	cmd.Dir = dir // no param.csdp from the working directory
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) { // 3: partial success
		t.Fatalf("csdp: %v\n%s", err, out)
	}
	var pobj, dobj float64
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		for _, c := range []struct {
			prefix string
			v      *float64
		}{{"Primal objective value:", &pobj}, {"Dual objective value:", &dobj}} {
			if rest, ok := strings.CutPrefix(line, c.prefix); ok {
				if *c.v, err = strconv.ParseFloat(strings.TrimSpace(rest), 64); err != nil {
					t.Fatalf("csdp output %q: %v", line, err)
				}
				found++
			}
		}
	}
	if found != 2 {
		t.Fatalf("csdp output without objective values:\n%s", out)
	}
	return -(pobj + dobj) / 2
}

func agreeWithCSDP(t *testing.T, name string, p *sdr.Problem) {
	t.Helper()
	want := csdpValue(t, p)
	r := solve(t, p, tight(1e-7))
	if r.Status != solver.Solved {
		t.Fatalf("%s: status %v after %d iterations", name, r.Status, r.Iterations)
	}
	if d := math.Abs(r.PrimalObjective - want); d > 1e-4*max(1, math.Abs(want)) {
		t.Fatalf("%s: SDR value %.10g, CSDP %.10g", name, r.PrimalObjective, want)
	}
	t.Logf("%s: N = %d, SDR value %.10g (bound %.10g) in %d iterations, %v; CSDP %.10g", name, p.N(), r.PrimalObjective, r.SDRBound, r.Iterations, r.Time, want)
	if r.SDRBound > want+1e-6*max(1, math.Abs(want)) {
		t.Fatalf("%s: certified bound %.10g above CSDP's optimum %.10g", name, r.SDRBound, want)
	}
}

// TestAgainstCSDPGrids compares the SDR value with CSDP on small Potts grids
// and a random model with forbidden entries (E4 rows in the export).
func TestAgainstCSDPGrids(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, g := range [][2]int{{2, 3}, {3, 2}, {3, 3}, {3, 4}} {
		agreeWithCSDP(t, "grid", build(t, gridPW(r, g[0], g[1])))
	}
	for {
		m := randmodel.New(r, randmodel.Options{Vars: 6, MaxCard: 4, MinCard2: true, Factors: 10, MaxArity: 2, Forbidden: 0.2})
		pw, err := m.Pairwise(nil)
		if err != nil {
			continue
		}
		p, err := sdr.Build(pw)
		if err != nil {
			continue
		}
		if p.Y.Len == p.Y.E4 {
			continue // want forbidden pairs
		}
		agreeWithCSDP(t, "random", p)
		return
	}
}

// TestAgainstCSDPProtein compares with CSDP on the UAI 2008 side-chain model
// pdb1akg (14 variables, 2..18 states, 3 forbidden entries).
func TestAgainstCSDPProtein(t *testing.T) {
	dir := refdata.Require(t)
	m, err := uai.ReadModelFile(filepath.Join(dir, "uai", "protein_sidechain", "uai2008_pdb1akg.uai.xz"))
	if err != nil {
		t.Fatal(err)
	}
	pw, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := build(t, pw)
	agreeWithCSDP(t, "pdb1akg", p)
	// The SDR is tight here: the rounded marginals are optimal and the
	// certified bound is below their energy.
	r := solve(t, p, tight(1e-7))
	x := p.Argmax(r.X.RawSymmetric().Data[:p.N()])
	e := m.Energy(pw.Expand(x))
	if r.EnergyBound > e || e-r.EnergyBound > 1e-5 {
		t.Fatalf("rounded energy %.10g, certified bound %.10g", e, r.EnergyBound)
	}
	t.Logf("pdb1akg: rounded energy %.10g, certified energy bound %.10g (difference %.3g)", e, r.EnergyBound, e-r.EnergyBound)
}
