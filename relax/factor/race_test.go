//go:build race

package factor

// raceEnabled: the race detector slows the solver about tenfold, so tests
// that give it a time limit give it more.
const raceEnabled = true
