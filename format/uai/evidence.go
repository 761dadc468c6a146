package uai

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sdrmap/sdrmap/model"
)

// intToken is an integer with its position, for errors after the layout of
// a file is known.
type intToken struct {
	v         int
	line, tok int
}

// ints reads the remaining tokens of s as non-negative integers, refusing
// more than most of them (whyMost says why).
func (s *scanner) ints(what string, most int, whyMost string) ([]intToken, error) {
	var out []intToken
	for {
		if t := s.peek(); t == nil {
			return out, nil
		}
		v, err := s.int(what, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		if len(out) == most {
			return nil, s.errf("more than %d values: %s", most, whyMost)
		}
		out = append(out, intToken{v, s.line, s.tok})
	}
}

// maxInts is the most values of an evidence or result file within lim: two
// per variable and a few counts.
func maxInts(lim model.Limits) int { return int(min(2*lim.MaxN+3, math.MaxInt32)) }

// whyInts explains maxInts.
const whyInts = "more than the variables that --max-n allows need"

// intsBytes bounds the text of an evidence or result file within lim.
func intsBytes(lim model.Limits) int64 { return 16*int64(maxInts(lim)) + 1<<20 }

// peek returns the next token without consuming it.
func (s *scanner) peek() []byte {
	save := *s
	t := s.next()
	*s = save
	return t
}

func (s *scanner) errAt(t intToken, format string, args ...any) error {
	return &ParseError{File: s.file, Line: t.line, Token: t.tok, Msg: fmt.Sprintf(format, args...)}
}

// ReadEvidenceFile reads an evidence file (plain or compressed) within
// the default limits.
func ReadEvidenceFile(path string) (model.Evidence, error) {
	return ReadEvidenceFileLimits(path, model.Limits{})
}

// ReadEvidenceFileLimits reads an evidence file of at most two values per
// variable that lim allows (and a few counts).
func ReadEvidenceFileLimits(path string, lim model.Limits) (model.Evidence, error) {
	lim = lim.OrDefault()
	data, err := ReadAllLimit(path, intsBytes(lim))
	if err != nil {
		return nil, err
	}
	return parseEvidence(path, data, lim)
}

// ParseEvidence parses evidence in either layout found in the wild:
// UAI 2014, "k v1 x1 ... vk xk", and PIC 2011 (also UAI 2008/2010), a
// number of samples followed by one such block per sample. Only one sample
// is supported. Ranges are checked against a model by Evidence.Clamps.
func ParseEvidence(name string, data []byte) (model.Evidence, error) {
	return parseEvidence(name, data, model.DefaultLimits())
}

func parseEvidence(name string, data []byte, lim model.Limits) (model.Evidence, error) {
	s := newScanner(name, data)
	toks, err := s.ints("evidence value", maxInts(lim), whyInts)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, &ParseError{File: name, Msg: "empty evidence file (write 0 for no evidence)"}
	}
	body := toks
	switch {
	case len(toks) == 1+2*toks[0].v: // UAI 2014
	case len(toks) >= 2 && toks[0].v == 1: // PIC 2011 with one sample
		body = toks[1:]
	case toks[0].v > 1 && len(toks) > 1+2*toks[0].v:
		return nil, s.errAt(toks[0], "%d evidence samples: only one sample per file is supported", toks[0].v)
	default:
		return nil, s.errAt(toks[0], "evidence count %d needs %d values after it, file has %d (UAI 2014 layout \"k v1 x1 ...\", or PIC 2011 \"1 k v1 x1 ...\")", toks[0].v, 2*toks[0].v, len(toks)-1)
	}
	k := body[0].v
	if len(body) != 1+2*k {
		return nil, s.errAt(body[0], "evidence count %d needs %d values after it, sample has %d", k, 2*k, len(body)-1)
	}
	ev := make(model.Evidence, k)
	for i := range ev {
		ev[i] = model.Observation{Var: body[1+2*i].v, Value: body[2+2*i].v}
	}
	return ev, nil
}

// ResultBytes is the largest file that can hold an assignment within lim.
func ResultBytes(lim model.Limits) int64 { return intsBytes(lim.OrDefault()) }

// ReadResultFile reads an assignment in the UAI result format within the
// default limits.
func ReadResultFile(path string) ([]int, error) {
	return ReadResultFileLimits(path, model.Limits{})
}

// ReadResultFileLimits reads an assignment of at most the variables that
// lim allows.
func ReadResultFileLimits(path string, lim model.Limits) ([]int, error) {
	lim = lim.OrDefault()
	data, err := ReadAllLimit(path, intsBytes(lim))
	if err != nil {
		return nil, err
	}
	return parseResult(path, data, lim)
}

// ParseResult parses a MAP/MPE result: a line "MAP" (or "MPE") followed by
// "n x0 ... x{n-1}" (UAI 2014), or by a sample count 1 and then that line
// (UAI 2010). Range checks against a model are the caller's (Model.Check).
func ParseResult(name string, data []byte) ([]int, error) {
	return parseResult(name, data, model.DefaultLimits())
}

func parseResult(name string, data []byte, lim model.Limits) ([]int, error) {
	s := newScanner(name, data)
	kw := s.next()
	if kw == nil {
		return nil, s.errEOF("MAP or MPE")
	}
	if k := strings.ToUpper(string(kw)); k != "MAP" && k != "MPE" {
		return nil, s.errf("expected MAP or MPE, found %q", clip(kw))
	}
	toks, err := s.ints("assignment value", maxInts(lim), whyInts)
	if err != nil {
		return nil, err
	}
	switch {
	case len(toks) == 0:
		return nil, s.errEOF("the number of variables")
	case len(toks) == 1+toks[0].v:
	case len(toks) >= 2 && toks[0].v == 1 && len(toks) == 2+toks[1].v:
		toks = toks[1:]
	default:
		return nil, s.errAt(toks[0], "result declares %d variables, then has %d values", toks[0].v, len(toks)-1)
	}
	x := make([]int, toks[0].v)
	for i := range x {
		x[i] = toks[1+i].v
	}
	return x, nil
}

// WriteResult writes x in the UAI 2014 result format: "MAP", then the
// number of variables and the values on one line.
func WriteResult(w io.Writer, x []int) error {
	b := make([]byte, 0, 16+3*len(x))
	b = append(b, "MAP\n"...)
	b = strconv.AppendInt(b, int64(len(x)), 10)
	for _, v := range x {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(v), 10)
	}
	b = append(b, '\n')
	_, err := w.Write(b)
	return err
}
