package solver

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// The clock of every solver: the deadline of its context is the only time
// limit. A solver hands its context to every phase, down to the inner
// loops (eigen.Settings.Stop = Done(ctx)); a phase that cannot check ctx
// must be short. A phase that may take only part of the time left runs
// under Share(ctx, f). StopStatus then says why ctx ended.

// Share returns ctx with its deadline brought forward to now + share times
// the time ctx has left, or ctx as it is (with a cancel function either
// way) when it has no deadline or share >= 1.
func Share(ctx context.Context, share float64) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok || share >= 1 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, time.Now().Add(time.Duration(share*float64(time.Until(d)))))
}

// HasDeadline reports whether ctx has a deadline: the run has a time limit
// and wants it used (more searches, no stall limit).
func HasDeadline(ctx context.Context) bool {
	_, ok := ctx.Deadline()
	return ok
}

// StopStatus returns OutOfTime when ctx passed its deadline, Interrupted
// when it was cancelled, and Unsolved while it runs.
func StopStatus(ctx context.Context) Status {
	switch err := ctx.Err(); {
	case err == nil:
		return Unsolved
	case errors.Is(err, context.DeadlineExceeded):
		return OutOfTime
	default:
		return Interrupted
	}
}

// Done returns a function that reports whether ctx has ended, for loops
// configured by a Stop hook.
func Done(ctx context.Context) func() bool {
	return func() bool { return ctx.Err() != nil }
}

// Grace returns a function that reports whether ctx ended more than grace
// ago (false while ctx runs), for a closing step that may overrun an
// interrupt or a deadline by a little; release frees it.
func Grace(ctx context.Context, grace time.Duration) (over func() bool, release func()) {
	var done atomic.Bool
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, func() { done.Store(true) }) })
	return done.Load, func() { stop() }
}

// StallShrink is the factor by which a relaxation's primal infeasibility
// must fall to count as progress for the solvers' stall rules (the
// Settings.Stall of factor and sdpad).
const StallShrink = 0.9
