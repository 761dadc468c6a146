package solvecmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// OutFile is a file that a result will be written to, opened before the
// run that computes the result so that a path that cannot be written fails
// at once instead of after the run. A regular file (or a new one) is
// written to a temporary file of its own folder (os.CreateTemp: unique,
// so that concurrent runs with the same path do not collide) and renamed
// over it, so that it is never left half written; anything else (a device
// such as /dev/null, a FIFO) is written directly, never replaced. "-",
// /dev/stdout, /dev/fd/1 and /proc/self/fd/1 are the standard output. A
// process killed between OpenOutFile and Write or Discard leaves its
// temporary file, .NAME.*.tmp, behind.
type OutFile struct {
	path   string   // as given, for errors
	target string   // the file written or renamed over
	tmp    *os.File // temporary file, nil when written directly
	stdout bool
	mode   fs.FileMode // of the renamed file
}

// OpenOutFile checks that path can be written and, for a regular file,
// creates its temporary file. Discard removes it when there is nothing to
// write.
func OpenOutFile(path string) (*OutFile, error) {
	o := &OutFile{path: path, target: path}
	switch path {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		o.stdout = true
		return o, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	if strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/") {
		return o, checkWritable(path)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if o.target, err = filepath.EvalSymlinks(path); err != nil {
			o.target = path // dangling: written through the link
			return o, nil
		}
	}
	fi, err := os.Stat(o.target)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		return o, checkWritable(o.target)
	case err == nil:
		o.mode = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		o.mode = 0o666 &^ umask()
	default:
		return nil, fileError(path, err)
	}
	dir, base := filepath.Split(o.target)
	if dir == "" {
		dir = "."
	}
	if o.tmp, err = os.CreateTemp(dir, "."+base+".*.tmp"); err != nil {
		return nil, fileError(path, err)
	}
	return o, nil
}

// Stdout reports that the output is the standard output.
func (o *OutFile) Stdout() bool { return o.stdout }

// Write writes the result through write: to stdout (the standard output,
// when Stdout), directly, or to the temporary file renamed over the target.
// Errors name the path given to OpenOutFile.
func (o *OutFile) Write(stdout io.Writer, write func(io.Writer) error) error {
	switch {
	case o.stdout:
		return write(stdout)
	case o.tmp == nil:
		f, err := os.OpenFile(o.target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return fileError(o.path, err)
		}
		if err := write(f); err != nil {
			f.Close()
			return fileError(o.path, err)
		}
		return fileError(o.path, f.Close())
	}
	tmp := o.tmp
	o.tmp = nil
	err := write(tmp)
	if err == nil {
		err = tmp.Chmod(o.mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.target)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return fileError(o.path, err)
}

// Discard removes the temporary file, if any is left.
func (o *OutFile) Discard() {
	if o != nil && o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
	}
}

// WriteFile writes through write to path as OutFile does (a regular file
// renamed from a unique temporary file, anything else written directly;
// "-" is os.Stdout).
func WriteFile(path string, write func(io.Writer) error) error {
	o, err := OpenOutFile(path)
	if err != nil {
		return err
	}
	defer o.Discard()
	return o.Write(os.Stdout, write)
}

// fileError returns err about path: "path: cause", with the cause of an
// os.PathError or os.LinkError (which name the temporary file) unwrapped;
// nil for nil.
func fileError(path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// umask returns the process's file mode creation mask, read from
// /proc/self/status (Linux); 022 where it cannot be read.
func umask() fs.FileMode {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0o022
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return fs.FileMode(m)
			}
		}
	}
	return 0o022
}
