// Package sdpad solves the SDR of package sdr with the paper's Algorithm 1
// (SDPAD, spec §5; Solve, dense Xbar) and Algorithm 2 (SDPAD-LR, spec §6;
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
// # The steps: exact z-step and step length 1.6 (default) or §5's
//
// Written as the alternating direction method of Wen, Goldfarb and Yin on
// the dual (spec §5), the y- and z-steps minimize the dual augmented
// Lagrangian over y and over z >= 0; A and P touch disjoint entries of
// Xbar, so the two minimizations are independent and each is preconditioned
// by its Gram inverse: (AA*)^{-1} for y, (PP*)^{-1} = 2I for z under
// spec §3's P* (z/2 at [ia,jb] and [jb,ia], P P* = I/2). §5 writes the
// z-step with mu alone, half of the exact step (Settings.ExactZ). In the
// same method the multiplier Xbar may take a step gamma in (0, (1 + sqrt
// 5)/2) along its update (Fortin and Glowinski; Wen, Goldfarb and Yin take
// 1.6), §5 being gamma = 1; eliminating their slack S then gives the
// extrapolation above, with which the y- and z-steps stay exact
// (Settings.StepLength). Solve takes both, ExactZ and gamma = 1.6;
// SolveLR takes ExactZ and gamma = 1, since (1 - gamma) Y Y^T + gamma Y'
// Y'^T would double the factor's rank; PaperSettings keeps §5's steps.
// With gamma > 1 Xbar_k need not be PSD: the primal point measured (§8),
// rounded and returned is the projection Proj(...) (Result.X).
// Iterations to the protocol, §5's steps, the exact z-step, and both
// (BENCHMARKS.md, "The exact z-step and the step length"):
//
//	deer_0034, 1e-3                          1086    809    734
//	deer_0294, 1e-3                          2287   1451   1099
//	giraffe_0200, 1e-3                        862    707    564
//	10 x 10 x 4 Potts grid, 1e-4              534    490    374
//	the schedule table's 44 problems, 1e-4   2359   2130   1939
//	CSP_11, 1e-4, four initial penalties:
//	  medians, pure Go                       2311   2461   1816
//	  medians, OpenBLAS                      2400   2877   1840
//
// The exact z-step alone made CSP_11 erratic (1,563 to 11,923 iterations
// over the four penalties, 11,923 at the default one in the pure-Go build);
// with gamma = 1.6 it takes 1,402 to 2,105.
//
// # Cone: the minimal face (default) or the PSD cone (the paper)
//
// The feasible set has no interior (§3): every feasible Xbar satisfies Xbar
// v_i = 0, v_i = e_0 - sum_a e_ia, and a dual slack must be PSD also on the
// v_i, which the optimum of a dual need not allow: on the remark example y
// grows while -<b,y> creeps towards the optimum. With Settings.Face (the
// default), Proj is the projection onto the minimal face F = {U Y U^T : Y
// PSD} (sdr.Face, an O(N^2) change of basis), i.e. facial reduction done as
// a change of cone: A, P, (AA*)^{-1} and the feasible set are unchanged, and
// the dual slack need only be PSD on range(U). Without forbidden pairs the
// face problem has a strictly feasible point (§3). The eigenproblem shrinks
// to order N - n. Face = false is the
// paper's projection onto the whole PSD cone.
//
// # Penalty schedule: residual balancing (default) or the paper's
//
// Measured on 44 problems (the remark example of §10, Potts grids 3x4 with 4
// labels and 5x5 with 3, ORIENT n = 30 with 8 labels, the UAI 2008
// side-chain model pdb1akg, and 40 random tiny models with forbidden
// entries), protocol stop at 1e-4, at most 20000 iterations, total
// iterations and unsolved problems (TestMeasureSchedules, 2026-11-26; the
// balanced rows start at the dense default mu0, DenseMuShare ||C||_F /
// sqrt(N), unless said otherwise; the rows with Anderson use the
// acceleration of Solve, below; all but the last four take §5's half
// z-step, and all but the last two gamma = 1, above):
//
//	PSD cone, paper (mu_min 1e-3, rho 1.005, unbounded)   136857   5 unsolved
//	PSD cone, paper schedule capped at mu <= 100          121304   4
//	PSD cone, residual balancing, restarts                 85468   3
//	face, paper schedule                                   36424   0
//	face, fixed mu = 1                                     11223   0
//	face, balancing every 20 iterations by up to 4x        24080   1
//	face, balancing, restarts, mu0 = ||C||_F / sqrt(N)      6718   0
//	face, balancing every 100 by up to 2x, restarts         4565   0
//	the same, Anderson acceleration, memory 5               2569   0
//	the same, memory 10, mu0 = ||C||_F / sqrt(N)            4122   0
//	the same, memory 10                                     2359   0
//	the same, balancing at ratio 10 instead of 5            2303   0
//	the same, balancing at ratio 20                         3074   0
//	balancing every 100 by up to 2x, restarts, exact z      4098   0
//	the same, Anderson acceleration, memory 10              2130   0
//	exact z, gamma = 1.6                                    3517   0
//	the same, Anderson acceleration, memory 10              1939   0  (default)
//
// On the remark example the paper's schedule diverges as the spec warns (mu
// reaches 1e40 and -<b,y> -1e31 by iteration 20000); the default solves it
// in 157 iterations (46 from the whole ratio). Hence the default: Face, and
// Balanced, which starts at mu = DenseMuShare ||C||_F / sqrt(N) in Solve and
// at ||C||_F / sqrt(N) (the ratio of the scales of S' and Xbar) in SolveLR,
// and every 100 iterations multiplies mu by sqrt(pinf/dinf) (clamped to
// [1/2, 2]) when the primal and the exact dual infeasibility of §8 differ by
// more than a factor 5. Ratio 10 (with §5's steps) took deer_0034 to the
// 1e-3 protocol in 946 instead of 1,086 iterations, but under auto solved
// CSP_11 in 1.3 times the time and left the 60-s bounds of the dense models
// mixed (BENCHMARKS.md, "The exact z-step and the step length"), so 5 stays.
// Balancing every 20 iterations by up to 4x needs fewer iterations on the
// random models (2335 against 2604) but does not solve ORIENT n = 30, and on
// larger ones mu oscillates (between 70 and 280 on the frustrated 20 x 20
// grid Grids_26) and the run does not converge: SDPAD-LR for 60 s
// (TestMeasureSchedulesShared) ends at gap 0.90 on Grids_26 and 0.46 on
// Segmentation_12 with it, solved in 38 s and 21 s with the default;
// ImageAlignment_12 (gap 0.73 against 0.12 after 60 s) also gains, CSP_11
// loses (solved in 53 s, against gap 3e-3 at 60 s). Balancing on the cheap
// ADMM dual residual mu ||Xbar_k - Xbar_{k-1}||_F instead of the exact dual
// infeasibility failed on the 3x4 grid (20000 iterations): that residual is
// a poor proxy here. PaperSettings gives the published method.
//
// # Restarts from the average
//
// On ORIENT the iterates circle the optimum instead of approaching it: at n
// = 1000 the primal objective swings between about -35,000 and -14,000
// (optimum -22,741) with a period of about 150 iterations. The average of
// the iterates over such a cycle is much closer to the optimum, which is
// why restarted primal-dual methods (PDLP) restart from it. Every
// RestartEvery = 100 iterations, after the adaptation of mu, the iteration
// restarts from the average (Xbar, y, z) of the iterates since the last
// restart when the average has max(gap, pinf) (§8) below restartGain = 0.5
// times the current iterate's; either way the averaging starts anew. The
// condition keeps the runs that converge without circling unchanged (the
// average of a monotone run lags behind it). Dense Solve to 1e-7 on ORIENT
// with m = 8 (`gen.Orient`, seed 1, symmetry broken): n = 30, degree 6: 2942
// iterations without restarts and 1122 with them at p = 0.1, 2481 and 1209 at
// p = 0.2; n = 60, degree 8: 5994 and 901 at p = 0.1, not solved in 200 s
// (5425 iterations) and 905 at p = 0.2. TestMeasureSchedules at 1e-4: 6937
// iterations in all without restarts, 6240 with them (the 40 random models
// unchanged, orient30 1376 against 730). SolveLR for 60 s
// (TestMeasureSchedulesShared; without restarts, then with them):
// ImageAlignment_12 gap 2e-2 at the limit against solved to 5e-9 in 56 s,
// Segmentation_12 solved in 2555 against 1670 iterations, Grids_26 7525
// against 7392, pdb1akg 580 both, CSP_11 not solved by either (the same
// bound). Restarting unconditionally did better on ORIENT (812, 1041, 901
// and 1001 iterations) but cost 1.7x on the small grids of
// TestMeasureSchedules; restarting whenever the average is better at all
// cost SolveLR 1.5x on ORIENT at n = 24 (2215 against 1465 iterations).
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
// length (at N = 601 with 1,770 dense edge blocks 0.1 GB; capped at 1 GiB by
// shortening the memory, off when fewer than two differences fit) and a few
// passes over them an iteration. TestMeasureSchedules: 2359 iterations in
// all against 4565 (the remark example 61 against 157, orient30 99 against
// 488, pdb1akg 170 against 268, the 40 random models 1505 against 2604);
// with it the restarts are never taken there (the same total without them).
// On the 10 x 10 x 4 Potts grid (N = 401) the whole run to 1e-4 takes 0.37
// of the time; on deer_0034 (N = 601) the 1e-3 protocol is reached in 1,086
// iterations (BENCHMARKS.md, "Anderson acceleration"). SolveLR has no
// acceleration: its Xbar is a factor, and a combination of factors is not
// one of rank r.
//
// # Stopping and status
//
// StopRule Protocol (default) stops when the gap, the primal infeasibility
// and the dual infeasibility of §8 are all at most Tol (status Solved); the
// dual infeasibility is exact (dense eigenvalues, computed when the cheap
// upper bound mu ||Xbar_k - Xbar_{k-1}||_F does not already settle it), and
// taken against the dual cone of the face in Face mode. StopRule Paper stops
// on the paper's min(mu ||Xbar_k - Xbar_{k-1}||_F, ||A(Xbar_k) - b||) <= Eps
// (Solved if the protocol also holds at Tol, else SolvedInaccurate). At
// MaxIter the status is SolvedInaccurate when the protocol holds at
// TolLoose, else MaxIterations; TimeLimit and ctx cancellation (Interrupted)
// keep the last iterate.
//
// The raw dual objective -<b,y_k> is not a bound: at an infeasible iterate
// it exceeds <C,Xbar_k> about half of the time (58% of 41937 iterates on the
// tiny test models). Every BoundEvery iterations, and at the end, the
// certified bound of §9 is computed from the eigenvalues of the compressed
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
// 2.5-3x more even at N/2 vectors. At N = 601 with 220 positive eigenvalues
// (deer_0034's order and its iterates' rank; eigen BenchmarkProject601,
// medians of 5 on one core): 194 ms spread, 218 ms clustered, against 573
// and 508 ms for the full decomposition that the projection took there
// before 2026-11-26 (above 0.3 N vectors); the eigenvalues alone take
// 127-155 ms: the tridiagonal reduction dominates, whose Dsymv and Dsyr2k
// gonum writes as plain loops. The sdrmap command installs internal/parblas
// as gonum's BLAS, which computes them with gonum's assembly kernels and
// over the cores: at N = 541 the reduction takes 0.41 of the time on one
// core and 0.31 on two, and deer_0034's 1e-3 protocol 92 instead of 126 s
// on one core (BENCHMARKS.md, "gonum's BLAS loops on its assembly
// kernels"). Built with the tag openblas (cgo, Debian's libopenblas-dev),
// the projection is LAPACK's instead, on one thread: dsytrd and dstedc
// (divide and conquer) give all eigenvalues, dormtr back-transforms the
// eigenvectors of the sign with fewer eigenvalues only, and OpenBLAS's dsyrk
// forms the projection: 41 ms at N = 601, 0.82 of dsyevd's with its full
// back-transformation (BenchmarkProject601, the same run), and deer_0034's
// 1e-3 protocol in the same iterations in 36 instead of 90 s (one core)
// (BENCHMARKS.md, "LAPACK's eigensolver from OpenBLAS", "The partial
// back-transformation");
// the header of the iteration table names the backend. For the comparison
// with CSDP, SDPA and DSDP on the same problems see bench/sdp_test.go and
// BENCHMARKS.md.
//
// # Low rank
//
// SolveLR replaces the projection by the top-r eigenpairs of the compressed
// V = Z Z^T - U^T S' U / mu (U of sdr.Face, Z of order (N - n) x r),
// computed by eigen.Largest warm-started from the previous eigenvectors, to
// a relative accuracy of 1e-2 times the smaller infeasibility of the last
// iterate (at most EigenTol, at most EigenMaxIter iterations): with a fixed
// 1e-6 the iteration stalled at pinf 2e-6 on pdb1akg (11,855 iterations
// instead of 791). On the test problems it takes the same number of
// iterations as Solve (remark 75/75, grids 534/511 and 1024/1125, pdb1akg
// 815/930) and reaches the same optimum (TestLRMatchesDense). On the
// 10 x 10 grid it is 3x faster than Solve (BENCHMARKS.md); there the block
// operations of LOBPCG (Rayleigh-Ritz and orthonormalization on N x 3r
// blocks; no guard vectors) dominate, not the operator. A truncated
// projection is exact only when V has at most r positive eigenvalues. When the SDR optimum (or the path to it) has
// a rank above MaxRank the iteration does not converge: on the binary
// frustrated grid Grids_20 (N = 12,801) it oscillates at rank 32 with
// pinf ~ 1 after 1000 iterations, with both schedules.
package sdpad
