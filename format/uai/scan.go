package uai

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/sdrmap/sdrmap/internal/logprob"
)

// ParseError locates a problem in an input file: the file, the 1-based line
// and the 1-based index of the whitespace-separated token.
type ParseError struct {
	File  string
	Line  int
	Token int
	Msg   string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: token %d: %s", e.File, e.Line, e.Token, e.Msg)
}

// scanner splits a byte buffer into whitespace-separated tokens, tracking the
// line and token number for errors.
type scanner struct {
	file string
	data []byte
	pos  int
	line int // line of the last token
	tok  int // index of the last token
	nl   int // newlines seen before pos
}

func newScanner(file string, data []byte) *scanner {
	return &scanner{file: file, data: data}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// next returns the next token, or nil at the end of the input.
func (s *scanner) next() []byte {
	d := s.data
	i := s.pos
	for i < len(d) && isSpace(d[i]) {
		if d[i] == '\n' {
			s.nl++
		}
		i++
	}
	if i == len(d) {
		s.pos = i
		return nil
	}
	j := i
	for j < len(d) && !isSpace(d[j]) {
		j++
	}
	s.pos = j
	s.tok++
	s.line = s.nl + 1
	return d[i:j]
}

// errf reports an error at the last token.
func (s *scanner) errf(format string, args ...any) error {
	return &ParseError{File: s.file, Line: s.line, Token: s.tok, Msg: fmt.Sprintf(format, args...)}
}

// errEOF reports a missing token at the end of the input.
func (s *scanner) errEOF(what string) error {
	return &ParseError{File: s.file, Line: s.nl + 1, Token: s.tok + 1, Msg: "unexpected end of file: expected " + what}
}

// int reads a non-negative decimal integer no larger than limit.
func (s *scanner) int(what string, limit int) (int, error) {
	return s.intWhy(what, limit, "")
}

// count reads a count of items that each take at least one more token:
// no larger than the rest of the input can hold.
func (s *scanner) count(what string) (int, error) {
	return s.intWhy(what, s.room(), ", the most the rest of the file can hold (each needs a token): truncated or corrupt file?")
}

// room is the most tokens the rest of the input can hold (each takes at
// least two bytes, with its separator).
func (s *scanner) room() int { return (len(s.data)-s.pos)/2 + 1 }

// intWhy is int with why (what the limit is) appended to the error.
func (s *scanner) intWhy(what string, limit int, why string) (int, error) {
	t := s.next()
	if t == nil {
		return 0, s.errEOF(what)
	}
	v := 0
	for k, c := range t {
		if c == '+' && k == 0 && len(t) > 1 {
			continue
		}
		if c < '0' || c > '9' {
			return 0, s.errf("expected %s (a non-negative integer), found %q", what, clip(t))
		}
		v = v*10 + int(c-'0')
		if v > limit {
			return 0, s.errf("%s %s is larger than %d%s", what, clip(t), limit, why)
		}
	}
	return v, nil
}

// lnEntry reads a potential phi >= 0 of factor f and returns ln phi
// (logprob.Parse), or zero for phi = 0.
func (s *scanner) lnEntry(f int) (ln float64, zero bool, err error) {
	t := s.next()
	if t == nil {
		return 0, false, s.errEOF("entry of factor " + strconv.Itoa(f))
	}
	ln, zero, err = logprob.Parse(unsafe.String(&t[0], len(t)))
	switch err {
	case nil:
		return ln, zero, nil
	case logprob.ErrSyntax:
		return 0, false, s.errf("expected entry of factor %d (a number), found %q", f, clip(t))
	case logprob.ErrNegative:
		return 0, false, s.errf("factor %d: negative entry %s", f, clip(t))
	}
	return 0, false, s.errf("factor %d: entry %q is %v", f, clip(t), err)
}

// clip shortens a token for an error message.
func clip(t []byte) string {
	if len(t) > 40 {
		return string(t[:40]) + "..."
	}
	return string(t)
}
