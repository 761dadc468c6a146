// Package densefactor solves the semidefinite relaxation of package sdr on
// dense models (complete or nearly complete graphs) by an augmented
// Lagrangian on a factor Xbar = V V^T of high rank, with every pass over
// the constraints done on whole N x N matrices by BLAS-3: the method of
// relax/factor (docs/relaxation.md, "Factor form" and "Factor ALM") with
// the kernels and the schedule of a dense model, where the pattern is the
// whole matrix and the optimum's rank is a sizeable fraction of N.
//
// # The iteration
//
// V is N x r with row 0 e_1 and every variable's rows summing to e_1 (the
// gradient is projected onto that affine set, so E0-E2 hold exactly). The
// products v_k . v_l are penalized: E3 and forbidden pairs (E4) as
// equalities, the allowed entries of edge blocks (P) as nonnegativity,
//
//	L(V) = <C, X> + sum_h (lam_h h + sigma/2 h^2)
//	       + 1/(2 sigma) sum_g (max(0, mu_g - sigma g)^2 - mu_g^2),   X = V V^T,
//
// on costs scaled to a largest entry of 1. One evaluation of L and its
// gradient 2 M V is three dense passes: the upper triangle of V V^T by
// Dsyrk, one entrywise pass on two row bands of equal area that forms M (the slack C + A*(y) - P*(z) at the updated
// multipliers, without E0-E2) and L, and M V by Dgemm: 3 N^2 r flops, and
// N x N matrices for C, the constraint kinds, the multipliers, X and M
// (alm). The inner solve is L-BFGS (internal/lbfgs), preconditioned by
// the inverse of L's Hessian diagonal at its start, whose M part is the
// diagonal of P M P, P the projection onto the affine set's tangent
// space (the curvature within each variable's rows, E3 multipliers
// included, not the unary cost that the block sums cancel); then
// lam += sigma h, mu = max(0, mu - sigma g). An outer iteration takes at
// most InnerShort L-BFGS iterations while the multipliers lag (the
// primal infeasibility above certifyFrom times the tolerance or above the
// dual one), InnerIter otherwise.
//
// # Certificates and the penalty
//
// The multipliers are a dual point (y, z) (E0 from the first column of M
// V, as relax/factor's), and every outer iteration up to a face of order
// denseCertify is certified from all the eigenvalues of the compressed
// slack U^T S U (sdr.Face, sdr.Problem.CertifyEigen): the certified bound (docs/relaxation.md, "Certified bound") and the
// exact dual infeasibility, no tail of uncomputed eigenvalues to bound.
// Beyond it, Lanczos on the same dense matrix gives the smallest few
// (certify.Partial). The protocol is measured at the shift of y that
// balances gap and dinf (sdr.Problem.BestShift). With the exact dinf at
// every iteration the penalty follows residual balancing: it starts at
// twice 1 + ||C||_F of the scaled costs (Sigma0 = 0), grows while the
// primal infeasibility is above 3 times the dual one and falls once the
// primal side is within the tolerance and the dual one above 3 times it.
//
// # Tolerances and probes
//
// With TightenTo (the driver's time limit at the default tolerance,
// Relaxer) the run works at Tol first and at a tenth of the tolerance
// each time an iterate meets it, down to TightenTo: the penalty's fall
// and the rank's growth wait for the primal side to be within the working
// tolerance, and at 1e-4 from the start the penalty stayed high and the
// run reached 1e-3 later (giraffe_0200: 47.9 s against 17.3 s on one
// core). A run that stops (time or iteration limit) at an iterate that
// misses the last tolerance it met returns the last iterate that met it,
// with the best bound of the whole run. A probe is made at the first
// outer iteration within ProbeTol, then after waits that double from
// ProbeEvery up to 16 ProbeEvery while they fail: each costs a
// certificate. Under a deadline
// the first dense certificate is started only when about certPerPass N/r
// passes' time is left (later ones: the last one's duration).
//
// # Closing
//
// The multipliers of a short inner solve leave the slack negative
// eigenvalues that cost the bound n+1 times themselves. Since L is
// convex in X = V V^T, at its exact minimizer the updated multipliers'
// slack is PSD on the face; so a run that ends with the primal side
// within TolLoose (or at the time limit, of which the outer iterations
// leave it a fifth) and a bound more than Tol/4 below its objective closes
// with up to CloseRounds longer inner solves (CloseIter L-BFGS
// iterations) at the final multipliers and a quarter of the penalty,
// each followed by the update and a certificate, while a round closes a
// fifth of the remaining gap (closeDual).
//
// # Rank
//
// The run starts at Rank columns (default InitialRank: N/3, at most 320
// or N/8);
// when the certificate finds negative eigenvalues at a factor of full
// rank, with the primal side converged or 20 iterations after the last
// change, their eigenvectors become new columns (at most doubling r, up
// to MaxRank).
//
// # What it does not do
//
// Its passes cost N^2 r whatever the graph, and its memory is a few N x N
// matrices, so it is for dense models only (sparse ones: relax/factor).
// Binary variables are not kept on their sphere as relax/factor keeps
// them. The ALM needs on the order of a thousand passes to the 1e-3
// protocol on the object-detection models (its outer iterations converge
// linearly and slowly there, whatever the inner iterations, the memory
// or the initial penalty), and below 1e-3 it progresses slowly: on
// giraffe_0200 it stayed near 3e-4 for a minute. There its bound at a
// given time can be looser than the dense SDPAD's (giraffe_0200 at 60 s
// on one core), though SDPAD takes several times longer to 1e-3
// (bench/results/2026-11-27d/NOTES.md).
package densefactor
