package solvecmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/methods"
)

// TestWriteResultFile checks the written file and that a failed write
// names the path asked for, not its temporary file.
func TestWriteResultFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.MAP")
	if err := WriteResultFile(path, []int{1, 0, 2}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "MAP\n3 1 0 2\n" {
		t.Fatalf("wrote %q (%v)", b, err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left behind: %v", err)
	}
	bad := filepath.Join(dir, "missing", "x.MAP")
	err = WriteResultFile(bad, []int{0})
	if err == nil || !strings.HasPrefix(err.Error(), bad+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("error %v, want one about %s", err, bad)
	}
}

// TestDefaults: the flags' defaults give the zero sdrmap.Settings (with
// the default method named and its zero options), so that the command and
// the Go API run the same solve by default.
func TestDefaults(t *testing.T) {
	var fl Flags
	f := pflag.NewFlagSet("solve", pflag.ContinueOnError)
	fl.Register(f)
	if err := f.Parse(nil); err != nil {
		t.Fatal(err)
	}
	s, err := fl.Settings()
	if err != nil {
		t.Fatal(err)
	}
	want := sdrmap.Settings{Solver: sdrmap.DefaultSolver, Options: methods.AutoOptions{}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("default flags give %+v, want %+v", s, want)
	}
}
