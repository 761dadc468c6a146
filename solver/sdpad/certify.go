package sdpad

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"sdrmap/sdr"
)

// CertifyFace returns the certificate (§9) of the dual point (y, z >= 0)
// from the CertifyRank smallest eigenpairs of the compressed slack U^T S' U
// (sdr.Face), found by LOBPCG on the implicit operator to the tolerance of
// SolveLR's closing certificate: no N x N matrix is formed. warm (N x k,
// may be nil) seeds the search in Xbar's coordinates, with vectors near
// the slack's smallest eigenvectors (such as a point the slack should
// annihilate, sdr.Problem.Complement). exact reports that the eigensolver
// converged; the bound rests on the smallest Ritz value less its residual
// either way (see SolveLR).
func CertifyFace(prob *sdr.Problem, y, z []float64, warm *mat.Dense, s Settings) (c sdr.Certificate, exact bool, err error) {
	s.Face = true
	if err := s.check(prob); err != nil {
		return sdr.Certificate{}, false, err
	}
	lr := newLowRank(prob, &s)
	lr.slack = sdr.NewSym(prob)
	prob.DualSlack(lr.slack, y, z)
	if warm != nil {
		_, k := warm.Dims()
		lr.warmC = mat.NewDense(lr.d, k, nil)
		lr.face.Restrict(lr.warmC, warm)
	}
	c, exact, ok := lr.partial(y, z, true, closeCertifyTol, closeCertifyMaxIter)
	if !ok {
		return sdr.Certificate{}, false, errors.New("sdpad: the eigensolver of the certificate failed")
	}
	return c, exact, nil
}
