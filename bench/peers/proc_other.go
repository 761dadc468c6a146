//go:build !unix

package peers

import "os/exec"

// setProcessGroup keeps exec's default: the context kills the process.
func setProcessGroup(cmd *exec.Cmd) {}
