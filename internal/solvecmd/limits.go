package solvecmd

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/sdrmap/sdrmap/model"
)

// LimitFlags are the limits on the size of the models read
// (model.Limits; 0: the default, which fits this machine's memory).
type LimitFlags struct {
	MaxEntries int64 `json:"max_entries"`
	MaxN       int64 `json:"max_n"`
}

// Register defines --max-entries and --max-n on f, bound to l.
func (l *LimitFlags) Register(f *pflag.FlagSet) {
	d := model.DefaultLimits()
	f.Int64Var(&l.MaxEntries, "max-entries", 0, fmt.Sprintf("refuse a model whose tables hold more entries in all, before reading them; a compressed file may expand to 16 bytes per entry (0: %d, from this machine's memory)", d.MaxEntries))
	f.Int64Var(&l.MaxN, "max-n", 0, fmt.Sprintf("refuse a model whose relaxation's order N = 1 + sum of the cardinalities is larger (0: %d, from this machine's memory)", d.MaxN))
}

// Limits returns the limits, checked (negative values are refused).
func (l LimitFlags) Limits() (model.Limits, error) {
	if l.MaxEntries < 0 || l.MaxN < 0 {
		return model.Limits{}, fmt.Errorf("--max-entries and --max-n must be >= 0 (0: the default)")
	}
	return model.Limits{MaxEntries: l.MaxEntries, MaxN: l.MaxN}.OrDefault(), nil
}

// Load reads a model and its evidence as Load does, within the limits.
func (l LimitFlags) Load(path, evidPath string) (*Input, error) {
	lim, err := l.Limits()
	if err != nil {
		return nil, err
	}
	return LoadLimits(path, evidPath, lim)
}
