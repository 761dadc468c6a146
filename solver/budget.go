package solver

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// The time-limit contract of every solver: the run ends at most about one
// second after its limit. A solver turns its limit into a deadline on its
// context with WithLimit and hands that context to every phase, down to
// the inner loops (eigen.Settings.Stop = Done(ctx)); a phase that cannot
// check ctx must be short. StopStatus then says why ctx ended.

// WithLimit returns ctx with a deadline limit from now when limit > 0, else
// ctx as it is (with a cancel function either way).
func WithLimit(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit > 0 {
		return context.WithTimeout(ctx, limit)
	}
	return context.WithCancel(ctx)
}

// StopStatus returns TimeLimit when ctx passed its deadline, Interrupted
// when it was cancelled, and Unsolved while it runs.
func StopStatus(ctx context.Context) Status {
	switch err := ctx.Err(); {
	case err == nil:
		return Unsolved
	case errors.Is(err, context.DeadlineExceeded):
		return TimeLimit
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
