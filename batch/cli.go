package batch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/spf13/pflag"
)

const usage = `usage: sdrmap-batch INPUT... --out DIR [solve flags] [--runner R] [Beam flags]

Solves every model of the INPUTs as "sdrmap solve" does, on Apache Beam.
INPUT is a model file (.uai, .uai.gz, .uai.xz, .uai.zip; toulbar2's .wcsp
and .cfn, plain, .gz or .xz; .h5 in an hdf5 build), a directory (searched recursively for models; X.uai.evid beside
X.uai* is its evidence) or a manifest (any other file: one "MODEL [EVIDENCE]"
per line, paths relative to the manifest, '#' comments).

DIR gets results.jsonl (one JSON record per model: input, evidence, output,
status, termination, answer, energy, log10, bound, gap, time_s, solver, seed,
error, and for toulbar2 files notes: the bound rounded up) and each
assignment as DIR/REL.MPE (REL: the model's path relative to its directory,
or its base name; X.uai.xz gives X.uai.MPE; two models with one REL.MPE
are refused). A model that fails to read or
solve gets a record of status "error" with the error, and the batch goes on.
Records are written atomically, one file each under DIR/.records, with the
SHA-256 of the model's and the evidence's bytes; a re-run with the same
--out skips the models whose record is of the same input (the same REL and
bytes), so an interrupted batch resumes without duplicates, and solves
again a model whose file changed or that another input's record occupies
(that record and its .MPE are removed first). Ctrl-C (or SIGTERM) stops:
running solves are dropped (no record, so a re-run solves them), finished
records are kept and results.jsonl is written; a second Ctrl-C kills at
once.

Exit status: 0 every model has a record without error; 1 an error of the
batch itself (an unreadable input folder, a runner that fails) or an
interrupt (the records kept); 2 a bad command line; 3 some models failed to
read or solve (their records, skipped ones included, hold the error; the
summary line counts them).

The default runner is Beam's embedded Prism runner (in process, nothing to
install). --runner flink|spark|dataflow|universal with --endpoint and
--environment_type submits the same pipeline to a job service; its workers
must see the INPUTs and DIR at the same paths. On linux/amd64 the workers
run this executable (Beam's --worker_binary, unless given; LOOPBACK runs
them in this process). --beam-help lists Beam's flags.

Flags:
`

// Main runs the sdrmap-batch command line and returns its exit status: 0 when
// every model has a record without error, 1 on an error or an interrupt, 2
// on a bad command line, 3 when models failed (ExitFailed). It calls
// beam.Init, so a Beam worker started with this binary runs the worker
// harness instead.
func Main(args []string, stdout, stderr io.Writer) int {
	var (
		cfg                Config
		beamHelp, progress bool
		logLevel           string
	)
	fs := pflag.NewFlagSet("sdrmap-batch", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage+fs.FlagUsages()) }
	fs.StringVar(&cfg.Out, "out", "", "output folder (required)")
	fs.IntVar(&cfg.Workers, "workers", runtime.NumCPU(), "models solved at once per worker process")
	fs.BoolVar(&progress, "progress", isTerminal(stderr), "show a progress line on stderr (default: when stderr is a terminal)")
	fs.StringVar(&logLevel, "beam-log-level", "warn", "level of Beam's own log on stderr: debug, info, warn or error")
	fs.BoolVar(&beamHelp, "beam-help", false, "list Beam's pipeline flags")
	cfg.Flags.Register(fs)
	fs.AddGoFlagSet(flag.CommandLine)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "runner" {
			f.Usage = "Beam runner: prism (embedded, the default), flink, spark, dataflow, universal, direct"
		} else if isGoFlag(f.Name) {
			f.Hidden = true
		}
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return 2
	}
	beamlog.LogLevel = logLevel
	beam.Init() // in worker mode (--worker) this runs the harness and exits
	if beamHelp {
		flag.CommandLine.SetOutput(stdout)
		flag.CommandLine.PrintDefaults()
		return 0
	}
	if cfg.Out == "" || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "sdrmap-batch: need INPUT... and --out DIR (see --help)")
		return 2
	}
	if err := checkFlags(cfg.Flags); err != nil {
		fmt.Fprintln(stderr, "sdrmap-batch:", err)
		return 2
	}
	cfg.Inputs, cfg.Log = fs.Args(), stderr
	if progress {
		cfg.Progress = stderr
	}
	workerBinary()
	sum, err := Run(context.Background(), cfg)
	if sum != nil {
		printSummary(stderr, sum)
	}
	if err != nil {
		fmt.Fprintln(stderr, "sdrmap-batch:", err)
		return 1
	}
	if sum.Interrupted {
		fmt.Fprintf(stderr, "sdrmap-batch: interrupted; finished records kept in %s; run the same command again to resume\n", cfg.Out)
		return 1
	}
	if n := sum.Failed(); n > 0 {
		fmt.Fprintf(stderr, "sdrmap-batch: %d of %d models failed to read or solve (status error in %s)\n", n, sum.Models, filepath.Join(cfg.Out, ResultsFile))
		return ExitFailed
	}
	return 0
}

// ExitFailed is Main's exit status when models failed to read or solve.
const ExitFailed = 3

// workerBinary makes a job service's workers run this executable (Beam's
// --worker_binary) when it can, on linux/amd64, rather than Beam's default:
// compiling the main package from its source, which needs the source
// tree and a Go toolchain. Not for the embedded runner nor LOOPBACK, whose
// workers are this process.
func workerBinary() {
	r := *runners.Runner
	if *jobopts.WorkerBinary != "" || r == "" || r == "prism" || r == "direct" ||
		strings.EqualFold(*jobopts.EnvironmentType, "LOOPBACK") || runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return
	}
	if exe, err := os.Executable(); err == nil {
		*jobopts.WorkerBinary = exe
	}
}

func printSummary(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "sdrmap-batch: %d models: %d skipped (had a record; %d of them failed), %d solved (%d proven optimal), %d failed, %d without a record\n",
		s.Models, s.Skipped, s.SkippedFailed, s.Solved, s.Proven, s.Error, s.Unfinished)
	if len(s.Counters) > 0 {
		var names []string
		for n := range s.Counters {
			names = append(names, fmt.Sprintf("%s %d", n, s.Counters[n]))
		}
		sort.Strings(names)
		fmt.Fprintln(w, "sdrmap-batch: Beam counters:", strings.Join(names, ", "))
	}
}

func isGoFlag(name string) bool { return flag.CommandLine.Lookup(name) != nil }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
