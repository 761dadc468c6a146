package suite

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot sizes.
const (
	plotWidth  = 6 * vg.Inch
	plotHeight = 4 * vg.Inch
)

// Plots writes, for every instance, sdp_gap_NAME.png (the SDP gap against
// time, log scale: the traces of sdrmap's SDR solvers as lines, the
// external SDP solvers as single end points) when an SDP solver ran, and
// energy_NAME.png (energy against time of the MAP solvers, one point per
// solver) when a MAP solver returned a finite energy. It returns the file
// names, relative to dir.
func Plots(records []Record, dir string) ([]string, error) {
	v := newView(records)
	style := map[string]int{} // solver -> color and glyph index, stable across plots
	for i, s := range v.solvers {
		style[s] = i
	}
	var out []string
	for _, in := range v.instances {
		if p := sdpGapPlot(v, in, style); p != nil {
			name := "sdp_gap_" + fileName(in) + ".png"
			if err := p.Save(plotWidth, plotHeight, filepath.Join(dir, name)); err != nil {
				return out, err
			}
			out = append(out, name)
		}
		if p := energyPlot(v, in, style); p != nil {
			name := "energy_" + fileName(in) + ".png"
			if err := p.Save(plotWidth, plotHeight, filepath.Join(dir, name)); err != nil {
				return out, err
			}
			out = append(out, name)
		}
	}
	return out, nil
}

// fileName makes an instance name safe as a file name.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// minTime is the smallest time shown on a log axis.
const minTime = 1e-3

// minGap is the smallest SDP gap shown on the log axis.
const minGap = 1e-10

func sdpGapPlot(v *view, in string, style map[string]int) *plot.Plot {
	p := plot.New()
	p.Title.Text = "SDP gap vs time: " + in
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "relative SDP gap"
	clamped := false
	xr, yr := newRange(), newRange()
	any := false
	for _, s := range v.solvers {
		r := v.rec[[2]string{in, s}]
		if !IsSDP(s) || !ran(r) {
			continue
		}
		var pts plotter.XYs
		for _, t := range r.Trace {
			g := float64(t.SDPGap)
			if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
				continue
			}
			if g < minGap {
				g, clamped = minGap, true
			}
			pts = append(pts, plotter.XY{X: max(t.T, minTime), Y: g})
		}
		if len(pts) == 0 {
			continue
		}
		any = true
		for _, q := range pts {
			xr.add(q.X)
			yr.add(q.Y)
		}
		c := plotutil.Color(style[s])
		if len(pts) == 1 {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				continue
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: plotutil.Shape(style[s])}
			p.Add(sc)
			p.Legend.Add(s, sc)
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			continue
		}
		l.Color, l.Width = c, vg.Points(1.5)
		last, _ := plotter.NewScatter(pts[len(pts)-1:])
		last.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: plotutil.Shape(style[s])}
		p.Add(l, last)
		p.Legend.Add(s, l, last)
	}
	if !any {
		return nil
	}
	if clamped {
		p.Y.Label.Text += " (below 1e-10: drawn at 1e-10)"
	}
	logAxis(&p.X, xr.min, xr.max, 1.2)
	logAxis(&p.Y, yr.min, yr.max, 1.5)
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p
}

func energyPlot(v *view, in string, style map[string]int) *plot.Plot {
	p := plot.New()
	p.Title.Text = "Energy vs time: " + in
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "energy (-sum ln phi, lower is better)"
	xs, ys := newRange(), newRange()
	any := false
	for _, s := range v.solvers {
		r := v.rec[[2]string{in, s}]
		if !IsMAP(s) || !ran(r) {
			continue
		}
		e := float64(r.Energy)
		if math.IsNaN(e) || math.IsInf(e, 0) {
			continue
		}
		pt := plotter.XY{X: max(r.TimeS, minTime), Y: e}
		xs.add(pt.X)
		ys.add(pt.Y)
		sc, err := plotter.NewScatter(plotter.XYs{pt})
		if err != nil {
			continue
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(style[s]), Radius: vg.Points(4), Shape: plotutil.Shape(style[s])}
		p.Add(sc)
		p.Legend.Add(s, sc)
		any = true
	}
	if !any {
		return nil
	}
	logAxis(&p.X, xs.min, xs.max, 1.2)
	pad := 0.08 * (ys.max - ys.min)
	if pad == 0 {
		pad = 0.5 + 1e-3*math.Abs(ys.max)
	}
	p.Y.Min, p.Y.Max = ys.min-pad, ys.max+pad
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p
}

// logAxis makes a log axis covering [lo/room, hi*room] in whole decades.
func logAxis(a *plot.Axis, lo, hi, room float64) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = decadeTicks{}
	a.Min = math.Pow(10, math.Floor(math.Log10(lo/room)))
	a.Max = math.Pow(10, math.Ceil(math.Log10(hi*room)))
	if a.Max <= a.Min {
		a.Max = a.Min * 10
	}
}

// decadeTicks labels the powers of ten (1e-05, 0.001, 1, 100, 1e+04) and
// marks 2..9 times them.
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	k0, k1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	step := max(1, (k1-k0+7)/8) // at most about 8 labels
	for k := k0; k <= k1; k++ {
		v, _ := strconv.ParseFloat("1e"+strconv.Itoa(k), 64) // exact decimal power
		if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
			t := plot.Tick{Value: v}
			if (k-k0)%step == 0 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
		}
		if step == 1 {
			for m := 2; m < 10; m++ {
				if w := v * float64(m); w >= lo && w <= hi {
					ts = append(ts, plot.Tick{Value: w})
				}
			}
		}
	}
	return ts
}

type valueRange struct{ min, max float64 }

func newRange() *valueRange { return &valueRange{math.Inf(1), math.Inf(-1)} }

func (r *valueRange) add(x float64) {
	r.min, r.max = min(r.min, x), max(r.max, x)
}
