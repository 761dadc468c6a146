package sdr_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdrmap/sdrmap/internal/randmodel"
	"github.com/sdrmap/sdrmap/model"
	"github.com/sdrmap/sdrmap/relax/sdpad"
	"github.com/sdrmap/sdrmap/sdr"
	"github.com/sdrmap/sdrmap/solver"
)

// unaryOnRow0 returns p with the unary term moved from the diagonal to row
// 0: C[0,ia] = C[ia,0] = -w_i(a)/2 (docs/relaxation.md, Relaxation).
func unaryOnRow0(p *sdr.Problem) *sdr.Problem {
	q := *p
	c := sdr.NewSym(&q)
	c.CopyFrom(p.C)
	for i, m := range p.Card {
		for a := range m {
			c.Row0[p.Offset[i]+a] = c.Diag[i][a*m+a] / 2
			c.Diag[i][a*m+a] = 0
		}
	}
	q.C = c
	return &q
}

// TestUnaryPlacement: the diagonal and row-0 placements of the unary term
// give the same SDR optimum (both solved with SDPAD).
func TestUnaryPlacement(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	s := sdpad.DefaultSettings()
	s.Tol = 1e-8
	done := 0
	for done < 12 {
		m := randmodel.New(r, randmodel.Options{Vars: 2 + r.IntN(3), MaxCard: 3, MinCard2: true, Factors: 4, MaxArity: 2, Forbidden: 0.1})
		pw, err := m.Pairwise(nil)
		if err != nil {
			continue
		}
		p, err := sdr.Build(pw)
		if errors.Is(err, sdr.ErrInfeasible) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var vals [2]float64
		for k, q := range []*sdr.Problem{p, unaryOnRow0(p)} {
			res, err := sdpad.Solve(context.Background(), q, s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != solver.Solved {
				t.Fatalf("model %d placement %d: %v", done, k, res.Status)
			}
			vals[k] = res.PrimalObjective
		}
		if math.Abs(vals[0]-vals[1]) > 1e-6*(1+math.Abs(vals[0])) {
			t.Fatalf("model %d: diagonal %v, row 0 %v", done, vals[0], vals[1])
		}
		done++
	}
}

// TestSDPASignWithCSDP solves the export of the remark example (docs/relaxation.md, Small cases)
// with CSDP: its objective values must be -min <C,Xbar> = 1.
func TestSDPASignWithCSDP(t *testing.T) {
	bin, err := exec.LookPath("csdp")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("csdp not found on PATH")
		}
		t.Skip("csdp not found on PATH")
	}
	pw := &model.Pairwise{
		Card:  []int{2, 2},
		Unary: []model.Table{{Log: []float64{-2, 0}}, {Log: []float64{3, 0}}},
		Edges: []model.Edge{{I: 0, J: 1, Table: model.Table{Log: []float64{0, -2, -2, 0}}}},
	}
	p, err := sdr.Build(pw)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := sdr.WriteSDPA(&buf, p); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "remark.dat-s")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, file)
	cmd.Dir = dir
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) {
		t.Fatalf("csdp: %v\n%s", err, out)
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		for _, prefix := range []string{"Primal objective value:", "Dual objective value:"} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
				if err != nil || math.Abs(v-1) > 1e-3 {
					t.Fatalf("csdp %s %q, want 1", prefix, rest)
				}
				n++
			}
		}
	}
	if n != 2 {
		t.Fatalf("csdp output without objective values:\n%s", out)
	}
}
