package halves

import "testing"

// TestRun checks that the halves cover [0, n) once each, for even, odd and
// tiny n, and that Run waits for both.
func TestRun(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		seen := make([]int, n)
		Run(func(h int) {
			lo, hi := Range(n, h)
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n %d: index %d covered %d times", n, i, c)
			}
		}
	}
}

// TestEach: below from one call covers [0, n); from there on the two
// halves do, each once.
func TestEach(t *testing.T) {
	for _, c := range []struct{ n, from, calls int }{{10, 11, 1}, {11, 11, 2}, {7, 2, 2}} {
		seen := make([]int, c.n)
		var calls [2]int
		Each(c.n, c.from, func(lo, hi int) {
			h := 0
			if lo > 0 {
				h = 1
			}
			calls[h]++
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, k := range seen {
			if k != 1 {
				t.Fatalf("n %d from %d: index %d covered %d times", c.n, c.from, i, k)
			}
		}
		if calls[0]+calls[1] != c.calls {
			t.Errorf("n %d from %d: %d calls, want %d", c.n, c.from, calls[0]+calls[1], c.calls)
		}
	}
}
