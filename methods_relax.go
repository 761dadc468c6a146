package sdrmap

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
	Register(RelaxMethod("sdpad", `the semidefinite relaxation solved by the paper's SDPAD (a dense
eigendecomposition per iteration, 2 s at N = 3201 on one core,
not interrupted by --time-limit or Ctrl-C; N above 4000 is
refused with an error), rounded by argmax and
randomized rounding, polished by ICM and tree-block moves (exact
minimization over induced trees given the rest), then improved by
an iterated local search (random blocks reassigned, tree-block
moves) until it stalls; under --time-limit the search may run until
the limit; bound certified (spec §9): the best of the dual
iterates' bounds, of the best iterate's refined (the bound
maximized over the dual point by a bundle method from the
slack's smallest eigenvectors, certify.Refine) and of the
dual point complementary to the best assignment (when gap and
pinf are below 0.1 and the relaxation's objective is within 1% of
its energy), which proves it optimal when the relaxation is tight
there (JSON "complement": true when that one is the larger).
Every 20 iterations (gap and pinf below 0.1) a probe rounds
the iterate and certifies the result so; when that proves it
optimal the relaxation stops there (--no-probe: never). The
iteration takes the exact z-step and the multiplier step 1.6 of
two-block ADMM (the paper's are half and 1: deer_0034 to 1e-3 in
734 instead of 1,086 iterations) and is Anderson-accelerated
(type II, memory 10, with a safeguard; --no-accel: none)`, sdpadSolver(false)))
	Register(RelaxMethod("sdpad-lr", `the same relaxation solved by SDPAD-LR (the paper's Algorithm 2:
Xbar = Y Y^T of rank --rank doubling up to --max-rank, top
eigenpairs by LOBPCG with warm starts; memory O(N r + pattern)).
Both SDR solvers restart every 100 iterations from the average of
their iterates when it is closer to optimal (--no-restart: never)`, sdpadSolver(true)))
	Register(RelaxMethod("factor", `the same relaxation solved on a factor Xbar = V V^T by an
augmented Lagrangian (solver/factor: L-BFGS on V, the block sums kept
exactly, orthogonality and nonnegativity penalized, except the
orthogonality of binary variables, kept exactly on a sphere, whose
points alone the L-BFGS moves when every variable is binary; rank
--rank growing up to --max-rank along negative curvature of the
certificate; on multi-label models the L-BFGS is preconditioned by
the Lagrangian's Hessian diagonal); certificates by thick-restart
Lanczos, the last one after a longer closing inner solve at the
final multipliers when the bound is loose; rounding and probes as
for sdpad. 45x faster than sdpad-lr on Potts grids, Grids_20 to
1e-4 in 8 s, a 100k-variable 5-label grid to the 1e-3 protocol in
17-19 minutes and a 0.11% certified gap in 30 on 2 cores; the
protocol measured at the dual point shifted along A*(w) = I that
balances its gap and dinf; loose bounds on the dense
object-detection models and ORIENT (BENCHMARKS.md)`,
		func(*Settings) relax.Solver { return factor.Relaxer{} }))
}

// sdpadSolver returns SDPAD (or SDPAD-LR) under the pipeline's settings.
func sdpadSolver(lowRank bool) func(*Settings) relax.Solver {
	return func(s *Settings) relax.Solver {
		r := sdpad.Relaxer{LowRank: lowRank}
		if s.NoRestart || s.NoAccel {
			base := sdpad.DefaultSettings()
			if s.NoRestart {
				base.RestartEvery = 0
			}
			if s.NoAccel {
				base.Anderson = 0
			}
			r.Base = &base
		}
		return r
	}
}

// RelaxMethod returns the method that solves the SDR with the relaxation
// solver that newSolver makes for the run's settings and rounds it (the
// SDR driver, driver.Solve). Settings.Tol, MaxIter, Rank, MaxRank, Seed,
// Log and Progress reach the relaxation solver; Rounding, NoProbe and
// NoPolish the driver.
func RelaxMethod(name, description string, newSolver func(*Settings) relax.Solver) Method {
	return NewMethod(name, description, true, func(ctx context.Context, in *Input, s *Settings) (*Outcome, error) {
		o := driver.Options{
			Settings: relax.Settings{TimeLimit: s.TimeLimit, Tol: s.Tol, MaxIter: s.MaxIter, Rank: s.Rank, MaxRank: s.MaxRank,
				Seed: s.Seed, Log: s.Log},
			Rounding: s.Rounding, NoProbe: s.NoProbe, NoPolish: s.NoPolish,
		}
		if s.Progress != nil {
			o.Stage = func(stage string, iterations int, energy, bound float64) { s.stage(stage, iterations, energy, bound) }
			o.Progress = func(it relax.Iterate) {
				s.Progress(Progress{Elapsed: it.Time, Stage: name, Iteration: it.Iteration, Energy: math.Inf(1), Bound: it.Bound, SDPGap: it.Gap})
			}
		}
		res, err := driver.Solve(ctx, in.Pairwise, newSolver(s), o)
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
