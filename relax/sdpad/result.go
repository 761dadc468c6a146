package sdpad

import (
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/solver"
)

// Iterate is the state after one iteration, as the iteration table shows it
// (Settings.Monitor receives it).
type Iterate struct {
	K                   int
	PrimalObjective     float64 // <C, Xbar_k>
	DualObjective       float64 // -<b, y_k>
	Gap                 float64
	PrimalInfeasibility float64
	DualResidual        float64 // mu ||Proj(...) - Xbar_{k-1}||_F / (1 + ||C||_F) (Proj(...) = Xbar_k when gamma = 1), at least DualInfeasibility
	DualInfeasibility   float64 // of the certificate when Certified (against the face's dual cone in Face mode), else NaN
	Certified           bool    // a certificate was computed at this iteration
	Exact               bool    // its DualInfeasibility is reliable (else an estimate from an unconverged eigensolver)
	Rank                int     // rank of Xbar_k (positive eigenvalues kept)
	MatVecs             int     // eigensolver operator applications (per vector) in the projection; 0 for dense
	Bound               float64 // best certified lower bound on min <C,Xbar> so far (-Inf before the first)
	Mu                  float64
	Time                time.Duration
}

// Result is the outcome of Solve. Objectives are in the minimization form
// <C,Xbar> of the sdr package (energy = objective - Const).
type Result struct {
	Status solver.Status

	X      *mat.SymDense // final Xbar (N x N), Solve only: the last projection, PSD (with gamma != 1 not the iteration's Xbar_k)
	Factor *mat.Dense    // SolveLR only: Xbar = Factor Factor^T (N x Rank)
	Rank   int           // rank of the final Xbar
	Y      []float64     // final y, layout sdr.Layout
	Z      []float64     // final z >= 0, one per entry of P
	BestY  []float64     // the dual iterate of SDRBound (nil if none was certified)
	BestZ  []float64

	PrimalObjective     float64 // <C, X>
	DualObjective       float64 // -<b, y>
	Gap                 float64 // docs/relaxation.md, Protocol
	PrimalInfeasibility float64 // docs/relaxation.md, Protocol, primal part
	DualInfeasibility   float64 // docs/relaxation.md, Protocol, dual part: Solve exact (dense eigenvalues of C + A*(y) - P*(z)), SolveLR an upper estimate (sdr.CertifyPartial); NaN after a hurried SolveLR stop

	// FaceDualInfeasibility is the dual infeasibility against the dual
	// cone of the minimal face (sdr.Certificate). The stopping rule uses it
	// in Face mode, where DualInfeasibility stays large: the face's dual
	// slack need not be PSD on the directions v_i (docs/relaxation.md, Minimal face).
	FaceDualInfeasibility float64
	Iterations            int
	Time                  time.Duration
	Mu                    float64 // final penalty
	Restarts              int     // restarts from the average of the iterates (Settings.RestartEvery)

	// SDRBound is the best certified lower bound (docs/relaxation.md, Certified bound) on the SDR optimum
	// min <C,Xbar> over all iterates; EnergyBound = SDRBound - Const, less
	// rounding, is a certified lower bound on the energy of every
	// assignment of the model (-EnergyBound bounds max f from above).
	SDRBound    float64
	EnergyBound float64

	// Marginals[i][a] = Xbar[0,ia] for variable i of the pairwise model in
	// its own state numbering (0 for states removed as forbidden).
	Marginals [][]float64
}

// result assembles the Result from the last iterate and the best bound.
func (st *state) result(status solver.Status) *Result {
	it := &st.it
	r := &Result{
		Status: status, Y: st.y, Z: st.z, Rank: it.Rank,
		PrimalObjective: it.PrimalObjective, DualObjective: it.DualObjective, Gap: it.Gap,
		PrimalInfeasibility: it.PrimalInfeasibility, DualInfeasibility: st.dinf, FaceDualInfeasibility: st.dinfFace,
		Iterations: it.K, Time: it.Time, Mu: it.Mu, Restarts: st.avg.restarts,
		SDRBound: st.bestLow, EnergyBound: st.bestE, BestY: st.bestY, BestZ: st.bestZ,
	}
	r.Marginals = st.prob.Marginals(st.primalPoint().Row0)
	st.pr.attach(r)
	return r
}

// detach returns r with its own copies of the solver's buffers (X or
// Factor, Y, Z, BestY, BestZ), which the iteration goes on to change.
func (r *Result) detach() *Result {
	c := *r
	if r.X != nil {
		c.X = mat.NewSymDense(r.X.SymmetricDim(), nil)
		c.X.CopySym(r.X)
	}
	if r.Factor != nil {
		c.Factor = mat.DenseCopyOf(r.Factor)
	}
	c.Y, c.Z = slices.Clone(r.Y), slices.Clone(r.Z)
	c.BestY, c.BestZ = slices.Clone(r.BestY), slices.Clone(r.BestZ)
	return &c
}
