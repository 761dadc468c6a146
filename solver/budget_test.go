package solver

import (
	"context"
	"testing"
	"time"
)

func TestStopStatus(t *testing.T) {
	ctx, cancel := WithLimit(context.Background(), 0)
	if _, ok := ctx.Deadline(); ok || StopStatus(ctx) != Unsolved || Done(ctx)() {
		t.Fatal("no limit: want no deadline, Unsolved")
	}
	cancel()
	if StopStatus(ctx) != Interrupted || !Done(ctx)() {
		t.Fatalf("cancelled: %v", StopStatus(ctx))
	}
	ctx, cancel = WithLimit(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if StopStatus(ctx) != TimeLimit {
		t.Fatalf("deadline: %v", StopStatus(ctx))
	}
}
