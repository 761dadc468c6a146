package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBatchExec: sdrmap batch runs sdrmap-batch from PATH with its
// arguments untouched and returns its exit status; without it, it says how
// to install it.
func TestBatchExec(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	_, errs, code := runCLI(t, "batch", "in", "--out", "o")
	if code != 1 || !strings.Contains(errs, "go install ./cmd/sdrmap-batch") {
		t.Errorf("without sdrmap-batch: exit %d, stderr %q", code, errs)
	}
	script := "#!/bin/sh\necho \"$@\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, batchCommand), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "batch", "in dir", "--out", "o", "--time-limit", "10", "--runner", "flink")
	if code != 3 || out != "in dir --out o --time-limit 10 --runner flink\n" {
		t.Errorf("exit %d (want 3), stdout %q, stderr %q", code, out, errs)
	}
}
