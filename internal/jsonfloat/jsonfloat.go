// Package jsonfloat is sdrmap's one JSON encoding of floating-point
// numbers, which JSON cannot hold when not finite: +Inf, -Inf and NaN are
// the strings "+Inf", "-Inf" and "NaN"; every other value is a number in
// its shortest round-trip form. The Go API (sdrmap.Result), the CLI's
// --json and the bench records all use it.
package jsonfloat

import (
	"fmt"
	"math"
	"strconv"
)

// Float is a float64 with that encoding.
type Float float64

// MarshalJSON writes finite values as numbers, others as strings.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, "+Inf", "-Inf", "NaN" or null (NaN).
func (f *Float) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*f = Float(math.NaN())
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("bad number %s", b)
	}
	*f = Float(v)
	return nil
}
