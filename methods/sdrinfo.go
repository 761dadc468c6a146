package methods

import (
	"encoding/json"

	"github.com/sdrmap/sdrmap/internal/jsonfloat"
)

// SDRInfo reports the paper's evaluation protocol of the last relaxation
// solved.
type SDRInfo struct {
	PrimalObjective     float64 `json:"primal_objective"`
	DualObjective       float64 `json:"dual_objective"`
	Gap                 float64 `json:"sdp_gap"`
	PrimalInfeasibility float64 `json:"primal_infeasibility"`
	DualInfeasibility   float64 `json:"dual_infeasibility"`
	Dimension           int     `json:"dimension"`
	Rank                int     `json:"rank,omitempty"`
	Restarts            int     `json:"restarts"` // restarts from the average of the iterates
	// Complement reports that the bound is that of a dual point
	// complementary to a rounded assignment (sdr.Problem.Complement: the
	// one returned or a probe's), better than the iterates' own.
	Complement bool `json:"complement"`
}

// MarshalJSON encodes the SDR figures with the field names of their tags;
// infinities and NaN as the strings "+Inf", "-Inf", "NaN" (package
// jsonfloat).
func (s SDRInfo) MarshalJSON() ([]byte, error) {
	type plain SDRInfo
	return json.Marshal(struct {
		plain
		PrimalObjective     jsonfloat.Float `json:"primal_objective"`
		DualObjective       jsonfloat.Float `json:"dual_objective"`
		Gap                 jsonfloat.Float `json:"sdp_gap"`
		PrimalInfeasibility jsonfloat.Float `json:"primal_infeasibility"`
		DualInfeasibility   jsonfloat.Float `json:"dual_infeasibility"`
	}{plain(s), jsonfloat.Float(s.PrimalObjective), jsonfloat.Float(s.DualObjective), jsonfloat.Float(s.Gap),
		jsonfloat.Float(s.PrimalInfeasibility), jsonfloat.Float(s.DualInfeasibility)})
}

// UnmarshalJSON reads what MarshalJSON writes (sdrmap-batch reads its
// records back).
func (s *SDRInfo) UnmarshalJSON(b []byte) error {
	type plain SDRInfo
	var v struct {
		plain
		PrimalObjective     jsonfloat.Float `json:"primal_objective"`
		DualObjective       jsonfloat.Float `json:"dual_objective"`
		Gap                 jsonfloat.Float `json:"sdp_gap"`
		PrimalInfeasibility jsonfloat.Float `json:"primal_infeasibility"`
		DualInfeasibility   jsonfloat.Float `json:"dual_infeasibility"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = SDRInfo(v.plain)
	s.PrimalObjective, s.DualObjective, s.Gap = float64(v.PrimalObjective), float64(v.DualObjective), float64(v.Gap)
	s.PrimalInfeasibility, s.DualInfeasibility = float64(v.PrimalInfeasibility), float64(v.DualInfeasibility)
	return nil
}
