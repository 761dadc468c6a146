package logprob

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// bigLn is the oracle: ln x in 256-bit arithmetic, from x = mant 2^e
// (mant in [0.5, 1), big.Float.MantExp) and ln y = 2 atanh((y-1)/(y+1))
// summed as a series, a route independent of Parse's base-10 split and of
// math.Log.
func bigLn(x *big.Float) float64 {
	const prec = 256
	mant := new(big.Float).SetPrec(prec)
	e := x.MantExp(mant)
	ln2 := atanhLn(new(big.Float).SetPrec(prec).SetInt64(2))
	lm := atanhLn(mant)
	r := new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetInt64(int64(e)))
	r.Add(r, lm)
	f, _ := r.Float64()
	return f
}

// atanhLn returns ln y = 2 sum_k z^(2k+1)/(2k+1), z = (y-1)/(y+1), for y > 0.
func atanhLn(y *big.Float) *big.Float {
	const prec = 256
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	z := new(big.Float).SetPrec(prec).Sub(y, one)
	z.Quo(z, new(big.Float).SetPrec(prec).Add(y, one))
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum := new(big.Float).SetPrec(prec)
	term := new(big.Float).SetPrec(prec).Set(z)
	eps := new(big.Float).SetMantExp(one, -prec)
	for k := int64(0); ; k++ {
		t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetInt64(2*k+1))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
		term.Mul(term, z2)
	}
	return sum.Add(sum, sum)
}

func oracle(t *testing.T, tok string) float64 {
	t.Helper()
	x, _, err := big.ParseFloat(tok, 0, 256, big.ToNearestEven)
	if err != nil {
		t.Fatalf("oracle cannot parse %q: %v", tok, err)
	}
	return bigLn(x)
}

// ulps is the distance between a and b in units of the last place of b,
// or of 2^-52 if larger: near phi = 1 the rounding of phi to a float64
// bounds the precision of ln phi to 2^-53 absolute.
func ulps(a, b float64) float64 {
	u := max(math.Nextafter(math.Abs(b), math.Inf(1))-math.Abs(b), 0x1p-52)
	return math.Abs(a-b) / u
}

func TestParseAgainstOracle(t *testing.T) {
	toks := []string{
		"5e-324", "4.9406564584124654e-324", "1e-308", "2.2250738585072014e-308", "2.2250738585072009e-308",
		"1e-400", "1E-400", "0.5e-400", "123.456e-1000", "0.000000000000000000001e-320",
		"1e400", "1.7976931348623157e308", "1.8e308", "9.999999999999999999999999e-1",
		"1", "0.5", "1e-300", "1e300", "3.14159", "+2.5e-330", "0x1p-1074", "0x1.8p-1074", "0x1p-1080",
		"0x1p+1030", "0X0.0001P-1070", "0x1_0p-1080", "7e-30000", "12345678901234567890123e-420",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		mant := r.Float64()*9 + 1
		e := r.IntN(1400) - 1000
		toks = append(toks, fmt.Sprintf("%.*fe%d", r.IntN(20), mant, e))
	}
	for range 300 {
		// Subnormals by their bits, written with every digit.
		v := math.Float64frombits(1 + r.Uint64N(1<<52-1))
		toks = append(toks, strconv.FormatFloat(v, 'g', -1, 64), strconv.FormatFloat(v, 'x', -1, 64))
	}
	for _, tok := range toks {
		got, zero, err := Parse(tok)
		if err != nil || zero {
			t.Errorf("Parse(%q): zero %v, error %v", tok, zero, err)
			continue
		}
		want := oracle(t, tok)
		if u := ulps(got, want); u > 4 {
			t.Errorf("Parse(%q) = %.17g, oracle %.17g (%.1f ulps)", tok, got, want, u)
		}
	}
}

// TestParseIssue45 checks the reproductions of issue 45, item 1: math.Log
// gives -709.09 for 5e-324 on amd64, and 1e-400 used to be read as 0.
func TestParseIssue45(t *testing.T) {
	for tok, want := range map[string]float64{"5e-324": -744.4289, "1e-400": -921.0340, "1e-308": -709.1962} {
		got, zero, err := Parse(tok)
		if err != nil || zero || math.Abs(got-want) > 1e-3 {
			t.Errorf("Parse(%q) = %v, %v, %v; want %v", tok, got, zero, err, want)
		}
	}
}

func TestParseZeroAndErrors(t *testing.T) {
	for _, tok := range []string{"0", "0.0", "-0", "+0e-500", "0e999999", "0x0p-2000", "000.000"} {
		if _, zero, err := Parse(tok); !zero || err != nil {
			t.Errorf("Parse(%q): zero %v, error %v; want an exact zero", tok, zero, err)
		}
	}
	for tok, want := range map[string]string{
		"-1": "negative", "-1e-400": "negative", "-1e400": "negative", "-5e-324": "negative",
		"inf": "not finite", "NaN": "not finite", "+Inf": "not finite",
		"abc": "not a number", "1e": "not a number", "": "not a number",
		"1e-9999999999999999999": "not a number",
	} {
		if _, _, err := Parse(tok); err == nil || err.Error() != want {
			t.Errorf("Parse(%q): error %v, want %q", tok, err, want)
		}
	}
}

// TestAppendDecimal checks that the written decimal reads back as the same
// log potential over the whole float64 range of logs, through the range
// where exp underflows to 0 or overflows to +Inf.
func TestAppendDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lns := []float64{0, -708, 709, -745.2, -744.44, 710, -1e5, 1e5, -2.5e8, 1e-300, -1e-300}
	for range 3000 {
		lns = append(lns, (r.Float64()*2-1)*math.Pow(10, r.Float64()*7))
	}
	for _, ln := range lns {
		tok := string(AppendDecimal(nil, ln))
		got, zero, err := Parse(tok)
		if err != nil || zero {
			t.Fatalf("AppendDecimal(%v) = %q: reads back with zero %v, error %v", ln, tok, zero, err)
		}
		if d := math.Abs(got - ln); d > 8e-16*math.Max(1, math.Abs(ln)) {
			t.Errorf("AppendDecimal(%v) = %q reads back as %v", ln, tok, got)
		}
		if want := oracle(t, tok); ulps(got, want) > 4 {
			t.Errorf("%q: Parse %v, oracle %v", tok, got, want)
		}
	}
}

// TestMathLogSubnormal documents why Parse does not call math.Log on
// subnormals: on some platforms (amd64) it is far off there. It only logs.
func TestMathLogSubnormal(t *testing.T) {
	t.Logf("math.Log(5e-324) = %v; oracle %v", math.Log(5e-324), oracle(t, "4.9406564584124654e-324"))
}
