package sdrmap_test

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/methods"
	"github.com/sdrmap/sdrmap/model"
)

// stopCPU is how much processor time every solver may spend after its
// context is cancelled: about a second. Processor time, not wall time, so
// that the test holds on a loaded machine.
const stopCPU = time.Second

// TestCancelStopsEverySolver cancels the context of every registered
// solver once it is into its main stage (half a second after its first
// progress report or after 0.3 s, whichever is sooner) on a model that
// keeps it busy for longer, and checks that Solve returns after at most
// stopCPU of processor time with an assignment and termination
// interrupted. SDPAD-LR's closing certificate once ran 5 eigensolver
// iterations after the cancel regardless (4-5 s at N = 200,001). The dense
// SDPAD finishes its iteration: it gets a model whose iterations are
// short.
func TestCancelStopsEverySolver(t *testing.T) {
	if testing.Short() {
		t.Skip("large instances")
	}
	grid := gen.PottsGrid(200, 200, 5, 1, 1)
	models := map[string]*model.Model{
		"cyclic": func() *model.Model { m, _ := gen.Orient(150, 8, 50, 0.7, 1); return m }(),
		"exact":  gen.Binary(45, 44, 1),
		"icm":    gen.PottsGrid(600, 600, 5, 1, 1),
		"ipm-nc": gen.PottsGrid(300, 300, 5, 1, 1),
		"sdpad":  gen.PottsGrid(12, 12, 6, 1, 1),
		// The dense solvers refuse the 200 x 200 grid (N x N arrays); N = 865 here.
		"factor-dense": gen.PottsGrid(12, 12, 6, 1, 1),
	}
	for _, name := range sdrmap.Solvers() {
		t.Run(name, func(t *testing.T) {
			m := models[name]
			if m == nil {
				m = grid
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			var at atomic.Int64 // processor time at the cancel, ns
			var wall atomic.Int64
			stop := func() {
				once.Do(func() {
					time.AfterFunc(500*time.Millisecond, func() {
						at.Store(int64(cpuTime(t)))
						wall.Store(time.Now().UnixNano())
						cancel()
					})
				})
			}
			time.AfterFunc(300*time.Millisecond, stop)
			s := sdrmap.Settings{Solver: name, Progress: func(p sdrmap.Progress) {
				if p.Stage != "" {
					stop()
				}
			}}
			if name == "exact" {
				s.Options = methods.ExactOptions{MaxStates: 1e16}
			}
			res, err := sdrmap.Solve(ctx, m, s)
			cpu, ended := cpuTime(t), time.Now()
			if err != nil {
				t.Fatal(err)
			}
			if at.Load() == 0 {
				t.Fatalf("ended before the cancel (%v, %v): the model is too small for the test", res.Termination, res.Time)
			}
			took := cpu - time.Duration(at.Load())
			t.Logf("returned after %v of processor time, %v of wall time since the cancel: %v, energy %.6g, bound %.6g",
				took.Round(time.Millisecond), ended.Sub(time.Unix(0, wall.Load())).Round(time.Millisecond), res.Termination, res.Energy, res.Bound)
			if took > stopCPU {
				t.Errorf("spent %v of processor time after the cancel, want at most %v", took.Round(time.Millisecond), stopCPU)
			}
			if res.Termination != sdrmap.Interrupted || res.Assignment == nil {
				t.Errorf("termination %v, %d values", res.Termination, len(res.Assignment))
			}
		})
	}
}

// cpuTime returns the processor time (user and system) of the process.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
