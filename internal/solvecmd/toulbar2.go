package solvecmd

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/format/toulbar2"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/solver"
)

// Energy conventions of toulbar2's files.
const (
	Toulbar2Convention         = "sum of toulbar2 costs"
	Toulbar2MaximizeConvention = "-(sum of toulbar2 costs), which toulbar2 maximizes"
)

func (in *Input) loadToulbar2(path string, lim model.Limits) error {
	p, err := toulbar2.ReadFileLimits(path, lim)
	if err != nil {
		return err
	}
	in.Model, in.Toulbar2, in.Convention = p.Model, p, Toulbar2Convention
	if p.Maximize {
		in.Convention = Toulbar2MaximizeConvention
	}
	return nil
}

// Notes returns what a reader of energy e should know about it beyond its
// value: for a toulbar2 file, that its total cost reaches the file's bound
// (toulbar2 accepts no such assignment).
func (in *Input) Notes(e float64) []string {
	p := in.Toulbar2
	if p == nil || math.IsInf(e, 1) || p.Feasible(e) {
		return nil
	}
	return []string{fmt.Sprintf("total cost %s reaches the file's bound %s%s: toulbar2 accepts no such assignment",
		fmtNum(p.Cost(e)), map[bool]string{false: "<", true: ">"}[p.Maximize], fmtNum(p.Bound))}
}

// Finish completes a solve's result for the file it came from and returns
// notes for the output: on a toulbar2 file whose costs are all multiples of
// 10^-p (integers for wcsp), every energy is such a multiple, so the bound
// is rounded up to the next one (toulbar2 does the same); when the rounded
// bound meets the energy the answer becomes optimal, and a note says so.
func (in *Input) Finish(r *sdrmap.Result) []string {
	p := in.Toulbar2
	if p == nil || r == nil {
		return nil
	}
	notes := in.Notes(r.Energy)
	b := p.RoundBound(r.Bound)
	if !(b > r.Bound) {
		return notes
	}
	r.Bound = b
	r.Gap = max(0, r.Energy-b)
	if math.IsInf(r.Energy, 1) {
		r.Gap = math.Inf(1)
	}
	what := "integers"
	if p.Precision > 0 {
		what = "multiples of " + strconv.FormatFloat(p.Resolution(), 'f', -1, 64)
	}
	note := fmt.Sprintf("bound rounded up to %s: the costs are %s", fmtNum(b), what)
	if r.Answer == sdrmap.Feasible && solver.Proven(r.Energy, r.Bound) {
		r.Answer = sdrmap.Optimal
		note += "; it proves the assignment optimal"
	}
	return append(notes, note)
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
