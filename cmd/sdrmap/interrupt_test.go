package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/jsonfloat"
)

// TestMain lets the interrupt test run the command line in a child
// process (the test binary itself, with SDRMAP_MAIN_ARGS set).
func TestMain(m *testing.M) {
	if args := os.Getenv("SDRMAP_MAIN_ARGS"); args != "" {
		os.Exit(run(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestInterrupt sends SIGINT, then SIGTERM (what timeout(1) and batch
// schedulers send), to `sdrmap solve --solver sdpad-lr` one second into the
// relaxation (its -v header marks the start; a signal during the parsing,
// before solve listens, would just end the process) on a 200 x 200 Potts
// grid with 5 labels (N = 200,001) and checks that it exits 0 with status
// interrupted, a bound not above the energy (-Inf when no certificate was
// made before the signal: the closing one gets only a moment after it),
// and a valid assignment in the -o file. Before SIGTERM was handled, it
// killed the run with no summary and no -o file.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("large instance")
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "grid.uai")
	if _, errs, code := runCLI(t, "gen", "potts", "--rows", "200", "--cols", "200", "--labels", "5", "-o", model); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	m, err := uai.ReadModelFile(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			res := filepath.Join(dir, sig.String()+".MAP")
			out, errs := runChild(t, []string{"solve", model, "--solver", "sdpad-lr", "--json", "-v", "-o", res}, "sdpad-lr: N = ", sig)
			var o struct {
				Termination, Solver string
				Energy, Bound       jsonfloat.Float
				Assignment          []int
			}
			if err := json.Unmarshal(out, &o); err != nil {
				t.Fatalf("%v: %s\n%s", err, out, errs)
			}
			if e, b := float64(o.Energy), float64(o.Bound); o.Termination != "interrupted" || math.IsInf(b, 1) || math.IsNaN(b) || b > e || len(o.Assignment) != 40000 {
				t.Fatalf("termination %q, energy %v, bound %v, %d values", o.Termination, o.Energy, o.Bound, len(o.Assignment))
			}
			x, err := uai.ReadResultFile(res)
			if err != nil {
				t.Fatal(err)
			}
			if e := m.Energy(x); math.Abs(e-float64(o.Energy)) > 1e-9*(1+math.Abs(e)) {
				t.Fatalf("written assignment has energy %v, reported %v", e, o.Energy)
			}
		})
	}
}

// TestSecondSignal: a second SIGINT, sent once the first has been
// acknowledged on stderr, ends the run at once (the same run as
// TestInterrupt takes about 1.8 s to finish after one): the child dies of
// the signal, without a summary.
func TestSecondSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("large instance")
	}
	model := filepath.Join(t.TempDir(), "grid.uai")
	if _, errs, code := runCLI(t, "gen", "potts", "--rows", "200", "--cols", "200", "--labels", "5", "-o", model); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SDRMAP_MAIN_ARGS="+strings.Join([]string{"solve", model, "--solver", "sdpad-lr", "-v"}, "\x1f"))
	var out bytes.Buffer
	errb := newWatcher("sdpad-lr: N = ", "a second signal ends it at once")
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errb.await(t, cmd, 0)
	time.Sleep(time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	errb.await(t, cmd, 1)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT || out.Len() > 0 {
		t.Fatalf("after a second SIGINT: %v, stdout %q, stderr %s", cmd.ProcessState, out.String(), errb.String())
	}
	t.Logf("ended %v after the second SIGINT", time.Since(sent).Round(time.Millisecond))
}

// runChild runs the command line args in a child process, sends it sig one
// second after its stderr shows mark, and returns its stdout and stderr;
// it fails the test unless the child exits 0.
func runChild(t *testing.T, args []string, mark string, sig os.Signal) ([]byte, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SDRMAP_MAIN_ARGS="+strings.Join(args, "\x1f"))
	var out bytes.Buffer
	errb := newWatcher(mark)
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errb.await(t, cmd, 0)
	time.Sleep(time.Second)
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	t.Logf("exited %v after %v", time.Since(sent).Round(time.Millisecond), sig)
	return out.Bytes(), errb.String()
}

// watcher is the child's stderr: it closes seen[i] once want[i] has been
// written.
type watcher struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want []string
	seen []chan struct{}
}

func newWatcher(want ...string) *watcher {
	w := &watcher{want: want}
	for range want {
		w.seen = append(w.seen, make(chan struct{}))
	}
	return w
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := w.buf.String()
	w.buf.Write(p)
	for i, m := range w.want {
		if !strings.Contains(before, m) && strings.Contains(w.buf.String(), m) {
			close(w.seen[i])
		}
	}
	return len(p), nil
}

func (w *watcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// await waits up to two minutes for want[i] on the child's stderr.
func (w *watcher) await(t *testing.T, cmd *exec.Cmd, i int) {
	t.Helper()
	select {
	case <-w.seen[i]:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%q did not appear within 2 minutes: %s", w.want[i], w.String())
	}
}
