package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/bench/suite"
)

// defaultBenchSolvers are the solvers of `sdrmap bench` without --solvers.
const defaultBenchSolvers = "sdpad-lr,trws,icm,ipm-nc,toulbar2"

// Files of a bench output directory.
const (
	benchResults = "results.jsonl"
	benchTables  = "tables.md"
)

// benchCmd is `sdrmap bench SUITE` and `sdrmap bench render DIR`.
func benchCmd() *cobra.Command {
	var (
		solvers   string
		timeLimit float64
		repeat    int
		out       string
		seed      uint64
		force     bool
	)
	c := &cobra.Command{
		Use:   "bench SUITE --out DIR [flags]",
		Short: "Run the paper's experiments on a suite of instances",
		Long: `bench runs every solver of --solvers on every instance of the suite file SUITE,
--repeat times each with the time limit --time-limit, and writes to --out DIR:

  results.jsonl  one JSON record per instance and solver: status, energy, bound,
                 gap, SDP figures (objective, dual, sdp_gap, pinf) for the SDP
                 solvers, the median time (time_s) and all times, peak memory
                 (mem_source says how it was measured), a trace (per iteration
                 for sdpad and sdpad-lr: time, sdp gap, certified bound; the
                 final point for the others), the instance's sizes, the
                 machine, the sdrmap commit and the date
  tables.md      Table 1 (MAP quality per category: mean energy, share of
                 instances with the best energy, mean time; and per instance),
                 Table 2 (dataset statistics), Table 3 (SDP solvers)
  *.png          per instance: sdp_gap_NAME.png (SDP gap against time) and
                 energy_NAME.png (energy against time of the MAP solvers)

Solvers: sdrmap's own (` + strings.Join(sdrmap.Solvers(), ", ") + `) run in
process; toulbar2 (with VAC, -A) runs on the UAI file (generated instances are
written to a temporary file); csdp, sdpa and dsdp run on the SDPA export of the
relaxation. An external solver that is not installed is skipped (a line on
stderr, records of status "skipped"). Runs are deterministic per --seed: the
figures are those of the first run, the time the median of all.

Suite files: one instance per line, '#' comments:

  file PATH [--evid EVID] [category NAME] [name NAME]
  gen KIND [flags of sdrmap gen KIND] [category NAME] [name NAME]

PATH (which may be a glob) and EVID are relative to the suite file's folder.
A file's category defaults to its folder name, a generated instance's to its
kind. See bench/suites/ for the paper's suites.

"sdrmap bench render DIR" re-renders tables.md and the plots from
DIR/results.jsonl. Ctrl-C (SIGINT) or SIGTERM stops the run; the records
completed so far are kept and rendered. A second one ends it at once.`,
		Example: `  sdrmap bench bench/suites/generated.suite --solvers sdpad-lr,trws,icm,ipm-nc,toulbar2 --time-limit 60 --repeat 3 --out out/generated
  sdrmap bench bench/suites/sdp.suite --solvers sdpad,sdpad-lr,csdp,sdpa,dsdp --time-limit 600 --out out/sdp
  sdrmap bench render out/sdp`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			names := splitList(solvers)
			if err := suite.CheckSolvers(names); err != nil {
				return usageError{err}
			}
			if !(timeLimit > 0) || math.IsInf(timeLimit, 1) {
				return usagef("--time-limit must be a number of seconds > 0 (got %v)", timeLimit)
			}
			if repeat < 1 {
				return usagef("--repeat must be >= 1 (got %d)", repeat)
			}
			if out == "" {
				return usagef("--out DIR is required (the folder for results.jsonl, tables.md and the plots)")
			}
			entries, err := suite.ParseFile(args[0])
			if err != nil {
				return err
			}
			results := filepath.Join(out, benchResults)
			if _, err := os.Stat(results); err == nil && !force {
				return fmt.Errorf("%s exists: use --force to overwrite it, or 'sdrmap bench render %s' to re-render it", results, out)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			f, err := os.Create(results)
			if err != nil {
				return err
			}
			defer f.Close()
			stderr := cmd.ErrOrStderr()
			ctx, stop := stopContext(stderr, "the records completed so far")
			defer stop()
			fmt.Fprintf(stderr, "sdrmap bench: %d instances x %d solvers, %d run(s) each, time limit %gs\n",
				len(entries), len(names), repeat, timeLimit)
			recs, runErr := suite.Run(ctx, entries, suite.Options{
				Solvers: names, TimeLimit: time.Duration(timeLimit * float64(time.Second)), Repeat: repeat,
				Seed: seed, Log: stderr, CommitDir: filepath.Dir(args[0]),
				Record: func(r *suite.Record) error { return suite.WriteRecord(f, r) },
			})
			if err := f.Close(); err != nil && runErr == nil {
				runErr = err
			}
			if len(recs) > 0 {
				files, err := suite.Render(recs, out)
				if err != nil {
					return err
				}
				printWritten(cmd, out, len(recs), files)
			}
			if errors.Is(runErr, context.Canceled) {
				return fmt.Errorf("interrupted after %d of %d records; they are in %s", len(recs), len(entries)*len(names), out)
			}
			if runErr != nil {
				return runErr
			}
			failed := 0
			for _, r := range recs {
				if r.Status == suite.StatusError {
					failed++
				}
			}
			if failed > 0 {
				fmt.Fprintf(stderr, "sdrmap bench: %d run(s) failed (status \"error\" in %s)\n", failed, results)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&solvers, "solvers", defaultBenchSolvers, "comma-separated solvers: "+strings.Join(suite.ValidSolvers(), ", "))
	f.Float64Var(&timeLimit, "time-limit", 60, "time limit of every run, seconds")
	f.IntVar(&repeat, "repeat", 1, "runs per instance and solver (the median time is reported)")
	f.StringVarP(&out, "out", "o", "", "output folder (created if needed); required")
	f.Uint64Var(&seed, "seed", 0, "seed of sdrmap's randomized steps")
	f.BoolVar(&force, "force", false, "overwrite an existing results.jsonl in --out")
	c.AddCommand(benchRenderCmd())
	return c
}

// benchRenderCmd is `sdrmap bench render DIR`.
func benchRenderCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "render DIR",
		Short: "Re-render tables.md and the plots from DIR/results.jsonl",
		Long: `render reads DIR/results.jsonl (written by sdrmap bench; DIR may also name the
file itself) and writes DIR/tables.md and the plots again, exactly as the run
that wrote the records did.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, results := args[0], filepath.Join(args[0], benchResults)
			if st, err := os.Stat(dir); err == nil && !st.IsDir() {
				dir, results = filepath.Dir(dir), dir
			}
			recs, err := suite.ReadRecords(results)
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				return fmt.Errorf("%s: no records", results)
			}
			files, err := suite.Render(recs, dir)
			if err != nil {
				return err
			}
			printWritten(cmd, dir, len(recs), files)
			return nil
		},
	}
}

func printWritten(cmd *cobra.Command, dir string, records int, files []string) {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s: %d records\n", filepath.Join(dir, benchResults), records)
	for _, f := range files {
		fmt.Fprintln(w, filepath.Join(dir, f))
	}
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
