//go:build unix

package peers

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in its own process group and makes the
// context's cancellation kill the whole group.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
