package model

import "syscall"

// physicalMemory returns the machine's memory in bytes (8 GiB if unknown).
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 8 << 30
	}
	return int64(si.Totalram) * int64(si.Unit)
}
