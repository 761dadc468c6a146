//go:build amd64 && !purego

#include "textflag.h"

// FMA3 adds the broadcast entry of A in Y15 times B's row (Y12-Y14) to one
// row of accumulators.
#define FMA3(r0, r1, r2) \
	VFMADD231PD Y12, Y15, r0; \
	VFMADD231PD Y13, Y15, r1; \
	VFMADD231PD Y14, Y15, r2

// STORE3 adds one row of accumulators to C's row at DX.
#define STORE3(r0, r1, r2) \
	VADDPD (DX), r0, r0; \
	VMOVUPD r0, (DX); \
	VADDPD 32(DX), r1, r1; \
	VMOVUPD r1, 32(DX); \
	VADDPD 64(DX), r2, r2; \
	VMOVUPD r2, 64(DX)

// func kern4x12(k int, a, b, c *float64, ldc int)
//
// C[0:4, 0:12] += A B, A packed k x 4 (a[4p+i]), B packed k x 12
// (b[12p+j]), C row-major with row stride ldc: twelve accumulators
// Y0-Y11 (row i in Y(3i)..Y(3i+2)), B's row in Y12-Y14, a broadcast of
// A's entry in Y15.
TEXT ·kern4x12(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	TESTQ CX, CX
	JEQ store

loop:
	VMOVUPD (DI), Y12
	VMOVUPD 32(DI), Y13
	VMOVUPD 64(DI), Y14
	VBROADCASTSD (SI), Y15
	FMA3(Y0, Y1, Y2)
	VBROADCASTSD 8(SI), Y15
	FMA3(Y3, Y4, Y5)
	VBROADCASTSD 16(SI), Y15
	FMA3(Y6, Y7, Y8)
	VBROADCASTSD 24(SI), Y15
	FMA3(Y9, Y10, Y11)
	ADDQ $32, SI
	ADDQ $96, DI
	DECQ CX
	JNE loop

store:
	STORE3(Y0, Y1, Y2)
	ADDQ R8, DX
	STORE3(Y3, Y4, Y5)
	ADDQ R8, DX
	STORE3(Y6, Y7, Y8)
	ADDQ R8, DX
	STORE3(Y9, Y10, Y11)
	VZEROUPPER
	RET
