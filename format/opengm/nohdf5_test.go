//go:build !hdf5

package opengm

import (
	"errors"
	"testing"
)

func TestNoHDF5(t *testing.T) {
	if Enabled {
		t.Fatal("Enabled in a build without the hdf5 tag")
	}
	_, err := ReadFile("model.h5")
	if want := "opening model.h5: sdrmap was built without HDF5 support; install libhdf5-dev and build with -tags hdf5"; err == nil || err.Error() != want {
		t.Fatalf("ReadFile error %v, want %q", err, want)
	}
	if !errors.Is(err, ErrNoHDF5) {
		t.Fatalf("ReadFile error %v does not wrap ErrNoHDF5", err)
	}
	err = WriteFile("out.h5", "gm", nil)
	if want := "writing out.h5: sdrmap was built without HDF5 support; install libhdf5-dev and build with -tags hdf5"; err == nil || err.Error() != want {
		t.Fatalf("WriteFile error %v, want %q", err, want)
	}
}
