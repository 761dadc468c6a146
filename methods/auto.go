package methods

import (
	"context"
	"fmt"
	"math"

	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/densefactor"
	"github.com/sdrmap/sdrmap/solver"
)

func init() {
	Register(New("auto", `trws, then the relaxation with the time left (cyclic on
shift-invariant models such as ORIENT, their symmetry kept;
factor on models with at most 3 edges per variable, such as
grids; on denser ones sdpad up to N = 1400, replaced by
factor-dense (from its point) when no iterate has gap and pinf
within 1e-3 after 100 (601/N)^3 iterations or 15% of the time,
factor-dense up to N = 6000, sdpad-lr beyond)
unless the LP bound already proves the trws assignment optimal or
the model was converted from higher order (below); the better
assignment and the larger bound are kept`, false, solveAuto))
}

// Default is the method of an empty sdrmap.Settings.Solver.
const Default = "auto"

// autoLPShare is the share of the time limit that auto gives TRW-S.
const autoLPShare = 0.2

// autoRelaxation names the relaxation method of auto for p: the SDR
// reduced by its symmetry (cyclic) on shift-invariant models (presolve then
// keeps the symmetry, KeepsSymmetry); the factor ALM on sparse models (at
// most sparseEdges edges per variable: grids), where it converges and
// SDPAD-LR does not; on denser ones, where the factor ALM does not
// converge, the dense SDPAD up to denseN, replaced by the dense factor
// ALM when it does not converge fast (sdpadFirst), the dense factor ALM up to
// denseFactorN (SDPAD-LR does not converge there, and SDPAD's
// eigendecompositions take seconds each: bench/results/2026-11-27/NOTES.md,
// "Dense models: the dense factor ALM") and SDPAD-LR beyond.
func autoRelaxation(p *model.Pairwise) string {
	if cyclicApplies(p) {
		return "cyclic"
	}
	n := 1
	for _, m := range p.Card {
		n += m
	}
	switch {
	case len(p.Edges) <= sparseEdges*p.NumVars():
		return "factor"
	case n <= denseN:
		return "sdpad"
	case n <= denseFactorN:
		return "factor-dense"
	}
	return "sdpad-lr"
}

// sparseEdges is the largest number of edges per variable (half the mean
// degree) of a model that auto relaxes by the factor ALM; denseN the
// largest order N of the lifted matrix that it relaxes by the dense SDPAD:
// one iteration, a dense eigendecomposition of order N that cannot be
// interrupted, stays near a second there (pure Go), so the time limit holds.
const (
	sparseEdges = 3
	denseN      = 1400
)

// KeepsSymmetry reports whether the method named name solves the
// shift-invariant model m in its symmetric form, so that presolve must
// not fix a variable: cyclic, and auto when it will relax m by cyclic.
func KeepsSymmetry(name string, m *model.Model) bool {
	switch name {
	case "cyclic":
		return true
	case "", "auto":
		for f := range m.Factors {
			if m.Factors[f].ForbiddenCount() > 0 {
				return false
			}
		}
		return m.ShiftInvariant()
	}
	return false
}

// solveAuto runs TRW-S (for at most autoLPShare of the time left), then,
// unless its LP bound proves its assignment optimal or the model was
// converted from higher order, the relaxation method of autoRelaxation
// with the time left. The better assignment and the larger of the two
// certified bounds are kept; status and SDR figures are those of the SDR
// when it ran, iterations the sum of both. On a converted model the
// relaxation's time goes to the search after the method instead: there the
// SDR's bound stays far below the LP bound and its roundings are worse
// starts for the search than TRW-S's.
func solveAuto(ctx context.Context, in *Input, run *Run) (*Outcome, error) {
	o, err := OptionsOf[AutoOptions]("auto", run)
	if err != nil {
		return nil, err
	}
	lpRun := *run
	lpRun.Options = o.TRWS
	lpCtx, cancel := solver.Share(ctx, autoLPShare)
	lp, err := solveTRWS(lpCtx, in, &lpRun)
	cancel()
	if err != nil || lp.Status == solver.Infeasible {
		return lp, err
	}
	p := in.Pairwise
	e := math.Inf(1)
	if lp.Assignment != nil {
		e = p.Energy(lp.Assignment)
	}
	if solver.Proven(e, lp.Bound) || in.Converted || ctx.Err() != nil {
		if run.Log != nil && ctx.Err() == nil {
			why := "the LP bound proves the TRW-S assignment optimal"
			if in.Converted {
				why = "the model was converted from higher order"
			}
			fmt.Fprintf(run.Log, "auto: %s; no relaxation solved\n", why)
		}
		return lp, nil
	}
	rest := *run
	name := autoRelaxation(p)
	sdp, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("auto: method %s not registered", name)
	}
	if name == "sdpad" {
		sdp = RelaxMethod[SDPADOptions](name, sdp.Description(), func(o SDPADOptions) relax.Solver {
			return &sdpadFirst{sdpad: sdpadSolver(false)(o), factor: densefactor.Relaxer{}}
		})
	}
	rest.Options = o.Relax
	if name == "factor" || name == "factor-dense" || name == "cyclic" {
		rest.Options = o.Relax.RelaxOptions
	}
	out, err := sdp.Solve(ctx, in, &rest)
	if err != nil {
		return nil, err
	}
	out.Bound = max(out.Bound, lp.Bound)
	out.Iterations += lp.Iterations
	if out.Assignment == nil || (lp.Assignment != nil && p.Energy(out.Assignment) > e) {
		out.Assignment = lp.Assignment
	}
	return out, nil
}
