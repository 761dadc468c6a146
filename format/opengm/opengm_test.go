package opengm

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsHDF5AndSplitPath(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "m.h5")
	user := filepath.Join(dir, "userblock.h5")
	text := filepath.Join(dir, "m.uai")
	colon := filepath.Join(dir, "odd:name.h5")
	sig := string(hdf5Signature)
	for p, data := range map[string]string{
		plain: sig + "rest of the superblock",
		user:  string(make([]byte, 512)) + sig + "superblock",
		text:  "MARKOV\n1\n2\n0\n",
		colon: sig,
	} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for arg, want := range map[string]bool{
		plain: true, plain + ":gm": true, plain + ":a/b": true, user: true, colon: true,
		text: false, text + ":gm": false, filepath.Join(dir, "missing.h5"): false,
	} {
		if got := IsHDF5(arg); got != want {
			t.Errorf("IsHDF5(%q) = %v, want %v", arg, got, want)
		}
	}
	for arg, want := range map[string][2]string{
		plain:           {plain, ""},
		plain + ":gm":   {plain, "gm"},
		plain + ":a/b":  {plain, "a/b"},
		plain + ":":     {plain, ""},
		colon:           {colon, ""},
		"missing.h5:gm": {"missing.h5:gm", ""},
		"no-colon.h5":   {"no-colon.h5", ""},
	} {
		if f, g := SplitPath(arg); f != want[0] || g != want[1] {
			t.Errorf("SplitPath(%q) = %q, %q; want %q, %q", arg, f, g, want[0], want[1])
		}
	}
}
