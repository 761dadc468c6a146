package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals end a solve like its time limit: the best assignment so far
// is printed and written to -o. SIGTERM is what timeout(1), batch
// schedulers and Kubernetes send.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// stopContext returns a context that the first of stopSignals cancels,
// saying on w that the run ends with what it has (what). The handler is
// then removed, so a second signal takes the default action and ends the
// process at once, without the summary: the way out of a step that does
// not look at the context (a dense eigendecomposition of order 10^4 takes
// minutes).
func stopContext(w io.Writer, what string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, stopSignals...)
	go func() {
		select {
		case s := <-sig:
			signal.Stop(sig)
			fmt.Fprintf(w, "sdrmap: %v: ending the run with %s (a second signal ends it at once)\n", s, what)
			cancel()
		case <-ctx.Done():
			signal.Stop(sig)
		}
	}()
	return ctx, cancel
}
