package methods

import (
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/densefactor"
)

// denseFactorN is the largest order N of the lifted matrix that auto
// relaxes by the dense factor ALM (beyond denseN): its N x N matrices, a
// few of them, take about 2 GB at 6000.
const denseFactorN = 6000

// The dense factor ALM (relax/densefactor) as a relaxation method.
func init() {
	Register(RelaxMethod[RelaxOptions]("factor-dense", `the same relaxation solved on a factor Xbar = V V^T of high rank
by an augmented Lagrangian with dense kernels (relax/densefactor:
V V^T and the gradient M V by BLAS-3 on the whole matrix, for
dense models such as complete graphs; rank --rank, 0: N/3 up to 320,
growing up to --max-rank, 0: N, along negative curvature of the
certificate; L-BFGS preconditioned by the Lagrangian's Hessian
diagonal; penalty balanced against the dual infeasibility;
certificates from every eigenvalue of the slack on the minimal
face); memory O(N^2); rounding and probes as for sdpad`,
		func(RelaxOptions) relax.Solver { return densefactor.Relaxer{} }))
}
