// Package jsonfloat is sdrmap's one JSON encoding of numbers that JSON
// cannot hold: +Inf, -Inf and NaN are the strings "+Inf", "-Inf" and
// "NaN"; every other value is a JSON number.
package jsonfloat

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Float is a float64 with that encoding.
type Float float64

// MarshalJSON encodes f as a number, or as a string if not finite.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return json.Marshal(fmt.Sprint(v))
	}
	return json.Marshal(v)
}

// UnmarshalJSON accepts a number or one of the strings "+Inf", "-Inf", "NaN".
func (f *Float) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*f = Float(v)
		return nil
	}
	switch s {
	case "+Inf", "-Inf", "NaN":
		v, _ := strconv.ParseFloat(s, 64)
		*f = Float(v)
		return nil
	}
	return fmt.Errorf("jsonfloat: %q is not a number", s)
}
