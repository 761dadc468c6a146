package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/sdrmap/sdrmap"
)

// durationFlag is a flag value given in seconds ("2.5") or as a Go
// duration ("1m30s"); negative, infinite and NaN values are refused.
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Type() string { return "duration" }

func (d *durationFlag) Set(v string) error {
	sec, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is neither seconds (2.5) nor a duration (1m30s)", v)
		}
		sec = t.Seconds()
	}
	if !(sec >= 0) || sec > math.MaxInt64/float64(time.Second) {
		return fmt.Errorf("%q: need a time >= 0 and below 290 years", v)
	}
	*d = durationFlag(sec * float64(time.Second))
	return nil
}

// checkNumbers refuses numeric solve flags out of range (exit status 2);
// 0 keeps the default where the flag says so.
func checkNumbers(s *sdrmap.Settings) error {
	switch {
	case !(s.Tol >= 0) || math.IsInf(s.Tol, 0):
		return usagef("--tol %v: need a finite tolerance >= 0 (0: the default 1e-4)", s.Tol)
	case s.MaxIter < 0:
		return usagef("--max-iter %d: need an iteration limit >= 0 (0: the solver's default)", s.MaxIter)
	case !(s.MaxStates >= 1):
		return usagef("--max-states %v: need a number of joint states >= 1", s.MaxStates)
	}
	return nil
}
