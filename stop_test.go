package sdrmap_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/model"
)

// stopWithin is how soon after its context is cancelled every solver must
// return: about a second, with room for a loaded machine.
const stopWithin = 3 * time.Second

// TestCancelStopsEverySolver cancels the context of every registered
// solver once it is into its main stage (its first progress report, or
// after a second for those without one) on a model that keeps it busy for
// longer, and checks that Solve returns within stopWithin with an
// assignment and termination interrupted. SDPAD-LR's closing certificate
// once ran 5 eigensolver iterations after the cancel regardless (4-5 s at
// N = 200,001). The dense SDPAD gets a model whose iterations, which it
// finishes, are short.
func TestCancelStopsEverySolver(t *testing.T) {
	if testing.Short() {
		t.Skip("large instances")
	}
	grid := gen.PottsGrid(200, 200, 5, 1, 1)
	models := map[string]*model.Model{
		"cyclic": func() *model.Model { m, _ := gen.Orient(150, 8, 50, 0.7, 1); return m }(),
		"exact":  gen.Binary(29, 28, 1),
		"sdpad":  gen.PottsGrid(12, 12, 6, 1, 1),
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
			var cancelled atomic.Int64 // Unix nanoseconds
			stop := func() {
				once.Do(func() {
					time.AfterFunc(500*time.Millisecond, func() {
						cancelled.Store(time.Now().UnixNano())
						cancel()
					})
				})
			}
			time.AfterFunc(time.Second, stop)
			s := sdrmap.Settings{Solver: name, Progress: func(p sdrmap.Progress) {
				if p.Stage != "" {
					stop()
				}
			}}
			res, err := sdrmap.Solve(ctx, m, s)
			ended := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			at := time.Unix(0, cancelled.Load())
			if cancelled.Load() == 0 || ended.Before(at) {
				t.Fatalf("ended before the cancel (%v, %v): the model is too small for the test", res.Termination, res.Time)
			}
			took := ended.Sub(at)
			t.Logf("returned %v after the cancel: %v, energy %.6g, bound %.6g", took.Round(time.Millisecond), res.Termination, res.Energy, res.Bound)
			if took > stopWithin {
				t.Errorf("returned %v after the cancel, want at most %v", took.Round(time.Millisecond), stopWithin)
			}
			if res.Termination != sdrmap.Interrupted || res.Assignment == nil {
				t.Errorf("termination %v, %d values", res.Termination, len(res.Assignment))
			}
		})
	}
}
