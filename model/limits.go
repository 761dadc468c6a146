package model

import "fmt"

// Limits bounds the size of a model that the readers accept, checked as
// the headers are read and before the tables are allocated, so that a small
// or corrupt file cannot exhaust the memory: an input beyond a limit is an
// error naming the file, the line and the limit.
type Limits struct {
	// MaxEntries bounds the table entries of all factors together (a
	// factor has at least one, so it also bounds the number of factors).
	MaxEntries int64
	// MaxN bounds the order N = 1 + sum_i m_i of the lifted matrix of the
	// relaxation, hence the number
	// of variables and every cardinality.
	MaxN int64
}

// DefaultLimits are the limits that fit this machine's memory M: M/512
// table entries (about 9 bytes each in the model, as much again in its
// pairwise view, 16 bytes of text each: MaxBytes) and N up to M/4096 (the
// low-rank relaxations hold a few N x 64 factors). A zero field of Limits
// means its default.
func DefaultLimits() Limits {
	m := physicalMemory()
	return Limits{MaxEntries: max(m/512, 1<<20), MaxN: max(m/4096, 1<<16)}
}

// OrDefault returns l with its zero fields set to DefaultLimits'.
func (l Limits) OrDefault() Limits {
	d := DefaultLimits()
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxN <= 0 {
		l.MaxN = d.MaxN
	}
	return l
}

// MaxBytes bounds the size of a model file's text, after decompression:
// 16 bytes per table entry allowed (a decimal entry with its separator
// seldom needs more) and 1 MiB.
func (l Limits) MaxBytes() int64 { return 16*l.MaxEntries + 1<<20 }

// ErrEntries and ErrN describe a limit exceeded, for the readers' errors.
func (l Limits) ErrEntries(what string, n int64) string {
	return fmt.Sprintf("%s: %d table entries, more than the limit %d (--max-entries raises it)", what, n, l.MaxEntries)
}

// ErrN describes the lifted dimension n beyond MaxN.
func (l Limits) ErrN(n int64) string {
	return fmt.Sprintf("the lifted dimension N = 1 + sum of the cardinalities reaches %d, more than the limit %d (--max-n raises it)", n, l.MaxN)
}
