package main

import (
	"os"
	"syscall"
)

// stopSignals end a solve like its time limit: the best assignment so far
// is printed and written to -o. SIGTERM is what timeout(1), batch
// schedulers and Kubernetes send.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}
