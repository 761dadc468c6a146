package jsonfloat

import (
	"encoding/json"
	"math"
	"testing"
)

// TestRoundTrip: every value, finite or not, comes back as it went, and
// the non-finite ones are the documented strings.
func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{1.5, "1.5"}, {-2e-300, "-2e-300"}, {0, "0"}, {math.Inf(1), `"+Inf"`}, {math.Inf(-1), `"-Inf"`}, {math.NaN(), `"NaN"`}} {
		b, err := json.Marshal(Float(c.v))
		if err != nil || string(b) != c.want {
			t.Fatalf("%v: %s, %v; want %s", c.v, b, err, c.want)
		}
		var f Float
		if err := json.Unmarshal(b, &f); err != nil || !(float64(f) == c.v || math.IsNaN(c.v) && math.IsNaN(float64(f))) {
			t.Fatalf("%s: read %v, %v", b, f, err)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte(`"Inf"`), &f); err == nil && !math.IsInf(float64(f), 1) {
		t.Fatalf(`"Inf" read as %v`, f)
	}
	if err := json.Unmarshal([]byte(`"x"`), &f); err == nil {
		t.Fatal(`"x" accepted`)
	}
}
