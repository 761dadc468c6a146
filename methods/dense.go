package methods

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/densefactor"
	"github.com/sdrmap/sdrmap/sdr"
)

// denseFactorN is the largest order N of the lifted matrix that auto
// relaxes by the dense factor ALM (beyond denseN): its N x N matrices, a
// few of them, take about 2 GB at 6000.
const denseFactorN = 6000

// The dense factor ALM (relax/densefactor) as a relaxation method.
func init() {
	Register(RelaxMethod[RelaxOptions]("factor-dense", `the same relaxation solved on a factor Xbar = V V^T of high rank
by an augmented Lagrangian with dense kernels (relax/densefactor:
V V^T and the gradient M V by BLAS-3 on the whole matrix, for
dense models such as complete graphs; rank --rank, 0: N/3 up to 320,
growing up to --max-rank, 0: N, along negative curvature of the
certificate; L-BFGS preconditioned by the Lagrangian's Hessian
diagonal; penalty balanced against the dual infeasibility;
certificates from every eigenvalue of the slack on the minimal
face); memory O(N^2); rounding and probes as for sdpad`,
		func(RelaxOptions) relax.Solver { return densefactor.Relaxer{} }))
}

// sdpadFirst is auto's relaxation of dense models up to denseN: the dense
// SDPAD, unless no iterate has had its gap and primal infeasibility within
// trialTol when its trial ends, after the work of trialIters iterations
// at N = 601 (as many iterations times (601/N)^3) or trialShare of the time
// it was given, whichever comes first; then SDPAD stops, the dense factor ALM
// solves the relaxation with the time left, started from SDPAD's last point
// (a factor of its Xbar and its multipliers), and the better certified bound
// of the two is kept. SDPAD reaches 1e-6 within a minute on one core on some
// dense models (random costs up to N = 1,001; CSP_11) and needs hundreds of
// iterations to 1e-3 on others (object detection: 708 on deer_0034), where
// the factor ALM reaches 1e-3 several times sooner
// (bench/results/2026-11-27d/NOTES.md). Its later calls (the warm-started
// re-solves of iterative rounding) go to the solver that solved the first.
type sdpadFirst struct {
	sdpad, factor relax.Solver
	chosen        relax.Solver
}

// The trial of sdpadFirst.
const (
	trialTol   = 1e-3
	trialIters = 100
	trialShare = 0.15
)

func (t *sdpadFirst) Relax(ctx context.Context, prob *sdr.Problem, rs relax.Settings) (*relax.Solution, error) {
	if t.chosen != nil {
		return t.chosen.Relax(ctx, prob, rs)
	}
	t.chosen = t.sdpad
	limit := time.Duration(math.MaxInt64)
	if d, ok := ctx.Deadline(); ok {
		limit = time.Duration(trialShare * float64(time.Until(d)))
	}
	iters := trialIters * math.Pow(601/float64(prob.N()), 3)
	tctx, stop := context.WithCancel(ctx)
	defer stop()
	decided, switched, best := false, "", math.Inf(1)
	trial := rs
	trial.Progress = func(it relax.Iterate) {
		if rs.Progress != nil {
			rs.Progress(it)
		}
		if r := max(it.Gap, it.PrimalInfeasibility); r < best {
			best = r
		}
		if !decided && (float64(it.Iteration) >= iters || it.Time >= limit) {
			decided = true
			if !(best <= trialTol) {
				switched = fmt.Sprintf("gap and pinf not within %.0e (best %.2e) after %d iterations, %v", trialTol, best, it.Iteration, it.Time.Round(time.Millisecond))
				stop()
			}
		}
	}
	first, err := t.sdpad.Relax(tctx, prob, trial)
	if err != nil || switched == "" || ctx.Err() != nil {
		return first, err
	}
	if rs.Log != nil {
		fmt.Fprintf(rs.Log, "auto: SDPAD's %s: the dense factor ALM solves the relaxation\n", switched)
	}
	t.chosen = t.factor
	if f := first.FactorOf(); f != nil && first.Y != nil && first.Z != nil {
		rs.Start = &relax.Start{Factor: f, Y: first.Y, Z: first.Z}
	}
	sol, err := t.factor.Relax(ctx, prob, rs)
	if err != nil {
		return nil, err
	}
	if first.EnergyBound > sol.EnergyBound {
		sol.EnergyBound, sol.BestY, sol.BestZ = first.EnergyBound, first.BestY, first.BestZ
	}
	sol.Iterations += first.Iterations
	return sol, nil
}
