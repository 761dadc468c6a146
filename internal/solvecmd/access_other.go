//go:build !unix

package solvecmd

// checkWritable is a no-op where access(2) is not available: the write
// itself reports the error.
func checkWritable(path string) error { return nil }
