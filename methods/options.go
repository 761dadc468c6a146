package methods

import "github.com/sdrmap/sdrmap/relax/driver"

// The options of each method (Run.Options). The zero value of every field
// means the method's default, which is also the command line's.

// ExactOptions are the options of exact.
type ExactOptions struct {
	MaxStates float64 // refuse models with more joint states; 0: exact.DefaultMaxStates
}

// ICMOptions are the options of icm.
type ICMOptions struct {
	MaxSweeps int // 0: until a local optimum
}

// TRWSOptions are the options of trws.
type TRWSOptions struct {
	MaxIter int // 0: trws's default
}

// IPMNCOptions are the options of ipm-nc.
type IPMNCOptions struct {
	MaxIter int     // 0: ipmnc's default
	Tol     float64 // KKT tolerance; 0: ipmnc's default
}

// RelaxOptions are the options of the relaxation methods factor and
// cyclic, and part of SDPADOptions.
type RelaxOptions struct {
	Tol      float64 // relative tolerance on the SDR gap and infeasibility; 0: the solver's default
	MaxIter  int     // 0: the solver's default
	Rank     int     // initial rank of the factor of Xbar (sdpad-lr, factor, cyclic); 0: the solver's default
	MaxRank  int     // largest rank; 0: the solver's default
	Rounding string  // RoundSample ("" too) or RoundIterative (not cyclic)
	NoProbe  bool    // never stop the relaxation early on an assignment proven optimal (not cyclic)
}

// SDPADOptions are the options of sdpad and sdpad-lr.
type SDPADOptions struct {
	RelaxOptions
	NoRestart bool // no restarts from the average of the iterates (sdpad.Settings.RestartEvery)
	NoAccel   bool // no Anderson acceleration of the iteration (sdpad.Settings.Anderson)
}

// AutoOptions are the options of auto: those of TRW-S, and those of the
// relaxation method it picks (the SDPAD fields reach sdpad and sdpad-lr
// only).
type AutoOptions struct {
	TRWS  TRWSOptions
	Relax SDPADOptions
}

// Roundings of the relaxation methods (RelaxOptions.Rounding).
const (
	RoundSample    = driver.RoundSample    // argmax and randomized roundings from a factor of Xbar
	RoundIterative = driver.RoundIterative // the paper's iterative rounding
)
