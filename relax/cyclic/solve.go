package cyclic

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/sdrmap/sdrmap/internal/lbfgs"
	"github.com/sdrmap/sdrmap/solver"
)

// Settings controls Solve. Start from DefaultSettings.
type Settings struct {
	Tol     float64 // stop when the relative gap objective - bound and the violation of q >= 0 are at most Tol
	MaxIter int     // outer iterations (multiplier updates)
	// Stall stops the run after that many outer iterations in a row, once
	// there is a bound, in which the bound rose by at most Tol relative and
	// the best energy did not fall (a relaxation that is not tight converges
	// to a gap its bound cannot close); 0: never.
	Stall     int
	InnerIter int     // L-BFGS iterations per outer iteration, at most
	Seed      uint64  // seed of the initial point, the roundings and the eigensolver
	Rank      int     // initial columns r of every U_k
	MaxRank   int     // largest r: r doubles (along the slacks' negative curvature) while a certificate finds dinf > 100 Tol
	Sigma0    float64 // initial penalty, on costs scaled to a largest |T| of 1
	SigmaMax  float64
	Memory    int     // L-BFGS pairs
	Draws     int     // roundings per outer iteration
	EigTol    float64 // relative residual tolerance of the certificates' Lanczos

	Verbose io.Writer     // iteration table, nil for none
	Monitor func(*Result) // called after every outer iteration with the result so far (valid during the call)
}

// DefaultSettings returns the settings sdrmap uses.
func DefaultSettings() Settings {
	return Settings{Tol: 1e-6, MaxIter: 1000, Stall: 10, InnerIter: 200, Rank: 4, MaxRank: 64, Sigma0: 10, SigmaMax: 1e7,
		Memory: 10, Draws: 16, EigTol: 1e-11}
}

func (s *Settings) check() error {
	switch {
	case !(s.Tol > 0):
		return fmt.Errorf("cyclic: Tol %v must be > 0", s.Tol)
	case s.Stall < 0:
		return fmt.Errorf("cyclic: Stall %d must be >= 0", s.Stall)
	case s.MaxIter < 1 || s.InnerIter < 1 || s.Memory < 1 || s.Draws < 1:
		return fmt.Errorf("cyclic: MaxIter %d, InnerIter %d, Memory %d and Draws %d must be >= 1", s.MaxIter, s.InnerIter, s.Memory, s.Draws)
	case s.Rank < 1 || s.MaxRank < s.Rank:
		return fmt.Errorf("cyclic: need 1 <= Rank (%d) <= MaxRank (%d)", s.Rank, s.MaxRank)
	case !(s.Sigma0 > 0) || !(s.SigmaMax >= s.Sigma0):
		return fmt.Errorf("cyclic: need 0 < Sigma0 (%v) <= SigmaMax (%v)", s.Sigma0, s.SigmaMax)
	case !(s.EigTol > 0):
		return fmt.Errorf("cyclic: EigTol %v must be > 0", s.EigTol)
	}
	return nil
}

// Result is what Solve found. Energies are the model's.
type Result struct {
	Status     solver.Status
	Assignment []int   // the best rounding
	Energy     float64 // its energy
	Bound      float64 // the best certified lower bound on the minimum energy (-Inf: none)
	Objective  float64 // the relaxation's objective at the last point (infeasible by up to PrimalInf)
	PrimalInf  float64 // largest violation of q >= 0
	DualInf    float64 // of the best certificate: largest negative part of the slacks' smallest eigenvalues, costs scaled to 1
	Gap        float64 // (Objective - Bound) / (1 + |Objective| + |Bound|)
	Rank       int     // columns of every U_k at the end
	Iterations int     // outer
	Inner      int     // L-BFGS iterations
	Time       time.Duration
}

// stallLoose: a run stopped by Settings.Stall with its gap and violation
// within it is SolvedInaccurate, else MaxIterations.
const stallLoose = 1e-3

// Solve minimizes the reduced relaxation of p (package doc) by the
// augmented Lagrangian on the factors, rounds every outer iteration and
// certifies the multipliers once the violation is small. It stops when the
// best rounding is proven optimal, at the tolerance, after Stall outer
// iterations without progress, at MaxIter or when ctx ends (its deadline
// is the time limit), with the best so far.
func Solve(ctx context.Context, p *Problem, s Settings) (*Result, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	start := time.Now()
	stop := func() bool { return ctx.Err() != nil }
	res := &Result{Status: solver.MaxIterations, Energy: math.Inf(1), Bound: math.Inf(-1), Gap: math.Inf(1), DualInf: math.Inf(1)}
	if len(p.Edges) == 0 || p.M == 1 {
		res.Assignment = make([]int, p.N)
		res.Energy = p.Energy(res.Assignment)
		res.Bound, res.Objective, res.Gap, res.DualInf, res.Status = res.Energy, res.Energy, 0, 0, solver.Solved
		res.Time = time.Since(start)
		return res, nil
	}
	a := newALM(p, s.Rank, s.Sigma0)
	cf := newCertifier(a)
	rng := rand.New(rand.NewPCG(s.Seed, 0x40d))
	x := a.initial(s.Seed)
	in := lbfgs.New(a, x, s.Memory)
	if s.Verbose != nil {
		fmt.Fprintf(s.Verbose, "cyclic: n = %d, m = %d, %d edges, %d frequency blocks of rank %d, %d products q >= 0, tol %.0e; energies\n",
			p.N, p.M, len(p.Edges), a.k, s.Rank, len(a.q), s.Tol)
		fmt.Fprintf(s.Verbose, " iter  inner rank    sigma         objective             bound            energy       gap      pinf      dinf     time\n")
	}
	prev, least := math.Inf(1), math.Inf(1) // last and smallest violation
	stalled := 0                            // outer iterations without progress (Settings.Stall)
	for it := 1; it <= s.MaxIter; it++ {
		if stop() {
			break
		}
		gtol := max(s.Tol*1e-3, min(least, 1e-2)) * a.cnorm
		k := in.Minimize(a, gtol, s.InnerIter, stop)
		res.Inner += k
		res.Iterations = it
		converged := in.GradNorm() <= gtol
		res.Objective = p.Const + a.scale*a.objective()
		viol := a.update()
		res.PrimalInf = viol
		least = min(least, viol)
		grow, progress := false, false
		if xr, e := a.round(in.X, s.Draws, rng); e < res.Energy {
			res.Energy, res.Assignment, progress = e, xr, true
		}
		if viol <= max(100*s.Tol, 1e-2) || it%5 == 0 {
			b, dinf := cf.bound(in.X, s.EigTol, s.Seed+uint64(it), stop)
			if b > res.Bound {
				progress = progress || b-res.Bound > s.Tol*(1+math.Abs(b))
				res.Bound, res.DualInf = b, dinf
			}
			grow = dinf > 100*s.Tol && a.r < s.MaxRank && !math.IsInf(b, -1)
		}
		res.Rank = a.r
		res.Gap = (res.Objective - res.Bound) / (1 + math.Abs(res.Objective) + math.Abs(res.Bound))
		if s.Verbose != nil {
			fmt.Fprintf(s.Verbose, "%5d %6d %4d %8.1e %17.9g %17.9g %17.9g %9.2e %9.2e %9.2e %8.1fs\n",
				it, res.Inner, a.r, a.sigma, res.Objective, res.Bound, res.Energy, res.Gap, viol, res.DualInf, time.Since(start).Seconds())
		}
		if s.Monitor != nil {
			s.Monitor(res)
		}
		if solver.Proven(res.Energy, res.Bound) || (viol <= s.Tol && res.Gap <= s.Tol) {
			res.Status = solver.Solved
			break
		}
		if stalled++; progress || math.IsInf(res.Bound, -1) {
			stalled = 0
		}
		if s.Stall > 0 && stalled >= s.Stall {
			res.Status = solver.MaxIterations
			if viol <= stallLoose && res.Gap <= stallLoose {
				res.Status = solver.SolvedInaccurate
			}
			break
		}
		// The penalty grows when a converged inner solve did not cut the
		// violation by 4 (the factor ALM's rule).
		if converged && viol > prev/4 {
			a.sigma = min(4*a.sigma, s.SigmaMax)
		}
		prev = viol
		if grow {
			// The slack has negative curvature the factor cannot follow:
			// more columns, the first along it.
			in = lbfgs.New(a, a.widen(in.X, min(2*a.r, s.MaxRank), cf.direction, 0.1, rng), s.Memory)
			continue
		}
		in.F = a.Eval(in.X, in.G)
	}
	if res.Status != solver.Solved && res.Status != solver.SolvedInaccurate {
		switch {
		case ctx.Err() == context.DeadlineExceeded:
			res.Status = solver.OutOfTime
		case ctx.Err() != nil:
			res.Status = solver.Interrupted
		}
	}
	res.Time = time.Since(start)
	return res, nil
}
