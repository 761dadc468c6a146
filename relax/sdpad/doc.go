// Package sdpad solves the SDR of package sdr with the paper's Algorithm 1
// (SDPAD, docs/relaxation.md, SDPAD; Solve, dense Xbar) and Algorithm 2 (SDPAD-LR, docs/relaxation.md, SDPAD-LR;
// SolveLR, Xbar = Y Y^T). Both run the iteration
//
//	Xt  = (1 + 1/gamma) Xbar_{k-1} - Xbar_{k-2} / gamma
//	y_k = y_{k-1} + mu (AA*)^{-1} (A(Xt) - b)
//	z_k = max(0, z_{k-1} - mu (PP*)^{-1} P(Xt))
//	Xbar_k = (1 - gamma) Xbar_{k-1} + gamma Proj( Xbar_{k-1} - (C + A*(y_k) - P*(z_k)) / mu )
//
// with the sign conventions of package sdr (minimize <C,Xbar>, dual
// objective -<b,y>, dual slack S' = C + A*(y) - P*(z)) and share the
// settings, the penalty schedule, the stopping rule and the statuses; they
// differ in the primal step (Proj) and in how certificates find eigenvalues.
// Solve is meant for small and medium N (one dense eigendecomposition of
// order N per iteration, which is not interrupted; it refuses N above
// Settings.MaxOrder, 4000 by default). SolveLR keeps a factor of rank at
// most MaxRank and finds eigenpairs by LOBPCG on the implicit operator (see
// SolveLR and "Low rank" below).
//
// # The steps: exact z-step and step length 1.6 (default) or the paper's
//
// Written as the alternating direction method of Wen, Goldfarb and Yin on
// the dual (docs/relaxation.md, SDPAD), the y- and z-steps minimize the dual augmented
// Lagrangian over y and over z >= 0; A and P touch disjoint entries of
// Xbar, so the two minimizations are independent and each is preconditioned
// by its Gram inverse: (AA*)^{-1} for y, (PP*)^{-1} = 2I for z under
// the P* of docs/relaxation.md, Operators (z/2 at [ia,jb] and [jb,ia], P P* = I/2). The paper writes the
// z-step with mu alone, half of the exact step (Settings.ExactZ). In the
// same method the multiplier Xbar may take a step gamma in (0, (1 + sqrt
// 5)/2) along its update (Fortin and Glowinski; Wen, Goldfarb and Yin take
// 1.6), the paper's being gamma = 1; eliminating their slack S then gives the
// extrapolation above, with which the y- and z-steps stay exact
// (Settings.StepLength). Solve takes both, ExactZ and gamma = 1.6;
// SolveLR takes ExactZ and gamma = 1, since (1 - gamma) Y Y^T + gamma Y'
// Y'^T would double the factor's rank; PaperSettings keeps the paper's steps.
// With gamma > 1 Xbar_k need not be PSD: the primal point measured (docs/relaxation.md, Protocol),
// rounded and returned is the projection Proj(...) (Result.X).
// The exact z-step and gamma = 1.6 each cut the iterations to the protocol
// on the dense models and the test problems, and together more; the exact
// z-step alone made CSP_11's iterations erratic across initial penalties,
// which gamma = 1.6 settles (bench/results/2026-11-26/NOTES.md, "The exact
// z-step and the step length").
//
// # Cone: the minimal face (default) or the PSD cone (the paper)
//
// The feasible set has no interior (docs/relaxation.md, Minimal face): every feasible Xbar satisfies Xbar
// v_i = 0, v_i = e_0 - sum_a e_ia, and a dual slack must be PSD also on the
// v_i, which the optimum of a dual need not allow: on the remark example y
// grows while -<b,y> creeps towards the optimum. With Settings.Face (the
// default), Proj is the projection onto the minimal face F = {U Y U^T : Y
// PSD} (sdr.Face, an O(N^2) change of basis), i.e. facial reduction done as
// a change of cone: A, P, (AA*)^{-1} and the feasible set are unchanged, and
// the dual slack need only be PSD on range(U). Without forbidden pairs the
// face problem has a strictly feasible point (docs/relaxation.md, Minimal face). The eigenproblem shrinks
// to order N - n. Face = false is the
// paper's projection onto the whole PSD cone.
//
// # Penalty schedule: residual balancing (default) or the paper's
//
// On the project's test problems (TestMeasureSchedules: the remark example
// of docs/relaxation.md, Small cases, small Potts grids, ORIENT, pdb1akg and
// random tiny models with forbidden entries) the paper's method on the PSD
// cone leaves several unsolved and diverges on the remark example, as
// docs/relaxation.md, SDPAD warns; the face needs far fewer iterations than
// the PSD cone under every schedule, and residual balancing with restarts,
// Anderson acceleration, the exact z-step and gamma = 1.6 the fewest (the
// table: bench/results/2026-11-27/NOTES.md, "Figures moved from doc
// comments"). Hence the default: Face, and Balanced, which starts at mu =
// DenseMuShare ||C||_F / sqrt(N) in Solve and at ||C||_F / sqrt(N) (the
// ratio of the scales of S' and Xbar) in SolveLR, and every 100 iterations
// multiplies mu by sqrt(pinf/dinf) (clamped to [1/2, 2]) when the primal
// and the exact dual infeasibility of docs/relaxation.md, Protocol differ
// by more than a factor 5. A ratio of 10 helped deer_0034 but not `auto` on
// CSP_11 and the dense models, so 5 stays; balancing more often and by more
// lets mu oscillate on larger models, which then do not converge; balancing
// on the cheap ADMM dual residual mu ||Xbar_k - Xbar_{k-1}||_F instead of
// the exact dual infeasibility failed on a small grid: that residual is a
// poor proxy here (bench/results/2026-11-26/NOTES.md, "The exact z-step and
// the step length"). PaperSettings gives the published method.
//
// Solve balances also at iterations 20, 40 and 80 (Settings.BalanceFirst),
// and on the gap as well as the infeasibilities (Settings.BalanceGapRatio):
// it weighs max(pinf, gap_p) against max(dinf, gap_d), at a ratio of 3,
// where the gap's numerator <C,X> + <b,y> = <S',X> - <y, A(X) - b> + <z,
// P(X)> is split into gap_d = |<S',X>| (mu <Xbar_{k-1} - X, X>, bounded by
// the dual residual) and gap_p, the rest (the multipliers times the
// constraints), each relative as the gap is. On the dense models the initial
// mu can be far from balanced, which balancing every 100 iterations by at
// most 2x corrects only after hundreds of iterations (complete graphs with
// random costs), and the gap often lags both infeasibilities in the tail:
// on deer_0034 gap_d dominates it, and a smaller mu than pinf/dinf asks for
// reaches the protocol first; giraffe_0200, whose gap also lags, is the
// exception measured, where the larger mu of pinf/dinf was faster.
// Balancing on the whole gap instead let mu fall without end on CSP_11,
// whose gap is gap_p; the early adaptations alone, on pinf/dinf, cost
// iterations on the small grids (bench/results/2026-11-27b/NOTES.md).
// SolveLR keeps balancing every BalanceEvery iterations on pinf/dinf, not
// measured otherwise.
//
// # Restarts from the average
//
// On ORIENT the iterates circle the optimum instead of approaching it, and
// the average of the iterates over such a cycle is much closer to the
// optimum, which is why restarted primal-dual methods (PDLP) restart from
// it. Every RestartEvery = 100 iterations, after the adaptation of mu, the
// iteration restarts from the average (Xbar, y, z) of the iterates since
// the last restart when the average has max(gap, pinf) (docs/relaxation.md,
// Protocol) below restartGain = 0.5 times the current iterate's; either way
// the averaging starts anew. The condition keeps the runs that converge
// without circling unchanged (the average of a monotone run lags behind
// it). Restarts cut the iterations on ORIENT several times over and leave
// the other test problems about as they were; restarting unconditionally,
// or whenever the average is better at all, cost more elsewhere
// (bench/results/2026-11-27/NOTES.md, "Figures moved from doc comments").
// SolveLR keeps the sum of Z_k Z_k^T as W W^T, compressed to the best rank
// avgRank approximation (from the Gram matrix of W) when W has more than 2
// avgRank columns, and restarts from the top r eigenpairs of the average.
//
// # Anderson acceleration (Solve)
//
// Solve treats one iteration as a fixed-point map u -> T(u) of its state u =
// (y, z, Xbar_{k-1}, Xbar_{k-2} on the pattern) and accelerates it as SCS 3
// does, by type-II Anderson acceleration with memory m = Settings.Anderson
// (10):
//
//	u' = T(u) - dF gamma,   gamma = argmin ||g - dG gamma||,   g = u - T(u),
//
// with dF, dG the last m differences of T(u) and g, in the metric of the
// iteration (Xbar scaled by sqrt(mu), y and z by 1/sqrt(mu)), and a
// safeguard: a point whose residual is larger than the previous one is
// replaced by T of the previous point. The memory starts anew when mu changes or the iteration restarts.
// Every reported iterate is a T(u): its primal point Proj(...) is PSD, its
// z >= 0, its certificate is as valid as without acceleration, and so is
// the bound mu ||Proj(...) - Xbar_{k-1}||_F on its dual infeasibility (the
// Moreau decomposition holds at any point). It costs 2 m + 5 vectors of the state's
// length (capped at 1 GiB by shortening the memory, off when fewer than two
// differences fit) and a few passes over them an iteration, in bands of
// blocks over the cores (up to four; the same iterates on any number of
// cores). It cuts the
// iterations on every test problem measured, and with it the restarts are
// not taken there (bench/results/2026-11-26/NOTES.md, "Anderson acceleration
// of the dense SDPAD"). SolveLR has no acceleration: its Xbar is a factor,
// and a combination of factors is not one of rank r.
//
// # Stopping and status
//
// StopRule Protocol (default) stops when the gap, the primal infeasibility
// and the dual infeasibility of docs/relaxation.md, Protocol are all at most Tol (status Solved); the
// dual infeasibility is exact (dense eigenvalues, computed when the cheap
// upper bound mu ||Xbar_k - Xbar_{k-1}||_F does not already settle it), and
// taken against the dual cone of the face in Face mode. StopRule Paper stops
// on the paper's min(mu ||Xbar_k - Xbar_{k-1}||_F, ||A(Xbar_k) - b||) <= Eps
// (Solved if the protocol also holds at Tol, else SolvedInaccurate). At
// MaxIter the status is SolvedInaccurate when the protocol holds at
// TolLoose, else MaxIterations; OutOfTime and ctx cancellation (Interrupted)
// keep the last iterate. With Settings.TightenTo (what Relaxer sets when
// the driver asks, under a time limit) meeting the protocol at Tol starts
// a continuation to tighter tolerances instead, whose end at the deadline
// returns the last iterate that met one (bench/results/2026-11-27b/NOTES-csp-bound.md).
//
// The raw dual objective -<b,y_k> is not a bound: at an infeasible iterate
// it often exceeds <C,Xbar_k>. Every BoundEvery iterations, and at the end, the
// certified bound (docs/relaxation.md, Certified bound) is computed from the eigenvalues of the compressed
// dual slack (sdr.Certificate); Result keeps the best one, which never
// exceeds the SDR optimum nor, hence, the minimum energy, and the dual
// iterate that gave it (BestY, BestZ). certify.Face certifies any dual
// point without an N x N matrix, such as the one complementary to a
// rounded assignment (sdr.Problem.Complement). Settings.Probe lets the
// caller stop the run early: sdrmap rounds the iterate every ProbeEvery
// iterations and stops when that certificate proves the assignment
// optimal, since a tight relaxation needs no more accuracy than that.
// certify.Face screens such a point with a loose eigensolve first, so that
// a probe that cannot prove costs about one iteration.
//
// # Projection
//
// gonum v0.17 has no dsyevr. The projection (eigen.Projector) reduces the
// matrix to tridiagonal form (Dsytrd), finds all eigenvalues (Dsterf), and
// computes eigenvectors only for the sign with fewer eigenvalues (at most
// N/2), by inverse iteration (a port of LAPACK's dstein) and the stored
// reflectors (Dormqr): Proj(V) = B B^T from the positive side or V + B B^T
// from the negative side. Only when inverse iteration fails does it finish
// the full decomposition (Dorgtr, Dsteqr), whose implicit QL sweeps cost
// more even at N/2 vectors. The tridiagonal reduction dominates, whose
// Dsymv and Dsyr2k gonum writes as plain loops; the sdrmap command installs
// internal/parblas as gonum's BLAS, which computes them with gonum's
// assembly kernels and over the cores. Built with the tag openblas (cgo,
// Debian's libopenblas-dev), the projection is LAPACK's instead, on one
// thread: dsytrd and dstedc (divide and conquer) give all eigenvalues,
// dormtr back-transforms the eigenvectors of the sign with fewer eigenvalues
// only, and OpenBLAS's dsyrk forms the projection; the header of the
// iteration table names the backend. The two builds' speed, and the
// comparison with CSDP, SDPA and DSDP on the same problems (bench/sdp_test.go):
// BENCHMARKS.md.
//
// # Low rank
//
// SolveLR replaces the projection by the top-r eigenpairs of the compressed
// V = Z Z^T - U^T S' U / mu (U of sdr.Face, Z of order (N - n) x r),
// computed by eigen.Largest warm-started from the previous eigenvectors, to
// a relative accuracy of 1e-2 times the smaller infeasibility of the last
// iterate (at most EigenTol, at most EigenMaxIter iterations): with a fixed
// 1e-6 the iteration stalled on pdb1akg. On the test problems it reaches the
// same optimum as Solve (TestLRMatchesDense). The block operations of LOBPCG
// (Rayleigh-Ritz and orthonormalization on N x 3r blocks; no guard vectors)
// dominate its time, not the operator. A truncated projection is exact only
// when V has at most r positive eigenvalues. When the SDR optimum (or the
// path to it) has a rank above MaxRank the iteration does not converge: on
// the binary frustrated grid Grids_20 it oscillates at rank MaxRank with
// both schedules.
package sdpad
