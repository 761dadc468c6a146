package certify

// StallRounds and StallShare expose Refine's stall rule to the tests.
const (
	StallRounds = stallRounds
	StallShare  = stallShare
)
