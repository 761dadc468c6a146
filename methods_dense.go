package sdrmap

import (
	"github.com/sdrmap/sdrmap/relax"
	"github.com/sdrmap/sdrmap/relax/densefactor"
)

// The dense factor ALM (relax/densefactor) as a relaxation method.
func init() {
	Register(RelaxMethod("factor-dense", `the same relaxation solved on a factor Xbar = V V^T of high rank
by an augmented Lagrangian with dense kernels (relax/densefactor:
V V^T and the gradient M V by BLAS-3 on the whole matrix, for
dense models such as complete graphs; rank --rank, 0: N/3,
growing up to --max-rank, 0: N, along negative curvature of the
certificate; L-BFGS preconditioned by the Lagrangian's Hessian
diagonal; certificates by thick-restart Lanczos on the minimal
face); memory O(N^2); rounding and probes as for sdpad`,
		func(*Settings) relax.Solver { return densefactor.Relaxer{} }))
}
