// Package halves runs a loop in two fixed halves on two goroutines. The
// halves do not depend on GOMAXPROCS, so neither do sums combined from
// them: results are the same on one core and on two.
package halves

// Run calls f(0) and f(1) at once, f(1) on a new goroutine, and returns
// when both have returned.
func Run(f func(half int)) {
	done := make(chan struct{})
	go func() {
		f(1)
		close(done)
	}()
	f(0)
	<-done
}

// Range returns half h (0 or 1) of [0, n): [0, n/2) or [n/2, n).
func Range(n, h int) (lo, hi int) {
	if h == 0 {
		return 0, n / 2
	}
	return n / 2, n
}

// Each calls f(0, n) when n < from, else f on the two halves of [0, n) at
// once (Run).
func Each(n, from int, f func(lo, hi int)) {
	if n < from {
		f(0, n)
		return
	}
	Run(func(h int) { f(Range(n, h)) })
}
