//go:build unix

package suite

import (
	"runtime"
	"syscall"
)

// maxRSSSelf is getrusage(RUSAGE_SELF) ru_maxrss in bytes, 0 if unknown.
func maxRSSSelf() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
