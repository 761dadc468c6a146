//go:build unix

package solvecmd

import "syscall"

// checkWritable reports whether path (a device, a FIFO) can be opened for
// writing, without opening it (a FIFO's open waits for a reader).
func checkWritable(path string) error {
	return fileError(path, syscall.Access(path, 2)) // W_OK
}
