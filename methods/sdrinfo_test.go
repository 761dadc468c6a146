package methods

import (
	"encoding/json"
	"math"
	"testing"
)

// TestSDRInfoRoundTrip: the SDR figures read back what they wrote, NaN and
// infinities included (sdrmap-batch failed to read a record with dinf NaN).
func TestSDRInfoRoundTrip(t *testing.T) {
	in := SDRInfo{PrimalObjective: -3, DualObjective: math.Inf(-1), Gap: math.Inf(1), PrimalInfeasibility: 1e-3,
		DualInfeasibility: math.NaN(), Dimension: 7, Rank: 2, Restarts: 1, Complement: true}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out SDRInfo
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if !math.IsNaN(out.DualInfeasibility) {
		t.Fatalf("%s read as %+v", b, out)
	}
	out.DualInfeasibility, in.DualInfeasibility = 0, 0
	if out != in {
		t.Fatalf("%s read as %+v, want %+v", b, out, in)
	}
}
