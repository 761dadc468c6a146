//go:build !unix

package peers

import (
	"os"
	"os/exec"
)

// setProcessGroup keeps exec's default: the context kills the process.
func setProcessGroup(cmd *exec.Cmd) {}

// maxRSS is unknown here.
func maxRSS(ps *os.ProcessState) int64 { return 0 }
