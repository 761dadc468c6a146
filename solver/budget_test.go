package solver

import (
	"context"
	"testing"
	"time"
)

func TestStopStatus(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if HasDeadline(ctx) || StopStatus(ctx) != Unsolved || Done(ctx)() {
		t.Fatal("no limit: want no deadline, Unsolved")
	}
	cancel()
	if StopStatus(ctx) != Interrupted || !Done(ctx)() {
		t.Fatalf("cancelled: %v", StopStatus(ctx))
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if StopStatus(ctx) != OutOfTime {
		t.Fatalf("deadline: %v", StopStatus(ctx))
	}
}

// TestShare: a share of a context without deadline has none; a share of
// one with a deadline ends at that share of the time left, while Late
// still follows the run's deadline, also through a share of a share.
func TestShare(t *testing.T) {
	ctx, cancel := Share(context.Background(), 0.5)
	if HasDeadline(ctx) {
		t.Error("share of no deadline has one")
	}
	cancel()
	run, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	d, _ := run.Deadline()
	half, cancel := Share(run, 0.5)
	defer cancel()
	hd, _ := half.Deadline()
	if left := time.Until(hd); left > 31*time.Minute || left < 29*time.Minute {
		t.Errorf("half of an hour: %v left", left)
	}
	none, cancel := Share(half, 0)
	defer cancel()
	<-none.Done()
	if StopStatus(none) != OutOfTime || Late(none) || Late(half) {
		t.Errorf("zero share: %v, late %v", StopStatus(none), Late(none))
	}
	if all, _ := Share(run, 1); func() time.Time { t, _ := all.Deadline(); return t }() != d {
		t.Error("share 1 moved the deadline")
	}
	past, cancel := context.WithDeadline(context.Background(), time.Now())
	defer cancel()
	sub, cancel := Share(past, 0.5)
	defer cancel()
	if !Late(sub) {
		t.Error("past the run's deadline, not late")
	}
}
