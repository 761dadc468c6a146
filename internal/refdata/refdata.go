// Package refdata locates the shared benchmark instances (../shared/data
// beside the repository, or $SDRMAP_DATA) and parses reference.tsv, for tests
// and benchmarks.
package refdata

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Instance is one row of reference.tsv. Float fields are NaN when empty.
type Instance struct {
	File           string // path under uai/
	Variables      int
	MinCard        int
	MaxCard        int
	Factors        int
	MaxArity       int
	Pairwise       bool
	Forbidden      int
	MapEnergy      float64 // energy of the shipped .MAP assignment
	MapLog10       float64
	ProvenOptimum  float64
	Toulbar2Energy float64
}

// Dir returns the shared data directory (the one holding reference.tsv), or
// "" if it cannot be found.
func Dir() string {
	if d := os.Getenv("SDRMAP_DATA"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(d, "shared", "data")
		if _, err := os.Stat(filepath.Join(c, "reference.tsv")); err == nil {
			return c
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Require returns the shared data directory. Without it the test is skipped,
// except under CI (CI=true) where it fails: CI must exercise the real data.
func Require(t testing.TB) string {
	t.Helper()
	d := Dir()
	if d == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("shared data not found: expected ../shared/data beside the repository or $SDRMAP_DATA")
		}
		t.Skip("shared data not found (../shared/data or $SDRMAP_DATA)")
	}
	return d
}

// Path returns the absolute path of an instance file.
func Path(dir string, in Instance) string { return filepath.Join(dir, "uai", in.File) }

// Load parses reference.tsv in dir.
func Load(dir string) ([]Instance, error) {
	f, err := os.Open(filepath.Join(dir, "reference.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var cols map[string]int
	var out []Instance
	line := 0
	for sc.Scan() {
		line++
		rec := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = map[string]int{}
			for i, c := range rec {
				cols[c] = i
			}
			continue
		}
		get := func(c string) string {
			if i, ok := cols[c]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		var perr error
		atoi := func(c string) int {
			v, err := strconv.Atoi(get(c))
			if err != nil && perr == nil {
				perr = fmt.Errorf("reference.tsv:%d: column %s: %v", line, c, err)
			}
			return v
		}
		atof := func(c string) float64 {
			s := get(c)
			if s == "" {
				return math.NaN()
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("reference.tsv:%d: column %s: %v", line, c, err)
			}
			return v
		}
		in := Instance{
			File: get("file"), Variables: atoi("variables"), MinCard: atoi("min_cardinality"),
			MaxCard: atoi("max_cardinality"), Factors: atoi("factors"), MaxArity: atoi("max_arity"),
			Pairwise: get("pairwise") == "True", Forbidden: atoi("forbidden_entries"),
			MapEnergy: atof("map_energy"), MapLog10: atof("map_log10"),
			ProvenOptimum: atof("proven_optimum_energy"), Toulbar2Energy: atof("toulbar2_energy"),
		}
		if perr != nil {
			return nil, perr
		}
		out = append(out, in)
	}
	return out, sc.Err()
}
