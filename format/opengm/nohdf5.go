//go:build !hdf5

package opengm

import (
	"fmt"

	"github.com/sdrmap/sdrmap/model"
)

// Enabled reports whether this build can read and write HDF5 files (built
// with the tag hdf5).
const Enabled = false

// ReadFile would read an OpenGM model; this build has no HDF5 support and
// returns an error wrapping ErrNoHDF5.
func ReadFile(arg string) (*model.Model, error) {
	file, _ := SplitPath(arg)
	return nil, fmt.Errorf("opening %s: %w", file, ErrNoHDF5)
}

// ReadFileLimits would read an OpenGM model within lim; this build has no
// HDF5 support and returns an error wrapping ErrNoHDF5.
func ReadFileLimits(arg string, lim model.Limits) (*model.Model, error) { return ReadFile(arg) }

// WriteFile would write an OpenGM model; this build has no HDF5 support and
// returns an error wrapping ErrNoHDF5.
func WriteFile(path, group string, m *model.Model) error {
	return fmt.Errorf("writing %s: %w", path, ErrNoHDF5)
}
