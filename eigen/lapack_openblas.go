//go:build openblas && cgo

package eigen

/*
#cgo LDFLAGS: -lopenblas
#include <stddef.h>
#include <cblas.h>
extern void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
	double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
	size_t jobz_len, size_t uplo_len);
extern void dsytrd_(const char *uplo, const int *n, double *a, const int *lda, double *d, double *e,
	double *tau, double *work, const int *lwork, int *info, size_t uplo_len);
extern void dstedc_(const char *compz, const int *n, double *d, double *e, double *z, const int *ldz,
	double *work, const int *lwork, int *iwork, const int *liwork, int *info, size_t compz_len);
extern void dormtr_(const char *side, const char *uplo, const char *trans, const int *m, const int *n,
	const double *a, const int *lda, const double *tau, double *c, const int *ldc,
	double *work, const int *lwork, int *info, size_t side_len, size_t uplo_len, size_t trans_len);
*/
import "C"

import (
	"os"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// init installs OpenBLAS's dsyevd, its parts and dsyrk, on one thread unless
// OPENBLAS_NUM_THREADS says otherwise: a second thread saves little wall
// time for much more CPU, spinning while Go works
// (bench/results/2026-11-26/NOTES.md, "The partial back-transformation"), a
// poor trade on a shared machine or beside other goroutines.
func init() {
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
	syevd, tridiagEig, ormtr, syrk = openblasSyevd, openblasTridiagEig, openblasOrmtr, openblasSyrk
	backend = "OpenBLAS, LAPACK's dsytrd and dstedc"
}

// openblasSyevd calls LAPACK's dsyevd from OpenBLAS (Debian libopenblas-dev).
func openblasSyevd(vectors bool, n int, a, w []float64, work []float64, iwork []int32) bool {
	jobz := C.char('N')
	if vectors {
		jobz = 'V'
	}
	uplo := C.char('L')
	cn, lwork, liwork := C.int(n), C.int(len(work)), C.int(len(iwork))
	var info C.int
	C.dsyevd_(&jobz, &uplo, &cn, (*C.double)(unsafe.Pointer(&a[0])), &cn,
		(*C.double)(unsafe.Pointer(&w[0])), (*C.double)(unsafe.Pointer(&work[0])), &lwork,
		(*C.int)(unsafe.Pointer(&iwork[0])), &liwork, &info, 1, 1)
	return info == 0
}

// openblasTridiagEig is LAPACK's dsytrd (lower) and dstedc (all eigenpairs
// of the tridiagonal form, divide and conquer): tridiagEig.
func openblasTridiagEig(n int, a, w, e, tau, z, work []float64, iwork []int32) bool {
	cn, lwork, liwork := C.int(n), C.int(len(work)), C.int(len(iwork))
	cw, ce, cwork := (*C.double)(unsafe.Pointer(&w[0])), (*C.double)(unsafe.Pointer(&e[0])), (*C.double)(unsafe.Pointer(&work[0]))
	var info C.int
	uplo, compz := C.char('L'), C.char('I')
	C.dsytrd_(&uplo, &cn, (*C.double)(unsafe.Pointer(&a[0])), &cn, cw, ce, (*C.double)(unsafe.Pointer(&tau[0])), cwork, &lwork, &info, 1)
	if info != 0 {
		return false
	}
	C.dstedc_(&compz, &cn, cw, ce, (*C.double)(unsafe.Pointer(&z[0])), &cn,
		cwork, &lwork, (*C.int)(unsafe.Pointer(&iwork[0])), &liwork, &info, 1)
	return info == 0
}

// openblasOrmtr is LAPACK's dormtr on the first k rows of z (columns of
// the column-major n x k block): ormtr.
func openblasOrmtr(n, k int, a, tau, z, work []float64) bool {
	cn, ck, lwork := C.int(n), C.int(k), C.int(len(work))
	side, uplo, trans := C.char('L'), C.char('L'), C.char('N')
	var info C.int
	C.dormtr_(&side, &uplo, &trans, &cn, &ck, (*C.double)(unsafe.Pointer(&a[0])), &cn, (*C.double)(unsafe.Pointer(&tau[0])),
		(*C.double)(unsafe.Pointer(&z[0])), &cn, (*C.double)(unsafe.Pointer(&work[0])), &lwork, &info, 1, 1, 1)
	return info == 0
}

// openblasSyrk is blas64.Syrk by OpenBLAS's cblas_dsyrk (row-major).
func openblasSyrk(t blas.Transpose, alpha float64, a blas64.General, beta float64, c blas64.Symmetric) {
	n, k := a.Rows, a.Cols
	trans := C.enum_CBLAS_TRANSPOSE(C.CblasNoTrans)
	if t != blas.NoTrans {
		n, k, trans = a.Cols, a.Rows, C.CblasTrans
	}
	uplo := C.enum_CBLAS_UPLO(C.CblasUpper)
	if c.Uplo == blas.Lower {
		uplo = C.CblasLower
	}
	C.cblas_dsyrk(C.CblasRowMajor, uplo, trans, C.int(n), C.int(k), C.double(alpha),
		(*C.double)(unsafe.Pointer(&a.Data[0])), C.int(a.Stride), C.double(beta),
		(*C.double)(unsafe.Pointer(&c.Data[0])), C.int(c.Stride))
}
