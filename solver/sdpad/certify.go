package sdpad

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/sdrmap/sdrmap/sdr"
)

// CertifyFace returns the certificate (§9) of the dual point (y, z >= 0)
// from the CertifyRank smallest eigenpairs of the compressed slack U^T S' U
// (sdr.Face), found by LOBPCG on the implicit operator: no N x N matrix is
// formed. warm (N x k, may be nil) seeds the search in Xbar's coordinates,
// with vectors near the slack's smallest eigenvectors (such as a point the
// slack should annihilate, sdr.Problem.Complement).
//
// A first, loose eigensolve (a run-time certificate: CertifyTol, at most
// certifyMaxIter iterations) screens the point: its smallest Ritz value
// theta is at least lambda_min, so no certificate of this point exceeds
// the energy bound from theta. When that is below target, the loose
// certificate is returned; otherwise the eigensolve goes on to the
// tolerance of SolveLR's closing certificate. target = -Inf always takes
// the tight one. exact reports that the last eigensolve converged; the
// bound rests on the smallest Ritz value less its residual either way
// (see SolveLR).
func CertifyFace(prob *sdr.Problem, y, z []float64, warm *mat.Dense, target float64, s Settings) (c sdr.Certificate, exact bool, err error) {
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
	failed := errors.New("sdpad: the eigensolver of the certificate failed")
	c, exact, ok := lr.partial(y, z, true, s.CertifyTol, certifyMaxIter)
	if !ok {
		return sdr.Certificate{}, false, failed
	}
	if _, reach := prob.Bound(y, c.LambdaMinFace); reach < target {
		return c, exact, nil
	}
	if c, exact, ok = lr.partial(y, z, true, closeCertifyTol, closeCertifyMaxIter); !ok {
		return sdr.Certificate{}, false, failed
	}
	return c, exact, nil
}
