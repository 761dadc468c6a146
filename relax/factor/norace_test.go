//go:build !race

package factor

const raceEnabled = false
