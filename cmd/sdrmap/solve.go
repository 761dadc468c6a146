package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"sdrmap/format/uai"
	"sdrmap/model"
	"sdrmap/solver"
	"sdrmap/solver/exact"
)

// solveOutput is what solve prints: as text (fixed layout, one "key value"
// line each, in this order) or as JSON.
type solveOutput struct {
	Status     solver.Status `json:"status"`
	Energy     jsonFloat     `json:"energy"`
	Log10      jsonFloat     `json:"log10"`
	Bound      jsonFloat     `json:"bound"` // lower bound on the optimal energy
	Gap        jsonFloat     `json:"gap"`   // energy - bound, >= 0
	TimeS      float64       `json:"time_s"`
	Solver     string        `json:"solver"`
	Convention string        `json:"energy_convention"`
	Assignment []int         `json:"assignment"` // full assignment, file numbering, evidence included
	Nodes      int64         `json:"nodes,omitempty"`
}

func solveCmd() *cobra.Command {
	var (
		evid, out, solverName string
		asJSON, verbose       bool
		timeLimit, maxStates  float64
	)
	c := &cobra.Command{
		Use:   "solve FILE",
		Short: "Find a MAP assignment",
		Long: `solve finds a MAP assignment of FILE and prints a summary on stdout, one
"key value" line each in this order:

  status      solved | solved-inaccurate | max-iterations | time-limit |
              interrupted | infeasible | failed
  energy      energy of the assignment found (-sum ln phi; lower is better)
  log10       its UAI score, -energy / ln 10
  bound       a proven lower bound on the optimal energy (-Inf if none)
  gap         energy - bound (0 means proven optimal)
  time        wall time in seconds
  solver      the solver used

Solvers:
  exact   depth-first branch and bound; proves optimality, for small models
          (refuses more than --max-states joint states)

--time-limit and Ctrl-C end the run with the best assignment found so far,
which is still printed and written to -o.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if solverName != "exact" {
				return usagef("unknown solver %q (available: exact)", solverName)
			}
			if timeLimit < 0 || math.IsNaN(timeLimit) {
				return usagef("--time-limit must be >= 0 seconds")
			}
			m, ev, err := load(args[0], evid)
			if err != nil {
				return err
			}
			p, err := m.Pairwise(ev)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			start := time.Now()
			res, err := exact.Solve(ctx, p, exact.Settings{MaxStates: maxStates, TimeLimit: time.Duration(timeLimit * float64(time.Second))})
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			o := solveOutput{Status: res.Status, Energy: jsonFloat(res.Energy), Log10: jsonFloat(model.Log10(res.Energy)),
				Bound: jsonFloat(math.Inf(-1)), Gap: jsonFloat(math.Inf(1)), TimeS: time.Since(start).Seconds(),
				Solver: solverName, Convention: energyConvention, Nodes: res.Nodes}
			if res.Status == solver.Solved {
				o.Bound, o.Gap = o.Energy, 0
			}
			if res.Assignment != nil {
				o.Assignment = p.Expand(res.Assignment)
				if out != "" {
					if err := writeResultFile(out, o.Assignment); err != nil {
						return err
					}
				}
			} else if out != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "sdrmap: no feasible assignment found; %s not written\n", out)
			}
			if verbose {
				fmt.Fprintf(cmd.ErrOrStderr(), "exact: %d search nodes\n", res.Nodes)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), o)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "status    %s\n", o.Status)
			fmt.Fprintf(w, "energy    %.9f  (%s)\n", float64(o.Energy), energyConvention)
			fmt.Fprintf(w, "log10     %.9f\n", float64(o.Log10))
			fmt.Fprintf(w, "bound     %.9f\n", float64(o.Bound))
			fmt.Fprintf(w, "gap       %.3g\n", float64(o.Gap))
			fmt.Fprintf(w, "time      %.3f s\n", o.TimeS)
			fmt.Fprintf(w, "solver    %s\n", o.Solver)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&evid, "evid", "", "evidence file (UAI 2014 or PIC 2011 layout)")
	f.StringVarP(&out, "output", "o", "", "write the assignment to this file (UAI result format)")
	f.StringVar(&solverName, "solver", "exact", "solver: exact")
	f.BoolVar(&asJSON, "json", false, "print the summary as a JSON object (adds the assignment)")
	f.BoolVarP(&verbose, "verbose", "v", false, "print solver progress on stderr")
	f.Float64Var(&timeLimit, "time-limit", 0, "stop after this many seconds with the best assignment so far (0: none)")
	f.Float64Var(&maxStates, "max-states", exact.DefaultMaxStates, "exact: refuse models with more joint states")
	return c
}

// writeResultFile writes x in the UAI result format, via a temporary file so
// that an existing OUT is never left half written.
func writeResultFile(path string, x []int) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := uai.WriteResult(f, x); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
