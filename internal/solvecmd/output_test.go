package solvecmd

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// leftovers returns the temporary files left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	return m
}

// TestOutputCheckedFirst checks issue 45, item 3: a path that cannot be
// written fails at OpenOutFile, before any run.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{filepath.Join(dir, "missing", "x.map"), dir} {
		if _, err := OpenOutFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": ") || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("OpenOutFile(%s): error %v, want one naming the path", bad, err)
		}
	}
	// Discard leaves nothing behind, and an existing file untouched.
	path := filepath.Join(dir, "x.map")
	os.WriteFile(path, []byte("old"), 0o640)
	o, err := OpenOutFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o.Discard()
	if b, _ := os.ReadFile(path); string(b) != "old" || len(leftovers(t, dir)) > 0 {
		t.Fatalf("after Discard: %q, temporary files %v", b, leftovers(t, dir))
	}
}

// TestOutputRegular checks the rename over a regular file: its mode kept,
// a new file's mode from the umask, a failed write leaving the old file.
func TestOutputRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.map")
	os.WriteFile(path, []byte("old"), 0o640)
	if err := WriteFile(path, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || fi.Mode().Perm() != 0o640 {
		t.Errorf("wrote %q, mode %v; want new, 0640", b, fi.Mode())
	}
	fresh := filepath.Join(dir, "fresh.map")
	if err := WriteFile(fresh, writeString("x")); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(fresh)
	if want := 0o666 &^ umask(); fi.Mode().Perm() != want {
		t.Errorf("new file mode %v, want %v", fi.Mode().Perm(), want)
	}
	failed := errors.New("disk on fire")
	err := WriteFile(path, func(w io.Writer) error { io.WriteString(w, "half"); return failed })
	if !errors.Is(err, failed) || !strings.HasPrefix(err.Error(), path) {
		t.Errorf("failed write: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" || len(leftovers(t, dir)) > 0 {
		t.Errorf("after a failed write: %q, temporary files %v", b, leftovers(t, dir))
	}
	// Through a symlink: the link stays, its target is replaced.
	link := filepath.Join(dir, "link.map")
	os.Symlink("x.map", link)
	if err := WriteFile(link, writeString("via link")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(path); string(b) != "via link" {
		t.Errorf("target holds %q", b)
	}
}

// TestOutputConcurrent checks that runs writing the same path do not share
// a temporary file (main's PATH.tmp: the loser lost its result): every
// write succeeds and the file holds one of them whole.
func TestOutputConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.map")
	outs := make([]*OutFile, 8)
	for i := range outs {
		o, err := OpenOutFile(path)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = o
	}
	var wg sync.WaitGroup
	errs := make([]error, len(outs))
	for i, o := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = o.Write(nil, writeString(strings.Repeat(string(rune('a'+i)), 4096)))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	b, _ := os.ReadFile(path)
	if len(b) != 4096 || strings.Count(string(b), string(b[:1])) != 4096 || len(leftovers(t, dir)) > 0 {
		t.Errorf("file of %d bytes, mixed or temporary files left %v", len(b), leftovers(t, dir))
	}
}

// TestOutputSpecialFiles checks that devices and FIFOs are written
// directly, never replaced by a regular file (as root, main renamed
// /dev/null.tmp over /dev/null), and that standard output's names are the
// standard output.
func TestOutputSpecialFiles(t *testing.T) {
	if err := WriteFile("/dev/null", writeString("x")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is now %v (%v)", fi.Mode(), err)
	}
	if _, err := os.Stat("/dev/null.tmp"); err == nil {
		t.Error("/dev/null.tmp created")
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteFile(fifo, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v", fi.Mode())
	}
	for _, p := range []string{"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		o, err := OpenOutFile(p)
		if err != nil || !o.Stdout() {
			t.Errorf("%s: not standard output (%v)", p, err)
			continue
		}
		var b strings.Builder
		if err := o.Write(&b, writeString("ok")); err != nil || b.String() != "ok" {
			t.Errorf("%s: wrote %q, %v", p, b.String(), err)
		}
	}
	// /dev/full accepts the open and fails the write: an error naming it.
	if err := WriteFile("/dev/full", writeString("x")); err == nil || !strings.HasPrefix(err.Error(), "/dev/full: ") {
		t.Errorf("/dev/full: %v", err)
	}
}
