package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
	"github.com/sdrmap/sdrmap/model"
)

// options are the settings of a solve as a JSON object: the flags of
// `sdrmap solve` under their JSON names (solvecmd.Flags: "solver",
// "time_limit" in seconds, "seed", "tol", ...), with the command's defaults
// for the fields not given, and
//
//	"verbose": true       the iteration table on the standard error
//	"evidence": [[v, x]]  variable v observed at state x, instead of the model's own evidence
type options struct {
	solvecmd.Flags
	Verbose  bool      `json:"verbose"`
	Evidence *[][2]int `json:"evidence"`
}

// defaultOptions returns the options of `sdrmap solve` without flags.
func defaultOptions() options {
	var o options
	o.Flags.Register(pflag.NewFlagSet("solve", pflag.ContinueOnError))
	return o
}

// optionNames lists the keys options accepts.
func optionNames() []string {
	b, _ := json.Marshal(defaultOptions())
	var keys map[string]json.RawMessage
	json.Unmarshal(b, &keys)
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// parseOptions reads a JSON object of options over the defaults and checks
// them as the command checks its flags. An unknown key is an error of kind
// kindType, a bad value of kind kindValue.
func parseOptions(text string, in *solvecmd.Input) (sdrmap.Settings, error) {
	o := defaultOptions()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return sdrmap.Settings{}, &kindError{kindType, fmt.Errorf("unknown option %s (options: %s)", name, strings.Join(optionNames(), ", "))}
		}
		return sdrmap.Settings{}, valueErrorf("options: %v", err)
	}
	s, err := o.Flags.Settings()
	if err != nil {
		return s, valueErrorf("%s", strings.ReplaceAll(err.Error(), "--", ""))
	}
	s.Evidence = in.Evidence
	if o.Evidence != nil {
		s.Evidence = make(model.Evidence, len(*o.Evidence))
		for i, ob := range *o.Evidence {
			s.Evidence[i] = model.Observation{Var: ob[0], Value: ob[1]}
		}
	}
	if _, err := s.Evidence.Clamps(in.Model); err != nil {
		return s, &kindError{kindValue, err}
	}
	if o.Verbose {
		s.Log = os.Stderr
	}
	return s, nil
}

// job is a solve running on its own goroutine.
type job struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when res and err are set
	in     *solvecmd.Input
	res    *sdrmap.Result
	notes  []string // solvecmd.Input.Finish's: toulbar2's rounded bound, ...
	err    error
}

// startSolve starts solving in with the options text (parseOptions).
func startSolve(in *solvecmd.Input, text string) (*job, error) {
	s, err := parseOptions(text, in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	j := &job{cancel: cancel, done: make(chan struct{}), in: in}
	go func() {
		defer close(j.done)
		defer cancel()
		j.err = guard(func() error {
			var err error
			if j.res, err = sdrmap.Solve(ctx, in.Model, s); err == nil {
				j.notes = in.Finish(j.res)
			}
			return err
		})
	}()
	return j, nil
}

// wait reports whether the job has ended, waiting up to d for it.
func (j *job) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-j.done:
		return true
	case <-t.C:
		return false
	}
}

// summary is the result of a job without its assignment, as JSON: what
// solve --json prints (solvecmd.Summary: the sdrmap.Record, infinities as
// "+Inf", ..., the energy convention and notes) and variables, the
// assignment's length (0 if none); or the solve's error.
func (j *job) summary() ([]byte, error) {
	if j.err != nil {
		return nil, j.err
	}
	rec := j.res.Record()
	rec.Assignment = nil
	return json.Marshal(struct {
		solvecmd.Summary
		Variables int `json:"variables"`
	}{solvecmd.Summary{Record: rec, Convention: j.in.Convention, Notes: j.notes}, len(j.res.Assignment)})
}
