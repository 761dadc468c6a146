package toulbar2

import (
	"fmt"
	"math"
)

// arithParams is the number of parameters of each binary cost function in
// intension that the readers tabulate (toulbar2's "wcsp format" and "CFN
// format" documentation: arithmetic and disjunctive functions).
var arithParams = map[string]int{">=": 2, ">": 2, "<=": 2, "<": 2, "=": 2, "disj": 3, "sdisj": 6}

// arithTable tabulates the binary cost function keyword with parameters q
// over x in 0..cx-1, y in 0..cy-1 (value indices), as toulbar2 defines it;
// its "UB", a forbidden tuple, is +Inf:
//
//	>=  cst delta: d = y + cst - x;     d <= delta ? max(d, 0) : UB
//	>   cst delta: d = y + cst + 1 - x; likewise
//	<=  cst delta: d = x - cst - y;     likewise
//	<   cst delta: d = x - cst + 1 - y; likewise
//	=   cst delta: d = |y + cst - x|;   d <= delta ? d : UB
//	disj cstx csty w: x >= y + csty or y >= x + cstx ? 0 : w
//	sdisj cstx csty xinf yinf wx wy: UB unless x <= xinf, y <= yinf and,
//	    when x < xinf and y < yinf, x >= y + csty or y >= x + cstx;
//	    otherwise (x = xinf ? wx : 0) + (y = yinf ? wy : 0)
func arithTable(keyword string, q []float64, cx, cy int) ([]float64, error) {
	if len(q) != arithParams[keyword] {
		return nil, fmt.Errorf("%q takes %d parameters, found %d", keyword, arithParams[keyword], len(q))
	}
	inf := math.Inf(1)
	costs := make([]float64, cx*cy)
	for x := range cx {
		for y := range cy {
			fx, fy := float64(x), float64(y)
			var c float64
			switch keyword {
			case ">=", ">", "<=", "<", "=":
				cst, delta := q[0], q[1]
				var d float64
				switch keyword {
				case ">=":
					d = fy + cst - fx
				case ">":
					d = fy + cst + 1 - fx
				case "<=":
					d = fx - cst - fy
				case "<":
					d = fx - cst + 1 - fy
				case "=":
					d = math.Abs(fy + cst - fx)
				}
				if c = max(d, 0); d > delta {
					c = inf
				}
			case "disj":
				if !(fx >= fy+q[1] || fy >= fx+q[0]) {
					c = q[2]
				}
			case "sdisj":
				cstx, csty, xinf, yinf := q[0], q[1], q[2], q[3]
				switch {
				case fx > xinf || fy > yinf:
					c = inf
				case fx < xinf && fy < yinf && !(fx >= fy+csty || fy >= fx+cstx):
					c = inf
				default:
					if fx == xinf {
						c += q[4]
					}
					if fy == yinf {
						c += q[5]
					}
				}
			}
			costs[x*cy+y] = c
		}
	}
	return costs, nil
}
