package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
	"github.com/sdrmap/sdrmap/methods"
)

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

  answer      what the assignment is: optimal (the bound proves it, whatever
              stopped the run) | feasible (finite energy; gap as reported) |
              none (no assignment of finite energy found) | infeasible (none
              exists)
  stopped     why the run stopped: converged (the solver's own stopping rule:
              search complete, LP or relaxation converged, local optimum,
              KKT point) | converged-loosely | iteration-limit | time-limit |
              interrupted | infeasible | failed
  energy      energy of the assignment found (-sum ln phi; lower is better)
  log10       its UAI score, -energy / ln 10
  bound       a lower bound on the optimal energy (-Inf if none): proven by
              exact, trws and sdpad; for sdpad-lr and factor it rests on an
              iterative eigensolver not missing the smallest eigenvalue (see
              the relax/sdpad package doc)
  gap         energy - bound (0: the assignment is proven optimal)
  time        wall time in seconds
  solver      the solver used
  note        for toulbar2's .wcsp and .cfn: the bound rounded up to the
              costs' precision (integers for wcsp), which may prove the
              assignment optimal; a total cost at or beyond the file's
              bound, which toulbar2 accepts for no assignment

--json prints the same as one JSON object (the record that batch and bench
write too), with "termination" for the "stopped" line, the iterations and
rounds, the SDR figures of the SDR solvers under "sdr", the energy
convention and the assignment. Infinities and NaN are the strings "+Inf",
"-Inf", "NaN".

Solvers:
` + solverHelp() + `
Factors of arity > 2 are converted exactly to pairwise ones first (auxiliary
variables over their allowed joint configurations; see sdrmap info); the
energy reported is always that of the original model. When a solver ends
without an assignment of finite energy, a backtracking search on the
forbidden entries (search/feasible) looks for one, for at least 1 s even
past --time-limit. After a conversion or such a repair, the assignment is
improved on the original model by ICM, tree-block moves and a
large-neighbourhood search (search/lns: connected blocks of up to 60
variables re-optimized exactly by branch and bound); with --time-limit the
solver gets half of the time and the search runs until the limit or until
the bound proves the assignment optimal, without one until it stalls.

A model without evidence whose energy does not change when every variable
advances its state by one modulo the common cardinality (every table a
function of state differences: Z_m synchronization such as ORIENT, Potts
without unary terms) has its optima in orbits of that shift (sdrmap info
says "shift invariant"). Without forbidden entries, auto and cyclic solve
the relaxation reduced by that symmetry (relax/cyclic: m/2 blocks of
order n). The other solvers
fix the variable in most factors to state 0, which loses no optimum and
keeps the relaxation from averaging the m shifted copies of each solution
(--keep-symmetry turns this off).

--time-limit, Ctrl-C (SIGINT) and SIGTERM end the run with the best
assignment found so far, which is still printed and written to -o; the
run ends within about 1 s of the time limit or the signal (sdpad: of its
current iteration's end). A second signal ends it at once, without the
summary.

Without --time-limit every run ends by its solver's own rule, and a seed
gives the same energy, bound and answer on any load (budgets are counts,
not seconds):
  exact     the search is complete (models above --max-states refused)
  icm       a local optimum (or --max-iter sweeps)
  trws      its LP bound converged, or 1000 iterations (--max-iter)
  ipm-nc    a KKT point within --tol, or 10000 iterations (--max-iter)
  sdpad,    the protocol at --tol (1e-4) or a probe's proof; 1000
  sdpad-lr  iterations in a row in which the bound rose by at most --tol
            relative and the infeasibility fell by less than a tenth; 20000
            iterations (--max-iter)
  factor    the same, with 50 outer iterations for the stall and 2500
            iterations (--max-iter)
  cyclic    gap and violation within --tol (1e-6) or the rounding proven
            optimal; 10 outer iterations in a row in which neither the
            bound nor the energy moved; 1000 (--max-iter)
  auto      trws's rule, then the relaxation's
A stall or the iteration limit is reported as converged-loosely when the
relaxation meets the loose tolerance (1e-3; sdpad 1e-2), else
iteration-limit. After a relaxation, the bound's refinement makes as many
rounds as the relaxation made iterations (10 to 100) and the local
searches stop when they stall.
Exit status: 0 when an assignment of finite energy was found, 3 when the
model is infeasible, 4 when none was found (sdrmap --help lists them
all).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := flags.Settings()
			if err != nil {
				return usageError{err}
			}
			in, err := flags.Load(args[0], evid)
			if err != nil {
				return err
			}
			s.Evidence = in.Evidence
			var dst *solvecmd.OutFile
			if out != "" {
				if dst, err = solvecmd.OpenOutFile(out); err != nil {
					return err // before the solve, not after it
				}
				defer dst.Discard()
			}
			var pl *progressLine
			if verbose {
				s.Log = cmd.ErrOrStderr()
			} else if pl = newProgressLine(cmd.ErrOrStderr()); pl != nil {
				s.Progress = pl.update
			}
			ctx, stop := stopContext(cmd.ErrOrStderr(), "the best assignment so far")
			defer stop()
			res, err := sdrmap.Solve(ctx, in.Model, s)
			if pl != nil {
				pl.done()
			}
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			notes := in.Finish(res)
			summary := cmd.OutOrStdout()
			if dst != nil && dst.Stdout() {
				summary = cmd.ErrOrStderr() // stdout holds the assignment
			}
			var werr error // a failed write still prints the summary
			if res.Assignment != nil && dst != nil {
				werr = dst.Write(cmd.OutOrStdout(), func(w io.Writer) error { return uai.WriteResult(w, res.Assignment) })
			} else if dst != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "sdrmap: no feasible assignment found; %s not written\n", out)
			}
			o := solvecmd.Summary{Record: res.Record(), Convention: in.Convention, Notes: notes}
			if asJSON {
				if err := writeJSON(summary, o); err != nil {
					return err
				}
			} else {
				printSummary(summary, &o)
			}
			if werr != nil {
				return werr
			}
			return solveOutcome(res)
		},
	}
	f := c.Flags()
	f.StringVar(&evid, "evid", "", "evidence file (UAI 2014 or PIC 2011 layout)")
	f.StringVarP(&out, "output", "o", "", "write the assignment to this file (UAI result format; '-' or /dev/stdout: standard output, the summary then goes to stderr); checked before the solve, a regular file replaced at once when written, a device or FIFO written directly")
	f.BoolVar(&asJSON, "json", false, "print the summary as a JSON object (adds the assignment)")
	f.BoolVarP(&verbose, "verbose", "v", false, "print solver progress on stderr")
	flags.Register(f)
	return c
}

// solverHelp lists the registered methods with their descriptions.
func solverHelp() string {
	var b strings.Builder
	for _, m := range methods.All() {
		for k, line := range strings.Split(m.Description(), "\n") {
			name := ""
			if k == 0 {
				name = m.Name()
			}
			fmt.Fprintf(&b, "  %-9s %s\n", name, line)
		}
	}
	return b.String()
}

func printSummary(w io.Writer, o *solvecmd.Summary) {
	fmt.Fprintf(w, "answer    %s\n", o.Answer)
	fmt.Fprintf(w, "stopped   %s\n", o.Termination)
	fmt.Fprintf(w, "energy    %.9f  (%s)\n", float64(o.Energy), o.Convention)
	fmt.Fprintf(w, "log10     %.9f\n", float64(o.Log10))
	fmt.Fprintf(w, "bound     %.9f\n", float64(o.Bound))
	fmt.Fprintf(w, "gap       %.3g\n", float64(o.Gap))
	fmt.Fprintf(w, "time      %.3f s\n", o.TimeS)
	fmt.Fprintf(w, "solver    %s\n", o.Solver)
	for _, n := range o.Notes {
		fmt.Fprintf(w, "note      %s\n", n)
	}
}
