package suite

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/model"
)

// GenKinds are the kinds of generated instances (those of `sdrmap gen`).
var GenKinds = []string{"orient", "potts", "binary", "matching", "dense"}

// maxGenEntries is `sdrmap gen`'s limit on table entries.
const maxGenEntries = 5e8

// GenSpec is a generated instance: a kind of `sdrmap gen` with its
// parameters (Flags defines them for bench suites and for `sdrmap gen`,
// which uses Check and Build too).
type GenSpec struct {
	Kind     string
	Args     []string // the flags as given
	Seed     uint64
	Vars     int     // orient, binary, matching
	Labels   int     // orient, potts, matching
	Degree   float64 // orient, binary
	Noise    float64 // orient
	Rows     int     // potts
	Cols     int     // potts
	Coupling float64 // potts
	Density  float64 // dense: edge probability
	Forbid   float64 // dense: probability of a forbidden pairwise entry
}

// Flags defines the flags of `sdrmap gen g.Kind` (--seed and the kind's
// parameters, with their defaults and help) on fs, bound to g's fields; the
// one place of the generators' defaults. It reports false for an unknown
// kind.
func (g *GenSpec) Flags(fs *pflag.FlagSet) bool {
	fs.Uint64Var(&g.Seed, "seed", 1, "seed of the generator (the same seed gives the same file)")
	switch g.Kind {
	case "orient":
		fs.IntVar(&g.Vars, "vars", 1000, "number of variables n")
		fs.IntVar(&g.Labels, "labels", 16, "number of states m (the group Z_m)")
		fs.Float64Var(&g.Degree, "degree", 50, "average degree of the random graph")
		fs.Float64Var(&g.Noise, "noise", 0.1, "probability that an edge's shift is replaced by a random one")
	case "potts":
		fs.IntVar(&g.Rows, "rows", 32, "grid rows")
		fs.IntVar(&g.Cols, "cols", 32, "grid columns")
		fs.IntVar(&g.Labels, "labels", 8, "states per variable")
		fs.Float64Var(&g.Coupling, "coupling", 1, "Potts coupling: ln phi of equal neighbouring labels")
	case "binary":
		fs.IntVar(&g.Vars, "vars", 100, "number of variables")
		fs.Float64Var(&g.Degree, "degree", 4, "average degree of the random graph")
	case "matching":
		fs.IntVar(&g.Vars, "vars", 20, "number of variables (points to match)")
		fs.IntVar(&g.Labels, "labels", 20, "states per variable (candidate matches)")
	case "dense":
		fs.IntVar(&g.Vars, "vars", 100, "number of variables")
		fs.IntVar(&g.Labels, "labels", 10, "states per variable")
		fs.Float64Var(&g.Density, "density", 1, "probability of each edge (G(n, p); 1: the complete graph)")
		fs.Float64Var(&g.Forbid, "forbid", 0, "probability that a pairwise entry is forbidden (phi = 0)")
	default:
		return false
	}
	return true
}

// ParseGen parses the flags of `sdrmap gen KIND` (without -o and
// --planted).
func ParseGen(kind string, args []string) (*GenSpec, error) {
	g := &GenSpec{Kind: kind, Args: append([]string(nil), args...)}
	fs := pflag.NewFlagSet(kind, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if !g.Flags(fs) {
		return nil, fmt.Errorf("unknown gen kind %q (kinds: %s)", kind, strings.Join(GenKinds, ", "))
	}
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("gen %s: %w", kind, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("gen %s: unexpected argument %q", kind, fs.Arg(0))
	}
	if err := g.Check(); err != nil {
		return nil, fmt.Errorf("gen %s: %w", kind, err)
	}
	return g, nil
}

// Check validates the parameters: sizes >= 1, finite degree, coupling and
// noise in range, and at most 5e8 table entries.
func (g *GenSpec) Check() error {
	atLeast1 := func(name string, v int) error {
		if v < 1 {
			return fmt.Errorf("%s must be >= 1 (got %d)", name, v)
		}
		return nil
	}
	degree := func() error {
		if !(g.Degree >= 0) || math.IsInf(g.Degree, 1) {
			return fmt.Errorf("--degree must be a finite number >= 0 (got %v)", g.Degree)
		}
		return nil
	}
	var entries float64
	switch g.Kind {
	case "orient":
		if err := atLeast1("--vars", g.Vars); err != nil {
			return err
		}
		if err := atLeast1("--labels", g.Labels); err != nil {
			return err
		}
		if err := degree(); err != nil {
			return err
		}
		if !(g.Noise >= 0 && g.Noise <= 1) {
			return fmt.Errorf("--noise must be a probability in [0, 1] (got %v)", g.Noise)
		}
		entries = graphEdges(g.Vars, g.Degree) * float64(g.Labels) * float64(g.Labels)
	case "potts":
		for _, p := range []struct {
			name string
			v    int
		}{{"--rows", g.Rows}, {"--cols", g.Cols}, {"--labels", g.Labels}} {
			if err := atLeast1(p.name, p.v); err != nil {
				return err
			}
		}
		if math.IsNaN(g.Coupling) || math.IsInf(g.Coupling, 0) {
			return fmt.Errorf("--coupling must be a finite number (got %v)", g.Coupling)
		}
		r, c, l := float64(g.Rows), float64(g.Cols), float64(g.Labels)
		entries = r*c*l + (r*(c-1)+(r-1)*c)*l*l
	case "binary":
		if err := atLeast1("--vars", g.Vars); err != nil {
			return err
		}
		if err := degree(); err != nil {
			return err
		}
		entries = 2*float64(g.Vars) + 4*graphEdges(g.Vars, g.Degree)
	case "matching":
		if err := atLeast1("--vars", g.Vars); err != nil {
			return err
		}
		if err := atLeast1("--labels", g.Labels); err != nil {
			return err
		}
		v, l := float64(g.Vars), float64(g.Labels)
		entries = v*l + v*(v-1)/2*l*l
	case "dense":
		if err := atLeast1("--vars", g.Vars); err != nil {
			return err
		}
		if err := atLeast1("--labels", g.Labels); err != nil {
			return err
		}
		if !(g.Density >= 0 && g.Density <= 1) {
			return fmt.Errorf("--density must be a probability in [0, 1] (got %v)", g.Density)
		}
		if !(g.Forbid >= 0 && g.Forbid < 1) {
			return fmt.Errorf("--forbid must be in [0, 1) (got %v)", g.Forbid)
		}
		v, l := float64(g.Vars), float64(g.Labels)
		entries = v*l + g.Density*v*(v-1)/2*l*l
	}
	if entries > maxGenEntries {
		return fmt.Errorf("the model would have %.3g table entries, more than the limit %.0g: choose smaller sizes", entries, maxGenEntries)
	}
	return nil
}

// graphEdges is the number of edges of gen.RandomGraph(n, degree).
func graphEdges(n int, degree float64) float64 {
	v := float64(n)
	return math.Max(v-1, math.Min(math.Round(v*degree/2), v*(v-1)/2))
}

// Build generates the model.
func (g *GenSpec) Build() *model.Model {
	switch g.Kind {
	case "orient":
		m, _ := gen.Orient(g.Vars, g.Labels, g.Degree, g.Noise, g.Seed)
		return m
	case "potts":
		return gen.PottsGrid(g.Rows, g.Cols, g.Labels, g.Coupling, g.Seed)
	case "binary":
		return gen.Binary(g.Vars, g.Degree, g.Seed)
	case "dense":
		return gen.Dense(g.Vars, g.Labels, g.Density, g.Forbid, g.Seed)
	default:
		return gen.DenseMatching(g.Vars, g.Labels, g.Seed)
	}
}

// String is the generator's command line, "gen KIND FLAGS...".
func (g *GenSpec) String() string {
	return strings.TrimSpace("gen " + g.Kind + " " + strings.Join(g.Args, " "))
}

// Name is the default instance name: the kind and the flags given, e.g.
// potts-rows10-cols10-labels4-seed1.
func (g *GenSpec) Name() string {
	var b strings.Builder
	b.WriteString(g.Kind)
	for _, a := range g.Args {
		if f, ok := strings.CutPrefix(a, "--"); ok {
			f, v, _ := strings.Cut(f, "=")
			b.WriteString("-" + f + v)
		} else {
			b.WriteString(a) // a flag's value
		}
	}
	return b.String()
}
