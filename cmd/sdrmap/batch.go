package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// batchCommand is the batch module's command, kept out of this binary so
// that sdrmap does not carry Apache Beam.
const batchCommand = "sdrmap-batch"

// batchCmd is `sdrmap batch`: it runs sdrmap-batch, found beside this
// executable or on PATH, with the same arguments and exit status.
func batchCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "batch INPUT... --out DIR [solve flags] [--runner R]",
		Short: "Solve many models on Apache Beam (runs " + batchCommand + ")",
		Long: `batch solves every model of the INPUTs as solve does, on Apache Beam: in
process by default, on a Flink, Spark or Dataflow cluster with --runner. It
runs the ` + batchCommand + ` command of the batch module (built apart so that
sdrmap does not carry Apache Beam), found beside this executable or on PATH;
install it from a checkout with

  cd batch && go install ./cmd/` + batchCommand + `

"sdrmap batch --help" shows its flags.`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			exe := batchCommand
			if self, err := os.Executable(); err == nil {
				if p := filepath.Join(filepath.Dir(self), batchCommand); isExecutable(p) {
					exe = p
				}
			}
			c := exec.Command(exe, args...)
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := c.Start(); err != nil {
				return fmt.Errorf("%w; install it from a checkout: cd batch && go install ./cmd/%s", err, batchCommand)
			}
			// Ctrl-C reaches the child from the terminal; a SIGTERM sent to
			// this process is passed on.
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			go func() {
				for s := range sig {
					if s == syscall.SIGTERM {
						c.Process.Signal(s)
					}
				}
			}()
			err := c.Wait()
			signal.Stop(sig)
			close(sig)
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() > 0 {
				return exitStatus{code: ee.ExitCode()}
			}
			return err
		},
	}
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
