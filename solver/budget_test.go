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
// one with a deadline ends at that share of the time left, and its end
// does not end the parent.
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
	if StopStatus(none) != OutOfTime || half.Err() != nil {
		t.Errorf("zero share: %v, its parent %v", StopStatus(none), half.Err())
	}
	all, cancel := Share(run, 1)
	defer cancel()
	if ad, _ := all.Deadline(); ad != d {
		t.Error("share 1 moved the deadline")
	}
}
