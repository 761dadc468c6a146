package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap/bench/suite"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

// genOptions are the flags every kind shares: -o and the kind's parameters
// (suite.GenSpec.Flags).
type genOptions struct {
	out string
	g   suite.GenSpec
}

func (o *genOptions) flags(c *cobra.Command, kind string) {
	f := c.Flags()
	f.StringVarP(&o.out, "output", "o", "", "write the model to this UAI file ('-': standard output); required")
	o.g.Kind = kind
	o.g.Flags(f)
}

// check validates the flags (the parameters by suite.GenSpec.Check, shared
// with the generator lines of bench suites).
func (o *genOptions) check() error {
	if o.out == "" {
		return usagef("-o FILE is required (the UAI model file to write, or '-' for standard output)")
	}
	if err := o.g.Check(); err != nil {
		return usageError{err}
	}
	return nil
}

// write builds the model and writes it to -o.
func (o *genOptions) write(cmd *cobra.Command) error {
	md := o.g.Build()
	return writeGenerated(cmd, o.out, func(w io.Writer) error { return uai.WriteModel(w, md) })
}

// genCmd is `sdrmap gen KIND`: one subcommand per instance family.
func genCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "gen KIND -o FILE.uai [flags]",
		Short: "Generate a random MAP instance (orient, potts, binary, matching, dense)",
		Long: `gen writes a random MAP instance of package gen in the UAI model format. The
output is a pure function of the kind, its parameters and --seed: the same
command line gives the same bytes on every platform. -o FILE is required
('-' writes to standard output); a file is written via a temporary file and
renamed, so an existing file is never left half written.

Kinds (run "sdrmap gen KIND --help" for the flags):

  orient    planted Z_m synchronization (the paper's ORIENT family): --vars n
            (default 1000) variables with --labels m (16) states on a
            connected random graph of average degree --degree (50); each edge
            (i, j) rewards x_j - x_i = s_ij (mod m) with ln phi = 1, where s_ij
            is the planted shift, replaced with probability --noise (0.1) by a
            random one. No unary factors.
            --planted FILE also writes the planted assignment (UAI result
            format); with --noise 0 it is optimal, with energy -(edges).
  potts     --rows (32) x --cols (32) 4-connected grid, --labels (8) states
            per variable, standard normal unary log potentials and the Potts
            table ln phi(a, b) = --coupling (1) if a = b, else 0 (coupling > 0
            smooths).
  binary    --vars (100) binary variables on a connected random graph of
            average degree --degree (4; the complete graph when degree >=
            vars - 1), all unary and pairwise log potentials standard normal:
            frustrated, GM-Char-like.
  matching  --vars (20) variables with --labels (20) states on the complete
            graph, unary and pairwise costs uniform in [0, 1) (ln phi =
            -cost), equal labels forbidden (phi = 0): a feasible assignment is
            injective, so the model is infeasible when labels < vars.
            GM-Matching-like.
  dense     --vars (100) variables with --labels (10) states on the random
            graph G(n, p) with p = --density (1: the complete graph), all
            unary and pairwise log potentials standard normal, each pairwise
            entry forbidden with probability --forbid (0).

Random graphs: a random spanning tree plus distinct random edges, about
vars * degree / 2 edges in all (at least vars - 1: degree <= 2 gives a tree).
Models beyond 5e8 table entries are refused.`,
		Example: `  sdrmap gen orient --vars 1000 --labels 16 --degree 50 --noise 0.1 -o orient.uai --planted orient.MAP
  sdrmap gen potts --rows 50 --cols 50 --labels 5 --coupling 1 -o potts.uai
  sdrmap gen binary --vars 100 --degree 6 --seed 3 -o binary.uai
  sdrmap gen matching --vars 20 --labels 20 -o - | gzip > matching.uai.gz
  sdrmap gen dense --vars 100 --labels 10 -o dense100.uai`,
		// Flags of the kinds after an unknown kind must not hide the
		// "unknown kind" message.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("gen needs a kind: %s (see sdrmap gen --help)", strings.Join(suite.GenKinds, ", "))
			}
			return usagef("unknown kind %q for gen (kinds: %s)", args[0], strings.Join(suite.GenKinds, ", "))
		},
	}
	c.AddCommand(genOrientCmd(), genPottsCmd(), genBinaryCmd(), genMatchingCmd(), genDenseCmd())
	return c
}

func genOrientCmd() *cobra.Command {
	var (
		o           genOptions
		plantedPath string
	)
	c := &cobra.Command{
		Use:   "orient -o FILE.uai [--planted FILE.MAP]",
		Short: "Planted Z_m synchronization (ORIENT)",
		Long: `orient writes a planted Z_m synchronization instance (gen.Orient): hidden labels
g_i uniform in {0..m-1}; a connected random graph on n vertices of average
degree about --degree; on each edge (i, j), i < j, the shift s_ij = g_j - g_i
(mod m), replaced with probability --noise by a uniform random shift, and the
table ln phi_ij(a, b) = 1 if b - a = s_ij (mod m), else 0. There are no unary
factors: x and x + c (mod m) have the same energy, so an optimum may differ
from the planted assignment by a global shift. --planted writes the planted
assignment g in the UAI result format.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if plantedPath != "" && plantedPath == o.out {
				return usagef("--planted and -o both name %q: give them different files", o.out)
			}
			g := o.g
			md, planted := gen.Orient(g.Vars, g.Labels, g.Degree, g.Noise, g.Seed)
			if err := writeGenerated(cmd, o.out, func(w io.Writer) error { return uai.WriteModel(w, md) }); err != nil {
				return err
			}
			if plantedPath == "" {
				return nil
			}
			return writeGenerated(cmd, plantedPath, func(w io.Writer) error { return uai.WriteResult(w, planted) })
		},
	}
	o.flags(c, "orient")
	c.Flags().StringVar(&plantedPath, "planted", "", "also write the planted assignment to this file (UAI result format; '-': standard output)")
	return c
}

func genPottsCmd() *cobra.Command {
	var o genOptions
	c := &cobra.Command{
		Use:   "potts -o FILE.uai",
		Short: "Potts model on a 4-connected grid",
		Long: `potts writes a rows x cols 4-connected grid (gen.PottsGrid): variable r*cols + c
at row r, column c, --labels states each, standard normal unary log
potentials, and on every grid edge the Potts table ln phi(a, b) = --coupling
if a = b, else 0 (coupling > 0 favours equal neighbours; < 0 is allowed).
Factors: the unaries in variable order, then the horizontal edges, then the
vertical ones.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			return o.write(cmd)
		},
	}
	o.flags(c, "potts")
	return c
}

func genBinaryCmd() *cobra.Command {
	var o genOptions
	c := &cobra.Command{
		Use:   "binary -o FILE.uai",
		Short: "Frustrated binary model on a random graph (GM-Char-like)",
		Long: `binary writes a binary model (gen.Binary) on a connected random graph of
average degree about --degree (the complete graph when degree >= vars - 1):
one unary factor per variable with standard normal log potentials, then one
pairwise factor per edge with four independent standard normal entries, so
the interactions are generically non-submodular (frustrated).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			return o.write(cmd)
		},
	}
	o.flags(c, "binary")
	return c
}

func genMatchingCmd() *cobra.Command {
	var o genOptions
	c := &cobra.Command{
		Use:   "matching -o FILE.uai",
		Short: "Dense matching model with forbidden equal labels (GM-Matching-like)",
		Long: `matching writes a dense matching model (gen.DenseMatching): --vars variables
with --labels states each on the complete graph, unary and pairwise costs
uniform in [0, 1) per entry (ln phi = -cost), and every pair of equal labels
forbidden (phi = 0). A feasible assignment maps the variables injectively to
the labels, so with labels < vars the model has no assignment of finite
energy (gen says so on stderr but writes it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if g := o.g; g.Labels < g.Vars {
				fmt.Fprintf(cmd.ErrOrStderr(), "sdrmap: note: --labels %d < --vars %d: the model is infeasible (every assignment repeats a label)\n", g.Labels, g.Vars)
			}
			return o.write(cmd)
		},
	}
	o.flags(c, "matching")
	return c
}

// writeGenerated writes through write to path (solvecmd.WriteFile), or to
// standard output for "-".
func writeGenerated(cmd *cobra.Command, path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(cmd.OutOrStdout())
	}
	return solvecmd.WriteFile(path, write)
}
