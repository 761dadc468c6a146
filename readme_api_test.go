package sdrmap_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeGoAPI runs the program of README's "Go API" section and
// compares its output with the comment that ends it.
func TestReadmeGoAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "## Go API\n")
	_, code, ok2 := strings.Cut(sec, "```go\n")
	code, _, ok3 := strings.Cut(code, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README has no Go block under ## Go API")
	}
	lines := strings.Split(strings.TrimSpace(code), "\n")
	want := strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-2]), "// ")
	dir, err := os.MkdirTemp(".", "_readme") // inside the module: its imports resolve
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\n"+code), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "run", "./"+dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != want {
		t.Fatalf("%v: got %q, want %q", err, out, want)
	}
}
