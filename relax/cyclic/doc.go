// Package cyclic solves the SDR of a shift-invariant model (every variable
// with m states, energy unchanged when all states advance by one mod m:
// ORIENT, Z_m synchronization, Potts models without unary terms) in the
// form its symmetry block-diagonalizes, by the discrete Fourier transform,
// into m/2 small Hermitian blocks; an augmented Lagrangian on factors of
// the blocks, its multipliers certified, and roundings from the phases.
//
// # The reduced relaxation
//
// Such a model's energy is E(x) = Const + sum_e T_e((x_J - x_I) mod m).
// Averaging a feasible point of the lifted SDR (docs/relaxation.md, Relaxation) over the m
// shifts leaves its objective unchanged, so the SDR has an optimum whose
// edge and diagonal blocks are circulant; their eigenvalues, the Fourier
// coefficients, give n x n Hermitian blocks M_k (k = 1..m-1, M_{m-k} =
// conj(M_k); the block k = 0 is the all-ones matrix), and the SDR becomes
//
//	minimize   Const + sum_e sum_s T_e(s) q_e(s)
//	subject to M_k PSD, diag(M_k) = 1            (k = 1..floor(m/2)),
//	           q_e(s) = (1 + sum_{k=1}^{m-1} M_k(I,J) omega^{-ks}) / m >= 0,
//
// omega = exp(2 pi i / m): q_e is the distribution of x_J - x_I on edge e.
// An assignment x is the point M_k(i,j) = omega^{k(x_j - x_i)} (rank one),
// with q_e(s) = [x_J - x_I = s] and objective E(x), so the optimum is a
// lower bound on the minimum energy; it equals the lifted SDR's
// (TestMatchesDense: 30 random models, m = 2-5, against the dense SDPAD, 1e-5
// relative). Instead of N = nm + 1 rows and m^2 products per edge, there
// are floor(m/2) blocks of order n and m products per edge: ORIENT at n =
// 1000, m = 16 has 8 blocks of order 1,000 and 400,000 products instead of
// N = 16,001 and 6.4 million.
//
// # The iteration
//
// Each M_k = U_k U_k^* with U_k of n x r (Settings.Rank, complex; real for
// the block k = m/2), its rows on the unit sphere, so diag(M_k) = 1 holds
// exactly (Riemannian L-BFGS as in the factor ALM, internal/lbfgs). The
// constraints q >= 0 are penalized by the augmented Lagrangian
//
//	L(U) = sum T q + 1/(2 sigma) sum (max(0, mu - sigma q)^2 - mu^2)
//
// on costs scaled to a largest |T| of 1; after each inner solve the
// multipliers move to max(0, mu - sigma q), and sigma grows by 4 when a
// converged inner solve did not cut the largest violation by 4. One
// evaluation costs O(|E| m (m/2) r), over two halves of the edges on two
// goroutines from 4,096 edges.
//
// # Certificates
//
// For any z >= 0 (the multipliers) and real y_k, with w_e = T_e - z_e,
// W_e(k) = sum_s w_e(s) omega^{-ks}, and G_k Hermitian with G_k(I,J) =
// conj(W_e(k)) / 2m on the edges, every feasible point satisfies
//
//	sum T q >= sum_e sum_s w_e(s) / m + sum_k alpha_k <G_k, M_k>
//	        >= sum_e sum_s w_e(s) / m + sum_k alpha_k (sum_i y_ki + n min(0, lambda_min(G_k - Diag(y_k)))),
//
// alpha_k = 2 for the pairs k, m - k and 1 for k = m/2: the certified bound (docs/relaxation.md) of
// the reduced relaxation. y_k comes from the stationarity of U_k (y_ki =
// Re <(G_k U_k)_i, u_ki>), lambda_min from Lanczos on the real form of the
// slack, [[Re, -Im], [Im, Re]], whose eigenvalues are the slack's, doubled
// (eigen.LowerBound: the smallest Ritz value less its residual). At a
// rank-one minimizer with exact multipliers the bound equals the energy of
// the point's assignment, which is how ORIENT's planted optima are proven.
//
// # Rank
//
// U_k starts with Settings.Rank columns. When a certificate's slack keeps
// an eigenvalue below -100 Tol, the factor cannot reach the optimum along
// it: r doubles (up to MaxRank), the first new column of each block along
// that eigenvector, the others random, all scaled by 0.1 before the rows
// are normalized (alm.widen).
//
// # Rounding
//
// At an integral point u_1i = omega^{-x_i} v, so x_i is read from the phase of
// u_1i . conj(g) for the top singular vector g of U_1 and for random g
// (Settings.Draws), up to a common shift that leaves E unchanged.
//
// # Measured
//
// At the paper's ORIENT size it proves the planted assignments optimal in
// seconds where the lifted SDPAD-LR took most of an hour; a relaxation far
// from tight needs the rank growth (# Rank). The figures: BENCHMARKS.md and
// bench/results/2026-11-26/NOTES.md, "ORIENT by its symmetry".
//
// Not supported: forbidden entries (refused), warm starts, probes and the
// iterative rounding (runs end by a proof or the tolerance).
package cyclic
