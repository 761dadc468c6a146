package suite

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TieTol is the relative tolerance under which two energies tie for the
// best (absolute below magnitude 1).
const TieTol = 1e-6

// Render writes dir/tables.md and the plots (dir/*.png) of the records and
// returns the names of the files written.
func Render(records []Record, dir string) ([]string, error) {
	plots, err := Plots(records, dir)
	if err != nil {
		return nil, err
	}
	md := Tables(records, plots)
	if err := os.WriteFile(filepath.Join(dir, "tables.md"), []byte(md), 0o644); err != nil {
		return nil, err
	}
	return append([]string{"tables.md"}, plots...), nil
}

// view indexes records by instance and solver, in order of first
// appearance.
type view struct {
	instances  []string
	solvers    []string
	categories []string
	rec        map[[2]string]*Record
	first      map[string]*Record // instance -> its first record (stats, category)
}

func newView(records []Record) *view {
	v := &view{rec: map[[2]string]*Record{}, first: map[string]*Record{}}
	for i := range records {
		r := &records[i]
		if _, ok := v.first[r.Instance]; !ok {
			v.first[r.Instance] = r
			v.instances = append(v.instances, r.Instance)
			if !slices.Contains(v.categories, r.Category) {
				v.categories = append(v.categories, r.Category)
			}
		}
		if !slices.Contains(v.solvers, r.Solver) {
			v.solvers = append(v.solvers, r.Solver)
		}
		v.rec[[2]string{r.Instance, r.Solver}] = r
	}
	return v
}

func (v *view) inCategory(c string) []string {
	var out []string
	for _, in := range v.instances {
		if v.first[in].Category == c {
			out = append(out, in)
		}
	}
	return out
}

func (v *view) filterSolvers(keep func(string) bool) []string {
	var out []string
	for _, s := range v.solvers {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// ran reports whether r is a run with a result (not skipped, not failed).
func ran(r *Record) bool {
	return r != nil && r.Status != StatusSkipped && r.Status != StatusError
}

// bestEnergy is the lowest finite energy found on the instance by the
// given solvers (+Inf if none).
func (v *view) bestEnergy(in string, solvers []string) float64 {
	best := math.Inf(1)
	for _, s := range solvers {
		if r := v.rec[[2]string{in, s}]; ran(r) && !math.IsNaN(float64(r.Energy)) {
			best = min(best, float64(r.Energy))
		}
	}
	return best
}

// isBest reports whether e ties with the best energy.
func isBest(e, best float64) bool {
	if math.IsInf(best, 1) || math.IsNaN(e) || math.IsInf(e, 1) {
		return false
	}
	return e-best <= TieTol*max(math.Abs(best), 1)
}

// Tables renders the Markdown tables; plots are the PNG files to link.
func Tables(records []Record, plots []string) string {
	v := newView(records)
	var b strings.Builder
	b.WriteString("# sdrmap bench\n\n")
	if len(records) > 0 {
		r := records[0]
		m := r.Machine
		fmt.Fprintf(&b, "Machine: %s/%s, %s, %d CPUs, %s RAM. sdrmap commit %s. Time limit %s s per run, seed %d.\n",
			m.GOOS, m.GOARCH, orDash(m.CPU), m.NumCPU, gib(m.MemBytes), orDash(r.Commit), num(r.TimeLimitS), r.Seed)
		b.WriteString("Energies: E(x) = -sum ln phi (lower is better). Times: median wall time over the repeats, seconds.\n\n")
	}
	table1(&b, v)
	table1Instances(&b, v)
	table2(&b, v)
	table3(&b, v)
	if len(plots) > 0 {
		b.WriteString("## Plots\n\n")
		for _, p := range plots {
			fmt.Fprintf(&b, "- [%s](%s)\n", p, p)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func table1(b *strings.Builder, v *view) {
	solvers := v.filterSolvers(IsMAP)
	if len(solvers) == 0 {
		return
	}
	b.WriteString("## Table 1: MAP quality\n\n")
	fmt.Fprintf(b, "Per category: mean energy over the instances where the solver returned an assignment (`[k/n]` when only k of n), "+
		"the share of instances where the solver found the best energy among the solvers run (ties within %g relative), and the mean time.\n\n", TieTol)
	hdr := []string{"category", "instances"}
	for _, s := range solvers {
		hdr = append(hdr, s+" energy", s+" best", s+" time (s)")
	}
	row := func(name string, ins []string, energies bool) []string {
		cells := []string{name, fmt.Sprint(len(ins))}
		for _, s := range solvers {
			var sumE, sumT float64
			nE, nT, nBest, nRun := 0, 0, 0, 0
			for _, in := range ins {
				r := v.rec[[2]string{in, s}]
				if !ran(r) {
					continue
				}
				nRun++
				if e := float64(r.Energy); !math.IsNaN(e) && !math.IsInf(e, 0) {
					sumE += e
					nE++
				}
				if isBest(float64(r.Energy), v.bestEnergy(in, solvers)) {
					nBest++
				}
				sumT += r.TimeS
				nT++
			}
			if nRun == 0 {
				cells = append(cells, "—", "—", "—")
				continue
			}
			e := "—"
			if energies && nE > 0 {
				e = fmt.Sprintf("%.3f", sumE/float64(nE))
				if nE < len(ins) {
					e += fmt.Sprintf(" [%d/%d]", nE, len(ins))
				}
			}
			cells = append(cells, e, fmt.Sprintf("%.0f%%", 100*float64(nBest)/float64(len(ins))), num(sumT/float64(nT)))
		}
		return cells
	}
	var rows [][]string
	for _, c := range v.categories {
		rows = append(rows, row(c, v.inCategory(c), true))
	}
	if len(v.categories) > 1 {
		rows = append(rows, row("all", v.instances, false))
	}
	writeTable(b, hdr, rows)
}

func table1Instances(b *strings.Builder, v *view) {
	solvers := v.filterSolvers(IsMAP)
	if len(solvers) == 0 {
		return
	}
	b.WriteString("### Table 1b: MAP results per instance\n\n")
	b.WriteString("Energy (bold: best among the solvers run), proven lower bound where the solver gives one, and time in seconds; `skipped`: solver not installed.\n\n")
	hdr := []string{"instance", "category"}
	for _, s := range solvers {
		hdr = append(hdr, s)
	}
	var rows [][]string
	for _, in := range v.instances {
		best := v.bestEnergy(in, solvers)
		cells := []string{in, v.first[in].Category}
		for _, s := range solvers {
			r := v.rec[[2]string{in, s}]
			switch {
			case r == nil:
				cells = append(cells, "—")
			case r.Status == StatusSkipped:
				cells = append(cells, "skipped")
			case r.Status == StatusError:
				cells = append(cells, "error")
			default:
				e := energy(float64(r.Energy))
				if isBest(float64(r.Energy), best) {
					e = "**" + e + "**"
				}
				if bd := float64(r.Bound); !math.IsNaN(bd) && !math.IsInf(bd, -1) {
					e += " ≥ " + energy(bd)
				}
				cells = append(cells, fmt.Sprintf("%s (%s s)", e, num(r.TimeS)))
			}
		}
		rows = append(rows, cells)
	}
	writeTable(b, hdr, rows)
}

func table2(b *strings.Builder, v *view) {
	b.WriteString("## Table 2: datasets\n\n")
	b.WriteString("Per category: instances, mean number of variables, range of the numbers of labels, mean numbers of edges " +
		"(distinct variable pairs) and factors, largest arity, and the order N = 1 + sum of the numbers of labels of the " +
		"relaxation's matrix (mean, and range; after the conversion of higher-order factors where there are any).\n\n")
	hdr := []string{"category", "instances", "variables", "labels", "edges", "factors", "max arity", "N (mean)", "N (range)"}
	var rows [][]string
	for _, c := range v.categories {
		ins := v.inCategory(c)
		var vars, edges, factors, nSum float64
		minL, maxL, arity, minN, maxN := math.MaxInt, 0, 0, math.MaxInt, 0
		for _, in := range ins {
			st := v.first[in].Stats
			vars += float64(st.Variables)
			edges += float64(st.Edges)
			factors += float64(st.Factors)
			minL, maxL = min(minL, st.MinCard), max(maxL, st.MaxCard)
			arity = max(arity, st.MaxArity)
			n := st.SDRDimension
			if st.SDRDimensionConverted > 0 {
				n = st.SDRDimensionConverted
			}
			nSum += float64(n)
			minN, maxN = min(minN, n), max(maxN, n)
		}
		k := float64(len(ins))
		labels := fmt.Sprintf("%d–%d", minL, maxL)
		if minL == maxL {
			labels = fmt.Sprint(minL)
		}
		nRange := fmt.Sprintf("%d–%d", minN, maxN)
		if minN == maxN {
			nRange = fmt.Sprint(minN)
		}
		rows = append(rows, []string{c, fmt.Sprint(len(ins)), fmt.Sprintf("%.0f", vars/k), labels,
			fmt.Sprintf("%.0f", edges/k), fmt.Sprintf("%.0f", factors/k), fmt.Sprint(arity), fmt.Sprintf("%.0f", nSum/k), nRange})
	}
	writeTable(b, hdr, rows)
}

func table3(b *strings.Builder, v *view) {
	solvers := v.filterSolvers(IsSDP)
	if len(solvers) == 0 {
		return
	}
	b.WriteString("## Table 3: SDP solvers\n\n")
	b.WriteString("Per instance and solver of the relaxation: its order N, time, objective <C, Xbar> and relative gap " +
		"|pobj - dobj| / (1 + |pobj| + |dobj|), primal infeasibility (each solver's own measure), and status.\n\n")
	hdr := []string{"instance", "N", "solver", "time (s)", "objective", "sdp gap", "pinf", "status"}
	var rows [][]string
	for _, in := range v.instances {
		for _, s := range solvers {
			r := v.rec[[2]string{in, s}]
			if r == nil {
				continue
			}
			n := "—"
			cells := []string{in, n, s, "—", "—", "—", "—", r.status()}
			if d := r.sdp(); d != nil {
				if d.Dimension > 0 {
					cells[1] = fmt.Sprint(d.Dimension)
				}
				if o := float64(d.Objective); !math.IsNaN(o) {
					cells[4] = fmt.Sprintf("%.8g", o)
				}
				cells[5] = sci(float64(d.Gap))
				cells[6] = sci(float64(d.PInf))
			}
			if ran(r) || r.Status == StatusError {
				cells[3] = num(r.TimeS)
			}
			if r.Status == StatusError {
				cells[7] = "error: " + oneLine(r.Error)
			}
			rows = append(rows, cells)
		}
	}
	writeTable(b, hdr, rows)
}

func writeTable(b *strings.Builder, hdr []string, rows [][]string) {
	b.WriteString("| " + strings.Join(hdr, " | ") + " |\n|")
	for range hdr {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		for i := range r {
			r[i] = strings.ReplaceAll(r[i], "|", `\|`)
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}

func energy(e float64) string {
	switch {
	case math.IsNaN(e):
		return "—"
	case math.IsInf(e, 1):
		return "+inf"
	case math.IsInf(e, -1):
		return "-inf"
	}
	return fmt.Sprintf("%.3f", e)
}

// num formats a time or other positive figure.
func num(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	case x >= 0.001 || x == 0:
		return fmt.Sprintf("%.3f", x)
	}
	return "<0.001"
}

func sci(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.1e", x)
}

func gib(b int64) string {
	if b <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, "; output tail:")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
