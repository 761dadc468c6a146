//go:build amd64 && !purego

#include "textflag.h"

// func dotAxpy(alpha float64, a, x, y *float64, n int) float64
//
// Returns a . x and sets y += alpha a, all of length n: eight entries a
// step in two pairs of accumulators (Y1, Y2 the dot, alpha in Y0), the
// rest one at a time after the dot's lanes are summed into X1.
TEXT ·dotAxpy(SB), NOSPLIT, $0-48
	VBROADCASTSD alpha+0(FP), Y0
	MOVQ a+8(FP), SI
	MOVQ x+16(FP), DI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2

loop8:
	CMPQ CX, $8
	JL reduce
	VMOVUPD (SI), Y3
	VMOVUPD 32(SI), Y4
	VFMADD231PD (DI), Y3, Y1
	VFMADD231PD 32(DI), Y4, Y2
	VMOVUPD (DX), Y5
	VFMADD231PD Y3, Y0, Y5
	VMOVUPD Y5, (DX)
	VMOVUPD 32(DX), Y6
	VFMADD231PD Y4, Y0, Y6
	VMOVUPD Y6, 32(DX)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $8, CX
	JMP loop8

reduce:
	VADDPD Y2, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	VADDPD X2, X1, X1
	VHADDPD X1, X1, X1

tail:
	TESTQ CX, CX
	JEQ done
	VMOVSD (SI), X3
	VFMADD231SD (DI), X3, X1
	VMOVSD (DX), X4
	VFMADD231SD X3, X0, X4
	VMOVSD X4, (DX)
	ADDQ $8, SI
	ADDQ $8, DI
	ADDQ $8, DX
	DECQ CX
	JMP tail

done:
	VMOVSD X1, ret+40(FP)
	VZEROUPPER
	RET
