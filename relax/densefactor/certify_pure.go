//go:build !(openblas && cgo)

package densefactor

// denseCertify is the largest face order whose certificates take every
// eigenvalue densely (gonum's eigensolver, which cannot be interrupted);
// beyond it Lanczos, whose dinf overstates the exact one while many
// eigenvalues are negative (certify.Partial bounds each uncomputed one by
// the largest computed).
const denseCertify = 2000
