package driver

// IterativeRound exposes iterativeRound to the external tests, which need
// a relaxation solver (package sdpad imports this one).
var IterativeRound = iterativeRound

// CloseBound and DenseBound expose the closing certificates.
var (
	CloseBound = closeBound
	DenseBound = denseBound
)
