// Package sdr builds the semidefinite relaxation (SDR) of MAP inference of
// Huang, Chen and Guibas (ICML 2014, section 2) for a pairwise model and
// provides it as structured operators that never form an N x N matrix
// (except the dense bridges Sym.ToDense, Sym.AddTo, Sym.FromDense, Face and
// Certify, which serve the dense solver and tests). The mathematics is in
// docs/relaxation.md, whose sections are cited by name below.
//
// # The relaxation (docs/relaxation.md, Lifting, Relaxation)
//
// The lifted matrix is Xbar = [[1, x^T], [x, X]] of order N = 1 + sum_i m_i,
// index 0 the homogenizing coordinate and index (i,a) = Offset[i] + a. The
// SDR is the minimization
//
//	minimize <C, Xbar>  s.t.  A(Xbar) = b,  P(Xbar) >= 0,  Xbar PSD,
//
// with the unary term on the diagonal, C[ia,ia] = -w_i(a), and the pairwise
// term split symmetrically, C[ia,jb] = C[jb,ia] = -W_ij(a,b)/2. On an
// integral point <C, Xbar> = -(f(x) - Const), so the energy of the model is
// E(x) = <C, Xbar> - Const, where Const is the Pairwise's constant.
//
// The rows of y, in this order (see Layout):
//
//   - E0: Xbar[0,0] = 1
//   - E1_i: sum_a Xbar[0,ia] = 1
//   - E2_ia: Xbar[ia,ia] - Xbar[0,ia] = 0
//   - E3_iab: Xbar[ia,ib] = 0 for a < b
//   - E4: Xbar[ia,jb] = 0 for a forbidden pair (a,b) on edge (i,j)
//
// P(Xbar) lists Xbar[ia,jb] for every edge (i,j) and every pair (a,b) that
// is not forbidden, edge by edge, row-major within an edge.
//
// # Forbidden entries (an extension of the paper)
//
// The paper has finite potentials only. Here a forbidden unary state (phi =
// 0) is removed from its variable's domain before the lifting: Card[i] counts
// the allowed states and States[i][a] is the Pairwise's number of reduced
// state a; a variable without an allowed state makes Build fail with
// ErrInfeasible. A forbidden pair (a,b) on edge (i,j) becomes the equality
// Xbar[ia,jb] = 0 (family E4, A_k = (e_ia e_jb^T + e_jb e_ia^T)/2, b_k = 0)
// and leaves P. Every assignment of finite energy stays feasible, and E4 rows
// are orthogonal to every other row with Gram diagonal 1/2, so (A A*)^{-1}
// keeps its closed form (docs/relaxation.md, Operators).
//
// # Signs (docs/relaxation.md, Operators, Protocol, Certified bound)
//
// The Lagrangian is L = <C,Xbar> + <y, A(Xbar) - b> - <z, P(Xbar)> with z >=
// 0. The dual is
//
//	maximize -<b,y>  s.t.  S = C + A*(y) - P*(z) PSD,  z >= 0,
//
// so the dual objective is -<b,y> and DualSlack returns S' = C + A*(y) -
// P*(z). For every y and z >= 0 and every feasible Xbar (trace n+1),
//
//	<C,Xbar> >= -<b,y> + (n+1) min(0, lambda_min(S')),
//
// which Certify turns into a rigorous lower bound on the SDR optimum and on
// the energy of every assignment (see Certificate for the rounding margin).
// In the paper's maximization form, UB = -(that bound) bounds max f.
//
// # The minimal face
//
// The feasible set has no interior: every feasible Xbar has Xbar v_i = 0,
// v_i = e_0 - sum_a e_ia (docs/relaxation.md, Minimal face). Face gives an orthonormal basis U of the
// complement of the v_i (order N - n) with O(N^2) products U^T W U and U Y
// U^T. Solvers may project onto {U Y U^T : Y PSD} instead of the PSD cone
// (same feasible set, attained dual), and Certify uses lambda_min(U^T S' U),
// which is at least lambda_min(S') and still certifies. FaceSym holds U^T S
// U for a Sym S with S's sparsity (U is block diagonal but for one dense
// column), for the eigensolvers' many products with it.
//
// # A certificate at an assignment
//
// When the relaxation is tight at an assignment x, every dual solution is
// complementary to Xhat = v v^T, v = e_0 + sum_i e_{i,x_i}: its slack
// annihilates v and z vanishes on Xhat's support. A solver's dual iterate
// is farthest from dual feasibility along v; Complement moves it, in
// closed form, to a dual point complementary to Xhat, whose certified bound (docs/relaxation.md) is
// then E(x) up to the negative eigenvalues left on the complement of v.
// With a unique optimum and strict complementarity these vanish near a
// solution, and the bound proves x optimal from an iterate whose own bound
// is far from it. Assignments that differ from x at one variable with the
// same energy (ties) are optimal too; Complement makes the dual
// complementary to those at non-adjacent variables as well, on the face.
//
// # Export
//
// WriteSDPA writes the same relaxation in SDPA sparse format for CSDP and
// SDPA (see its doc for the sign conventions of the file).
package sdr
