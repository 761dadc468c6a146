//go:build !unix

package suite

// maxRSSSelf is unknown here.
func maxRSSSelf() int64 { return 0 }
