// Command sdrmap-batch solves many models as `sdrmap solve` does, on Apache
// Beam (package batch): in process by default, on a Flink, Spark or Dataflow
// cluster with --runner. Run it with --help for the flags.
package main

import (
	"os"

	"github.com/sdrmap/sdrmap/batch"
)

func main() { os.Exit(batch.Main(os.Args[1:], os.Stdout, os.Stderr)) }
