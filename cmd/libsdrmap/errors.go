package main

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
)

// errKind tells a caller which exception an error is (the Python package
// maps them to ValueError, OSError, FileNotFoundError, TypeError and
// RuntimeError). The values are part of the C API.
type errKind int

const (
	kindOK       errKind = 0
	kindValue    errKind = 1 // malformed input: a model, an assignment, an option's value
	kindOS       errKind = 2 // a file that cannot be read or written
	kindNotFound errKind = 3 // a file that does not exist
	kindType     errKind = 4 // an unknown option
	kindRuntime  errKind = 5 // a solve that failed, an unknown handle, a recovered panic
)

// kindError is an error with the kind it reports.
type kindError struct {
	kind errKind
	err  error
}

func (e *kindError) Error() string { return e.err.Error() }
func (e *kindError) Unwrap() error { return e.err }

func valueErrorf(format string, args ...any) error {
	return &kindError{kindValue, fmt.Errorf(format, args...)}
}

// classify returns the kind of err: its own if it has one, kindNotFound
// or kindOS for file-system errors, def otherwise.
func classify(err error, def errKind) errKind {
	var ke *kindError
	var pe *fs.PathError
	switch {
	case errors.As(err, &ke):
		return ke.kind
	case errors.Is(err, fs.ErrNotExist):
		return kindNotFound
	case errors.As(err, &pe):
		return kindOS
	}
	return def
}

// guard runs f and returns its error, or a panic of f as an error of kind
// kindRuntime with the stack (a bug, to be reported, not a crash of the
// host process).
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &kindError{kindRuntime, fmt.Errorf("internal error (please report): panic: %v\n%s", r, debug.Stack())}
		}
	}()
	return f()
}
