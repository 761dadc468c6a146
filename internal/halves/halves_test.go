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
