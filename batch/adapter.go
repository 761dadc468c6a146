package batch

// Every call into the sdrmap API is in this file.

import (
	"context"
	"fmt"
	"math"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/format/opengm"
	"github.com/sdrmap/sdrmap/format/toulbar2"
	"github.com/sdrmap/sdrmap/internal/jsonfloat"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

// Flags are the solve flags of `sdrmap solve`, shipped to the workers.
type Flags = solvecmd.Flags

// hdf5 reports that this build reads OpenGM HDF5 models.
const hdf5 = opengm.Enabled

// isToulbar2 reports whether name is a toulbar2 file (.wcsp or .cfn,
// plain, .gz or .xz).
func isToulbar2(name string) bool { return toulbar2.Format(name) != "" }

// checkFlags reports a bad solve flag before the batch starts.
func checkFlags(fl Flags) error {
	_, err := fl.Settings()
	return err
}

// solve runs on one model exactly what `sdrmap solve` runs (solvecmd.Load,
// the flags' settings, sdrmap.Solve) and returns its record and assignment.
// interrupted reports that ctx ended the run before its own end (Ctrl-C):
// such a run gets no record, so that a re-run solves the model again.
func solve(ctx context.Context, it Item, fl Flags) (rec Record, x []int, interrupted bool) {
	rec = Record{Input: it.Input, Evidence: it.Evidence, Seed: fl.Seed, Record: sdrmap.Record{
		Solver: fl.Solver, Energy: inf(1), Log10: inf(-1), Bound: inf(-1), Gap: inf(1)},
		InputSHA256: it.InputSHA256, EvidenceSHA256: it.EvidenceSHA256}
	defer func() {
		if p := recover(); p != nil {
			rec.Error, x = fmt.Sprintf("panic: %v", p), nil
		}
	}()
	s, err := fl.Settings()
	if err != nil {
		rec.Error = err.Error()
		return rec, nil, false
	}
	in, err := fl.LimitFlags.Load(it.Input, it.Evidence)
	if err != nil {
		rec.Error = err.Error()
		return rec, nil, false
	}
	s.Evidence = in.Evidence
	res, err := sdrmap.Solve(ctx, in.Model, s)
	if ctx.Err() != nil && (err != nil || res.Termination == sdrmap.Interrupted) {
		return rec, nil, true
	}
	if err != nil {
		rec.Error = fmt.Sprintf("%s: %v", it.Input, err)
		return rec, nil, false
	}
	notes := in.Finish(res)
	rec.Record = res.Record()
	rec.Assignment = nil // in the .MPE file
	rec.Notes = notes
	return rec, res.Assignment, false
}

// proven reports that a record's assignment is proven optimal.
func proven(r Record) bool { return r.Answer == sdrmap.Optimal }

// writeMPE writes an assignment in the UAI result format, atomically.
func writeMPE(path string, x []int) error { return solvecmd.WriteResultFile(path, x) }

func inf(sign int) jsonfloat.Float { return jsonfloat.Float(math.Inf(sign)) }
