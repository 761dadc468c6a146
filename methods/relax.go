package methods

import (
	"context"
	"math"

	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/driver"
	"github.com/sdrmap/sdrmap/relax/factor"
	"github.com/sdrmap/sdrmap/relax/sdpad"
)

// The relaxation methods: a relaxation solver behind the SDR driver
// (driver.Solve: rounding, probes, certificates, local search).
func init() {
	Register(RelaxMethod[SDPADOptions]("sdpad", `the semidefinite relaxation solved by the paper's SDPAD (a dense
eigendecomposition per iteration, not interrupted by --time-limit
or Ctrl-C; N above 4000 is refused with an error), rounded by
argmax and randomized rounding, polished by ICM and tree-block
moves (exact minimization over induced trees given the rest), then
improved by an iterated local search (random blocks reassigned,
tree-block moves) until it stalls; under --time-limit the search
may run until the limit; bound certified (docs/relaxation.md):
the best of the dual iterates' bounds, of the best iterate's
refined (the bound maximized over the dual point by a bundle
method from the slack's smallest eigenvectors, certify.Refine) and
of the dual point complementary to the best assignment (when gap
and pinf are below 0.1 and the relaxation's objective is within 1%
of its energy), which proves it optimal when the relaxation is
tight there (JSON "complement": true when that one is the larger).
Every 20 iterations (gap and pinf below 0.1) a probe rounds the
iterate and certifies the result so; when that proves it optimal
the relaxation stops there (--no-probe: never). The iteration
takes the exact z-step and the multiplier step 1.6 of two-block
ADMM (the paper's are half and 1) and is Anderson-accelerated
(type II, memory 10, with a safeguard; --no-accel: none)`, sdpadSolver(false)))
	Register(RelaxMethod[SDPADOptions]("sdpad-lr", `the same relaxation solved by SDPAD-LR (the paper's Algorithm 2:
Xbar = Y Y^T of rank --rank doubling up to --max-rank, top
eigenpairs by LOBPCG with warm starts; memory O(N r + pattern)).
Both SDR solvers restart every 100 iterations from the average of
their iterates when it is closer to optimal (--no-restart: never)`, sdpadSolver(true)))
	Register(RelaxMethod[RelaxOptions]("factor", `the same relaxation solved on a factor Xbar = V V^T by an
augmented Lagrangian (relax/factor: L-BFGS on V, the block sums kept
exactly, orthogonality and nonnegativity penalized, except the
orthogonality of binary variables, kept exactly on a sphere, whose
points alone the L-BFGS moves when every variable is binary; rank
--rank growing up to --max-rank along negative curvature of the
certificate; on multi-label models the L-BFGS is preconditioned by
the Lagrangian's Hessian diagonal); certificates by thick-restart
Lanczos, the last one after a longer closing inner solve at the
final multipliers when the bound is loose; rounding and probes as
for sdpad; the protocol measured at the dual point shifted along
A*(w) = I that balances its gap and dinf. Converges on sparse
models such as grids; loose bounds on dense models and ORIENT`,
		func(RelaxOptions) relax.Solver { return factor.Relaxer{} }))
}

// sdpadSolver returns SDPAD (or SDPAD-LR) under the method's options.
func sdpadSolver(lowRank bool) func(SDPADOptions) relax.Solver {
	return func(o SDPADOptions) relax.Solver {
		r := sdpad.Relaxer{LowRank: lowRank}
		if o.NoRestart || o.NoAccel {
			base := sdpad.DefaultSettings()
			if o.NoRestart {
				base.RestartEvery = 0
			}
			if o.NoAccel {
				base.Anderson = 0
			}
			r.Base = &base
		}
		return r
	}
}

// relaxOptions gives access to the RelaxOptions of an options type.
type relaxOptions interface{ relax() RelaxOptions }

func (o RelaxOptions) relax() RelaxOptions { return o }

// RelaxMethod returns the method that solves the SDR with the relaxation
// solver that newSolver makes for the method's options O (RelaxOptions or
// a type that embeds them) and rounds it (the SDR driver, driver.Solve).
// Tol, MaxIter, Rank, MaxRank, Run.Seed and Run.Log reach the relaxation
// solver; Rounding, NoProbe and Run.NoPolish the driver.
func RelaxMethod[O relaxOptions](name, description string, newSolver func(O) relax.Solver) Method {
	return New(name, description, true, func(ctx context.Context, in *Input, run *Run) (*Outcome, error) {
		opts, err := OptionsOf[O](name, run)
		if err != nil {
			return nil, err
		}
		ro := opts.relax()
		o := driver.Options{
			Settings: relax.Settings{Tol: ro.Tol, MaxIter: ro.MaxIter, Rank: ro.Rank, MaxRank: ro.MaxRank,
				Seed: run.Seed, Log: run.Log},
			Rounding: ro.Rounding, NoProbe: ro.NoProbe, NoPolish: run.NoPolish,
		}
		if run.Progress != nil {
			o.Stage = run.stage
			o.Progress = func(it relax.Iterate) {
				run.Progress(Progress{Elapsed: it.Time, Stage: name, Iteration: it.Iteration, Energy: math.Inf(1), Bound: it.Bound, SDPGap: it.Gap})
			}
		}
		res, err := driver.Solve(ctx, in.Pairwise, newSolver(opts), o)
		if err != nil {
			return nil, err
		}
		out := &Outcome{Assignment: res.Assignment, Status: res.Status, Bound: res.Bound, Iterations: res.Iterations, Rounds: res.Rounds}
		if f := res.First; f != nil {
			out.SDR = &SDRInfo{
				PrimalObjective: f.PrimalObjective, DualObjective: f.DualObjective, Gap: f.Gap,
				PrimalInfeasibility: f.PrimalInfeasibility, DualInfeasibility: f.DualInfeasibility,
				Dimension: res.Dimension, Rank: f.Rank, Restarts: f.Restarts, Complement: res.Complement,
			}
		}
		return out, nil
	})
}
