// Package factor solves the semidefinite relaxation of package sdr on a
// factor Xbar = V V^T by an augmented Lagrangian (ALM), with no eigensolve
// inside the iteration (docs/relaxation.md, Factor form and Factor ALM;
// package sdr fixes the relaxation).
//
// # The factor
//
// V is N x r with rows v_0 = e_1 and v_ia. The SDR's equalities E0-E2
// become ||v_0|| = 1 and sum_a v_ia = v_0, which V keeps exactly: its
// gradient is projected onto that affine set's tangent space (row 0 zero,
// every variable's rows summing to zero), so the block sums never drift.
// The remaining constraints are products of rows: v_ia . v_ib = 0 (E3),
// v_ia . v_jb = 0 for a forbidden pair (E4), and v_ia . v_jb >= 0 on edges
// (P); states forbidden outright were already removed by sdr.Build.
//
// Binary variables keep E3 exactly as well: their rows are (e_1 +- u_i)/2,
// orthogonal exactly when ||u_i|| = 1, so the iteration runs on that sphere
// (Riemannian L-BFGS: gradients and directions projected onto its tangent
// space, steps retracted by normalizing u_i, as Burer-Monteiro methods for
// Max-Cut do) and their E3 multiplier comes in closed form from the
// gradient (alm.binaryMultipliers). This removes the stiffest penalty terms
// (bench/results/2026-11-25/NOTES.md, "Binary variables on the sphere").
// When every variable
// is binary the iteration runs on U = (u_i) itself, n rows instead of 2n +
// 1 (alm.point): an edge's four products come from one product u_i . u_j,
// the gradient's rows from one update per edge end (alm.patternU, gradU;
// each row summed over its own edges, so that halves of the rows run at
// once), and the L-BFGS's vectors are half as long.
//
// # The iteration
//
// The products are penalized by the augmented Lagrangian (docs/relaxation.md, Factor ALM)
// on costs scaled to a largest entry of 1 (a binary variable's h is 0 on its
// sphere, so only its multiplier term remains),
//
//	L(V) = <C, V V^T> + sum_h (lam_h h + sigma/2 h^2)
//	       + 1/(2 sigma) sum_g (max(0, mu_g - sigma g)^2 - mu_g^2),
//
// minimized by L-BFGS with an Armijo line search (one evaluation of L and
// its gradient costs two passes over the sparsity pattern, r columns each:
// sdr.Sym.PatternOf and MulMat). On large problems every pass runs on two
// halves at once: the pattern's (or on U patternU's and gradU's), the
// penalty terms' (alm.terms), the tangent projection's, the L-BFGS's over
// its vectors (package lbfgs) and the certificates' reorthogonalization
// (package eigen; bench/results/2026-11-26/NOTES.md, "The L-BFGS on both
// cores").
// On models with more than two states per variable the L-BFGS is
// preconditioned (H_0 = gamma P) by the inverse of L's Hessian diagonal at
// the start of each inner solve, 2 C_(ia,ia) + sigma sum_jb v_jb[c]^2 over
// the active penalty terms (alm.hessDiag; one more pass): near an integral
// point the penalties make the curvature along the first column (the
// marginals) orders of magnitude larger than along the others
// (bench/results/2026-11-25/NOTES.md, "Preconditioned L-BFGS"); binary variables,
// whose stiffest direction the sphere removed, are left unscaled, so on
// all-binary models the iteration is the plain L-BFGS.
// An inner solve stops when the projected gradient's 2-norm is at most
// omega (1 + ||C||_F), omega the smallest of the largest violations and
// of a tenth of the certified dual infeasibilities so far (at least
// Tol/1000), or after InnerIter (100) iterations, 300 once the primal
// infeasibility is within the tolerance. The dual infeasibility measures
// the inner solves' error (the slack at the multiplier update is L's
// gradient matrix, PSD where V minimizes L: see "Certificates"), so once
// the primal side is done the inner solves' accuracy decides the run, and
// the longer cap pays the certificate, which costs as much as many L-BFGS
// iterations on large grids, less often (bench/results/2026-11-26/NOTES.md,
// "The dual side's inner solves"). Then the multipliers
// move to lam + sigma h and max(0, mu - sigma g); sigma grows by 4 when a
// converged inner solve reduced the largest violation by less than a
// factor 4, and falls by 4 (not below Sigma0) when the primal infeasibility
// is within the tolerance and below 0.3 times the dual one.
//
// # Certificates
//
// The multipliers are a dual point: E3, E4 and z are the ALM's (a binary
// variable's E3 the closed form above), E1 and E2 are 0, and E0 is fixed
// by the first column of S V (see alm.dual for why this is exact on the
// minimal face). Its certified bound (docs/relaxation.md) on the face (sdr.Face, Lanczos on U^T S U,
// certify.Partial) is rigorous for any multipliers, like every bound in
// sdrmap, and tight when V is a rank-deficient minimizer. Certificates are
// computed when the primal infeasibility is within the tolerance, every
// few outer iterations before, and at the end; the SDR driver
// (relax/driver) refines the best one (certify.Refine).
//
// The protocol (docs/relaxation.md, Protocol) is measured at a shift of that point, y + t w with
// A*(w) = I (sdr.Problem.BestShift): its slack is S + t I, its dual
// objective lower by (n+1) t. A certificate computes only the 8 smallest eigenvalues
// of U^T S U, of order N - n, so its dinf must count every eigenvalue not
// computed as the 8th: at scale that tail is almost all of it. At t =
// -lambda_8 the tail is gone and the gap grows by (n+1) |lambda_8| instead,
// which was less on the large grids; BestShift takes the t that balances
// the two (Result.Shift). Y
// stays the multipliers' point, and sigma, the inner tolerance and the
// probes still follow its own dinf and gap. The shift also trades the 8
// computed eigenvalues for gap, which pays where 1 + ||C||_F, the dinf's
// scale, is large against the objective (hard constraints): the dense
// SDPAD's protocol so shifted stopped CSP_11 far from its optimum and was
// dropped; the factor ALM's CSP_11 run is the same with and without it
// (bench/results/2026-11-27/NOTES.md, "gonum's BLAS loops on its assembly
// kernels").
//
// Those multipliers come from inner solves capped at InnerIter, whose
// slack keeps many small negative eigenvalues, each costing the bound n+1
// times itself. So a run that ends with the primal side converged (or by
// its time limit, whose last fifth the outer iterations leave for this)
// but the bound more than Tol below the objective ends with a closing
// inner solve (closeDual): up to CloseIter (300) more L-BFGS iterations
// on L at the last multipliers, at an eighth of the penalty, whose
// multiplier update is certified. L is convex in X on the face, so at its
// minimizer that slack is PSD; the closing solve's point, refined by the
// driver, gives a much tighter bound (bench/results/2026-11-26/NOTES.md,
// "The closing inner solve").
//
// # Rank
//
// The run starts at Settings.Rank columns. When the primal side has
// converged, V has numerically full rank and the certificate still finds
// negative eigenvalues, V cannot reach the optimum: the eigenvectors of
// the negative eigenvalues become new columns (at most doubling r, up to
// MaxRank). A rank-deficient V with negative eigenvalues only means
// unconverged multipliers, and the rank stays.
//
// # What it does not do well
//
// On the dense object-detection models (deer, giraffe: ten labels on a
// complete graph, costs spanning orders of magnitude) the primal side
// converges, but at the default rank to the best factor of that rank, whose
// objective is far above the SDR value: the relaxation needs a much higher
// rank there. The rank step waits for a converged primal side, which comes
// too late; taken early it does not leave the low-rank point, and started
// at a high rank the certified bound stays far off. On ORIENT the inner
// solves capped at InnerIter leave the primal side stalling; the sparse
// models, which auto gives to this solver, gain from the cap. Models with
// more than two states per variable still penalize E3: their E3 set is not
// a manifold where two or more of a variable's rows vanish, which is where
// near-integral solutions lie. A parametrization by frames (v_ia = rho_a
// q_a, Q = [e_1, W] R on Stiefel manifolds) keeps E3 exactly but moves a
// vanishing row only along one direction at first order, and the ALM
// stalled at spurious points with it (tried). The measurements:
// bench/results/2026-11-25/NOTES.md and 2026-11-26/NOTES.md.
package factor
