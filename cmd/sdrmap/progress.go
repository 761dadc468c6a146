package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/sdrmap/sdrmap"
)

// progressLine shows a one-line progress indicator, rewritten in place, on
// a terminal: from one second into the run, at most four times a second.
type progressLine struct {
	mu      sync.Mutex
	w       io.Writer
	last    time.Time
	written bool
}

// newProgressLine returns a progress line on w, or nil when w is not a
// terminal.
func newProgressLine(w io.Writer) *progressLine {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progressLine{w: w}
}

func (p *progressLine) update(pr sdrmap.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.Elapsed < time.Second || time.Since(p.last) < 250*time.Millisecond {
		return
	}
	p.last = time.Now()
	line := fmt.Sprintf("%s: iteration %d, %.1fs", pr.Stage, pr.Iteration, pr.Elapsed.Seconds())
	if !math.IsInf(pr.Energy, 1) {
		line += fmt.Sprintf(", energy %.6g", pr.Energy)
	}
	if !math.IsInf(pr.Bound, -1) {
		line += fmt.Sprintf(", bound %.6g", pr.Bound)
	}
	if !math.IsNaN(pr.SDPGap) {
		line += fmt.Sprintf(", sdp gap %.1e", pr.SDPGap)
	}
	fmt.Fprintf(p.w, "\r%-79s", line)
	p.written = true
}

// done clears the line.
func (p *progressLine) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written {
		fmt.Fprintf(p.w, "\r%79s\r", "")
	}
}
