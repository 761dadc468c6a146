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

// progressLine shows a one-line progress indicator on a terminal,
// rewritten in place from one second into the run, four times a second
// whether or not the solver reported since: the stage, its iteration, the
// elapsed time, and the best energy and best bound of all stages so far
// (the ones the summary prints, unless it discards a bound above the
// energy).
type progressLine struct {
	mu      sync.Mutex
	w       io.Writer
	start   time.Time
	last    sdrmap.Progress // the last report, with the best energy and bound
	written bool
	quit    chan struct{}
	wg      sync.WaitGroup
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
	return startProgress(w, time.Second, 250*time.Millisecond)
}

// startProgress draws the line on w every `every`, from delay on.
func startProgress(w io.Writer, delay, every time.Duration) *progressLine {
	p := &progressLine{w: w, start: time.Now(), quit: make(chan struct{}),
		last: sdrmap.Progress{Stage: "reading", Energy: math.Inf(1), Bound: math.Inf(-1), SDPGap: math.NaN()}}
	p.wg.Go(func() {
		select {
		case <-time.After(delay):
		case <-p.quit:
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			p.draw()
			select {
			case <-tick.C:
			case <-p.quit:
				return
			}
		}
	})
	return p
}

// update records a report of the solver.
func (p *progressLine) update(pr sdrmap.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.Energy > p.last.Energy || math.IsNaN(pr.Energy) {
		pr.Energy = p.last.Energy
	}
	if pr.Bound < p.last.Bound || math.IsNaN(pr.Bound) {
		pr.Bound = p.last.Bound
	}
	p.last = pr
}

func (p *progressLine) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.last
	line := fmt.Sprintf("%s %.1fs", pr.Stage, time.Since(p.start).Seconds())
	if pr.Iteration > 0 {
		line += fmt.Sprintf(", iteration %d", pr.Iteration)
	}
	if !math.IsInf(pr.Energy, 1) {
		line += fmt.Sprintf(", best energy %.9g", pr.Energy)
	}
	if !math.IsInf(pr.Bound, -1) {
		line += fmt.Sprintf(", best bound %.9g", pr.Bound)
	}
	if !math.IsNaN(pr.SDPGap) {
		line += fmt.Sprintf(", sdp gap %.1e", pr.SDPGap)
	}
	fmt.Fprintf(p.w, "\r%-79s", line)
	p.written = true
}

// done stops the redrawing and clears the line.
func (p *progressLine) done() {
	close(p.quit)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written {
		fmt.Fprintf(p.w, "\r%79s\r", "")
	}
}
