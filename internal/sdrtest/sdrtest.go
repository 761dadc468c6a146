// Package sdrtest builds SDR problems for tests.
package sdrtest

import (
	"testing"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/sdr"
)

// Problem returns the SDR (sdr.Build) of m's pairwise form, failing t on
// an error.
func Problem(t testing.TB, m *model.Model) *sdr.Problem {
	t.Helper()
	pw, err := m.Pairwise(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sdr.Build(pw)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
