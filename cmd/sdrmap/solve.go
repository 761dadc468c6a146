package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
	"github.com/sdrmap/sdrmap/solver"
)

// solveOutput is what solve prints: as text (fixed layout, one "key value"
// line each) or as JSON, where the SDR figures are flattened in.
type solveOutput struct {
	Status     solver.Status `json:"status"`
	Energy     jsonFloat     `json:"energy"`
	Log10      jsonFloat     `json:"log10"`
	Bound      jsonFloat     `json:"bound"`
	Gap        jsonFloat     `json:"gap"`
	TimeS      float64       `json:"time_s"`
	Solver     string        `json:"solver"`
	Iterations int           `json:"iterations"`
	Rounds     int           `json:"rounds"`
	Convention string        `json:"energy_convention"`
	Assignment []int         `json:"assignment"`
	*sdrmap.SDRInfo
}

func solveCmd() *cobra.Command {
	var (
		evid, out       string
		flags           solvecmd.Flags
		asJSON, verbose bool
	)
	c := &cobra.Command{
		Use:   "solve FILE",
		Short: "Find a MAP assignment",
		Long: `solve finds a MAP assignment of FILE and prints a summary on stdout, one
"key value" line each, in this order:

  status      solved | solved-inaccurate | max-iterations | time-limit |
              interrupted | infeasible | failed
  energy      energy of the assignment found (-sum ln phi; lower is better)
  log10       its UAI score, -energy / ln 10
  bound       a lower bound on the optimal energy (-Inf if none): proven by
              exact, trws and sdpad; for sdpad-lr it rests on an iterative
              eigensolver not missing the smallest eigenvalue (see the
              solver/sdpad package doc)
  gap         energy - bound (0: the assignment is proven optimal)
  time        wall time in seconds
  solver      the solver used

Solvers: ` + strings.Join(sdrmap.Solvers(), ", ") + `
  exact     depth-first branch and bound; proves optimality, for small models
            (refuses more than --max-states joint states)
  auto      trws, then sdpad-lr with the time left unless the LP bound already
            proves the trws assignment optimal or the model was converted
            from higher order (below); the better assignment and the larger
            bound are kept
  sdpad     the semidefinite relaxation solved by the paper's SDPAD (dense
            eigendecompositions: N up to ~2000), rounded by argmax and
            randomized rounding, polished by ICM and tree-block moves (exact
            minimization over induced trees given the rest), then improved by
            an iterated local search (random blocks reassigned, tree-block
            moves) until it stalls; under --time-limit the search may run until
            the limit; bound certified (spec §9): the best of the dual
            iterates' bounds (after sdpad-lr, the best iterate's again with
            a tight eigensolve) and of the dual point complementary to the best
            assignment, which proves it optimal when the relaxation is tight
            there (JSON "complement": true when that one is the larger).
            Every 20 iterations (gap and pinf below 0.1) a probe rounds
            the iterate and certifies the result so; when that proves it
            optimal the relaxation stops there (--no-probe: never)
  sdpad-lr  the same relaxation solved by SDPAD-LR (the paper's Algorithm 2:
            Xbar = Y Y^T of rank --rank doubling up to --max-rank, top
            eigenpairs by LOBPCG with warm starts; memory O(N r + pattern))
            Both SDR solvers restart every 100 iterations from the average of
            their iterates when it is closer to optimal (--no-restart: never)
  icm       iterated conditional modes from the best unary states (no bound)
  trws      sequential tree-reweighted message passing (Kolmogorov 2006); its
            bound is the LP relaxation's; assignment polished by tree-block
            moves
  ipm-nc    the paper's IPM-NC baseline: a KKT point of the nonconvex rank-1
            relaxation from the uniform point (projected gradient), argmax
            rounding polished by ICM (no bound)

Factors of arity > 2 are converted exactly to pairwise ones first (auxiliary
variables over their allowed joint configurations; see sdrmap info); the
energy reported is always that of the original model. When a solver ends
without an assignment of finite energy, a backtracking search on the
forbidden entries (solver/feasible) looks for one, for at least 1 s even
past --time-limit. After a conversion or such a repair, the assignment is
improved on the original model by ICM, tree-block moves and a
large-neighbourhood search (solver/lns: connected blocks of up to 60
variables re-optimized exactly by branch and bound); with --time-limit the
solver gets half of the time and the search runs until the limit or until
the bound proves the assignment optimal, without one until it stalls.

A model without evidence whose energy does not change when every variable
advances its state by one modulo the common cardinality (every table a
function of state differences: Z_m synchronization such as ORIENT, Potts
without unary terms) has its optima in orbits of that shift; the variable
in most factors is then fixed to state 0, which loses no optimum and keeps
the relaxation from averaging the m shifted copies of each solution
(sdrmap info says "shift invariant"; --keep-symmetry turns this off).

--time-limit and Ctrl-C end the run with the best assignment found so far,
which is still printed and written to -o.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := flags.Settings()
			if err != nil {
				return usageError{err}
			}
			in, err := load(args[0], evid)
			if err != nil {
				return err
			}
			s.Evidence = in.Evidence
			var pl *progressLine
			if verbose {
				s.Log = cmd.ErrOrStderr()
			} else if pl = newProgressLine(cmd.ErrOrStderr()); pl != nil {
				s.Progress = pl.update
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			res, err := sdrmap.Solve(ctx, in.Model, s)
			if pl != nil {
				pl.done()
			}
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			if res.Assignment != nil && out != "" {
				if err := solvecmd.WriteResultFile(out, res.Assignment); err != nil {
					return err
				}
			} else if out != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "sdrmap: no feasible assignment found; %s not written\n", out)
			}
			o := solveOutput{Status: res.Status, Energy: jsonFloat(res.Energy), Log10: jsonFloat(res.Log10),
				Bound: jsonFloat(res.Bound), Gap: jsonFloat(res.Gap), TimeS: res.Time.Seconds(), Solver: res.Solver,
				Iterations: res.Iterations, Rounds: res.Rounds, Convention: in.Convention,
				Assignment: res.Assignment, SDRInfo: res.SDR}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), o)
			}
			printSummary(cmd.OutOrStdout(), &o)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&evid, "evid", "", "evidence file (UAI 2014 or PIC 2011 layout)")
	f.StringVarP(&out, "output", "o", "", "write the assignment to this file (UAI result format)")
	f.BoolVar(&asJSON, "json", false, "print the summary as a JSON object (adds the assignment)")
	f.BoolVarP(&verbose, "verbose", "v", false, "print solver progress on stderr")
	flags.Register(f)
	return c
}

func printSummary(w io.Writer, o *solveOutput) {
	fmt.Fprintf(w, "status    %s\n", o.Status)
	fmt.Fprintf(w, "energy    %.9f  (%s)\n", float64(o.Energy), o.Convention)
	fmt.Fprintf(w, "log10     %.9f\n", float64(o.Log10))
	fmt.Fprintf(w, "bound     %.9f\n", float64(o.Bound))
	fmt.Fprintf(w, "gap       %.3g\n", float64(o.Gap))
	fmt.Fprintf(w, "time      %.3f s\n", o.TimeS)
	fmt.Fprintf(w, "solver    %s\n", o.Solver)
}
