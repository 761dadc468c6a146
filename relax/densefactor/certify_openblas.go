//go:build openblas && cgo

package densefactor

// denseCertify is the largest face order whose certificates take every
// eigenvalue densely: with LAPACK's eigensolver (eigen, build tag
// openblas), every order up to DefaultMaxOrder. Lanczos's few eigenvalues
// overstate dinf while many are negative (certify.Partial bounds each
// uncomputed one by the largest computed), which stalls the penalty's
// residual balancing and the protocol's test, and give at most
// CertifyRank directions to grow the rank; the dense certificate is exact
// and gives them all, but cannot be interrupted (a time limit may be
// overrun by one eigendecomposition).
const denseCertify = DefaultMaxOrder
