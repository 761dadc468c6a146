package main

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sdrmap/sdrmap"
)

// syncBuffer is a strings.Builder safe for the drawing goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressLine: the line shows the stage and the best energy and bound
// over all stages (a relaxation's weaker bound does not replace TRW-S's,
// as on 6f63ac0: -428315 shown, -21288 printed), and is redrawn while no
// stage reports (6f63ac0 was silent during TRW-S and the closing phases).
func TestProgressLine(t *testing.T) {
	var buf syncBuffer
	p := startProgress(&buf, 0, 5*time.Millisecond)
	p.update(sdrmap.Progress{Stage: "trws", Energy: -21264.5, Bound: -21292.9, SDPGap: math.NaN()})
	p.update(sdrmap.Progress{Stage: "relaxation", Iteration: 40, Energy: math.Inf(1), Bound: -428315, SDPGap: 0.5})
	time.Sleep(50 * time.Millisecond)
	first := buf.String()
	time.Sleep(50 * time.Millisecond)
	p.done()
	all := buf.String()
	lines := strings.Split(all, "\r")
	last := lines[len(lines)-3] // the last drawn line, before the clearing one
	for _, want := range []string{"relaxation ", "iteration 40", "best energy -21264.5", "best bound -21292.9", "sdp gap 5.0e-01"} {
		if !strings.Contains(last, want) {
			t.Errorf("line %q lacks %q", last, want)
		}
	}
	if len(all) <= len(first) {
		t.Error("no redraw without reports")
	}
	if !strings.HasSuffix(all, "\r"+strings.Repeat(" ", 79)+"\r") {
		t.Error("line not cleared")
	}
}
