// Package logprob reads potentials written as decimal (or hexadecimal)
// numbers and returns their natural logarithms, exact for every positive
// value whose logarithm is a finite float64: subnormal values (math.Log is
// wrong on them on amd64) and values beyond the float64 range (1e-400,
// 1e400) included. It is the one place where the readers of the model
// formats turn a potential phi into the log potential w = ln phi of
// model.Table, and where the writers turn w back into a decimal phi.
//
// For phi in the normal float64 range, w = math.Log(phi). Otherwise the
// token is split as phi = 0.d1d2... x 10^E (hexadecimal: x 2^E), and
// w = ln(0.d1d2...) + E ln 10 from the first 19 significant digits, with
// ln 10 split in a head and a tail so that E ln 10 loses no bits.
package logprob

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Parse returns ln phi for the number phi written in tok, within a few
// ulps of ln phi (or of 2^-52 near phi = 1, where the float64 nearest phi
// sets the precision). zero reports
// phi = 0 exactly (a forbidden entry; ln is then 0). Negative, infinite and
// NaN values and malformed numbers are errors, whose message reads after
// the token's description ("entry of factor 3: ...").
func Parse(tok string) (ln float64, zero bool, err error) {
	v, perr := strconv.ParseFloat(tok, 64)
	if perr != nil {
		var ne *strconv.NumError
		if !errors.As(perr, &ne) || ne.Err != strconv.ErrRange {
			return 0, false, ErrSyntax
		}
	}
	if math.IsNaN(v) || (perr == nil && math.IsInf(v, 0)) {
		return 0, false, ErrNotFinite
	}
	if perr == nil && v >= minNormal {
		return math.Log(v), false, nil
	}
	// 0, subnormal, underflowed to 0, or overflowed to +-Inf: from the digits.
	neg, digits, exp, base, ok := split(tok)
	if !ok {
		return 0, false, ErrSyntax
	}
	if digits == "" {
		return 0, true, nil
	}
	if neg {
		return 0, false, ErrNegative
	}
	return lnOf(digits, exp, base)
}

// The errors of Parse.
var (
	ErrSyntax    = errors.New("not a number")
	ErrNotFinite = errors.New("not finite")
	ErrNegative  = errors.New("negative")
	ErrRange     = errors.New("out of range: its logarithm is beyond the float64 range")
)

// minNormal is the smallest positive normal float64.
const minNormal = 0x1p-1022

// maxDigits is the number of significant digits kept: more than float64
// resolves.
const maxDigits = 19

// split decomposes a number token accepted by strconv.ParseFloat as
// (-1)^neg x 0.digits x base^exp, digits without leading or trailing zeros
// ("" for zero) and truncated to maxDigits; base is 10 or 16 (the digits are
// then hexadecimal and exp counts powers of 2, so that the value is
// 0.digits(hex) x 2^exp).
func split(tok string) (neg bool, digits string, exp int64, base int, ok bool) {
	s := tok
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base = 10
	expChar := "eE"
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		base, expChar = 16, "pP"
		s = s[2:]
	}
	s = strings.ReplaceAll(s, "_", "") // digit separators, as strconv accepts them
	mant, expPart := s, ""
	if i := strings.IndexAny(s, expChar); i >= 0 {
		mant, expPart = s[:i], s[i+1:]
	}
	if expPart != "" {
		e, err := strconv.ParseInt(expPart, 10, 64)
		if err != nil || e > 1<<50 || e < -(1<<50) {
			return false, "", 0, 0, false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	point := int64(len(intPart))
	i := 0
	for i < len(all) && all[i] == '0' {
		i++
	}
	all, point = all[i:], point-int64(i)
	all = strings.TrimRight(all, "0")
	if len(all) > maxDigits {
		all = all[:maxDigits]
	}
	if all == "" {
		return neg, "", 0, base, true
	}
	if base == 16 {
		point *= 4 // a hexadecimal digit is four binary places
	}
	return neg, all, exp + point, base, true
}

// lnOf returns ln(0.digits x base^exp) (base 16: x 2^exp).
func lnOf(digits string, exp int64, base int) (float64, bool, error) {
	var m float64
	var err error
	head, tail := ln10Head, ln10Tail
	if base == 16 {
		m, err = strconv.ParseFloat("0x0."+digits+"p0", 64)
		head, tail = ln2Head, ln2Tail
	} else {
		m, err = strconv.ParseFloat("0."+digits, 64)
	}
	if err != nil {
		return 0, false, ErrSyntax
	}
	e := float64(exp)
	ln := e*head + (e*tail + math.Log(m))
	if math.IsInf(ln, 0) {
		return 0, false, ErrRange
	}
	return ln, false, nil
}

// ln10Head + ln10Tail is ln 10 to about 80 bits, the head with 24
// significant bits so that E x head is exact for |E| < 2^29 (ln2 alike).
var (
	ln10Head, ln10Tail = splitConst("2.30258509299404568401799145468436420760110148862877297603332790")
	ln2Head, ln2Tail   = splitConst("0.693147180559945309417232121458176568075500134360255254120680009")
)

func splitConst(s string) (head, tail float64) {
	f, _, err := big.ParseFloat(s, 10, 256, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	h, _ := f.Float64()
	head = math.Float64frombits(math.Float64bits(h) &^ (1<<29 - 1))
	t, _ := new(big.Float).SetPrec(256).Sub(f, big.NewFloat(head)).Float64()
	return head, t
}

// AppendDecimal appends a decimal phi with ln phi = ln (within a few ulps
// of ln): exp(ln) with 17 significant digits where that is a normal
// float64, else m e E with 1 <= m < 10 and E = floor(ln / ln 10), so that
// no log potential becomes 0 or +Inf in the writing.
func AppendDecimal(b []byte, ln float64) []byte {
	if ln > -708 && ln < 709 {
		return strconv.AppendFloat(b, math.Exp(ln), 'g', 17, 64)
	}
	e := math.Floor(ln / math.Ln10)
	r := (ln - e*ln10Head) - e*ln10Tail
	for r < 0 { // rounding of the floor's quotient
		e--
		r = (ln - e*ln10Head) - e*ln10Tail
	}
	for r >= ln10Head {
		e++
		r = (ln - e*ln10Head) - e*ln10Tail
	}
	b = strconv.AppendFloat(b, math.Exp(r), 'f', 16, 64)
	b = append(b, 'e')
	return strconv.AppendInt(b, int64(e), 10)
}
