package sdr

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sdpaFile is an SDPA sparse file read back: c and the matrices F_k as
// dense blocks (block 2 diagonal).
type sdpaFile struct {
	m     int
	sizes []int
	c     []float64
	f     [][]*mat.SymDense // f[k][blk]
}

func readSDPA(t *testing.T, data []byte) *sdpaFile {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	var lines []string
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '"' || l[0] == '*' {
			continue
		}
		lines = append(lines, l)
	}
	atoi := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SDPA: %v", err)
		}
		return v
	}
	atof := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("SDPA: %v", err)
		}
		return v
	}
	f := &sdpaFile{m: atoi(lines[0])}
	nb := atoi(lines[1])
	for _, s := range strings.Fields(lines[2]) {
		v := atoi(s)
		if v < 0 {
			v = -v
		}
		f.sizes = append(f.sizes, v)
	}
	if len(f.sizes) != nb {
		t.Fatalf("SDPA: %d block sizes for %d blocks", len(f.sizes), nb)
	}
	for _, s := range strings.Fields(lines[3]) {
		f.c = append(f.c, atof(s))
	}
	if len(f.c) != f.m {
		t.Fatalf("SDPA: %d costs for %d constraints", len(f.c), f.m)
	}
	f.f = make([][]*mat.SymDense, f.m+1)
	for k := range f.f {
		for _, n := range f.sizes {
			f.f[k] = append(f.f[k], mat.NewSymDense(n, nil))
		}
	}
	for _, l := range lines[4:] {
		fs := strings.Fields(l)
		k, b, i, j, v := atoi(fs[0]), atoi(fs[1])-1, atoi(fs[2])-1, atoi(fs[3])-1, atof(fs[4])
		if i > j || (b == 1 && i != j) {
			t.Fatalf("SDPA entry %q: not upper triangular or off the LP diagonal", l)
		}
		f.f[k][b].SetSym(i, j, f.f[k][b].At(i, j)+v)
	}
	return f
}

// TestWriteSDPA reads the export back and checks, against the naive dense
// construction, that F_0 = -C, that the rows of y have F_k = A_k and c_k =
// b_k, and that the slack rows read Xbar[ia,jb] - s_e.
func TestWriteSDPA(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for pi, p := range randProblems(t, 5, 60) {
		var buf bytes.Buffer
		if err := WriteSDPA(&buf, p); err != nil {
			t.Fatal(err)
		}
		f := readSDPA(t, buf.Bytes())
		nv := buildNaive(p)
		if f.m != p.Y.Len+p.NumZ || f.sizes[0] != p.N() || (p.NumZ > 0) != (len(f.sizes) == 2) {
			t.Fatalf("problem %d: header m = %d, sizes %v", pi, f.m, f.sizes)
		}
		negC := scaled(nv.c, -1)
		if !mat.EqualApprox(f.f[0][0], negC, 0) {
			t.Fatalf("problem %d: F_0 != -C", pi)
		}
		for k, ak := range nv.a {
			if !mat.EqualApprox(f.f[k+1][0], ak, 0) || f.c[k] != nv.b[k] {
				t.Fatalf("problem %d: row %d differs from A_k, b_k", pi, k)
			}
		}
		x := randSymDense(r, p.N())
		for e, pk := range nv.pk {
			k := p.Y.Len + e + 1
			if got, want := frob(f.f[k][0], x), x.At(pk[0], pk[1]); !near(got, want, 1e-15) {
				t.Fatalf("problem %d: slack row %d reads %v, want X = %v", pi, e, got, want)
			}
			if f.f[k][1].At(e, e) != -1 || f.c[k-1] != 0 {
				t.Fatalf("problem %d: slack row %d: LP entry %v, c %v", pi, e, f.f[k][1].At(e, e), f.c[k-1])
			}
		}
	}
}
