//go:build unix

package peers

import (
	"os"
	"os/exec"
	"runtime"
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

// maxRSS returns the peak resident set size of the finished process in
// bytes (ru_maxrss: kilobytes on Linux, bytes on Darwin), 0 if unknown.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
