package methods

import (
	"testing"

	"github.com/sdrmap/sdrmap/gen"
	"github.com/sdrmap/sdrmap/model"
)

func orient(n, m int, degree, noise float64) *model.Model {
	md, _ := gen.Orient(n, m, degree, noise, 1)
	return md
}

// TestAutoRelaxation: auto relaxes a grid by the factor ALM, a complete
// graph by SDPAD, or SDPAD-LR when N > 1000, and a shift-invariant model
// (ORIENT) by cyclic.
func TestAutoRelaxation(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *model.Model
		want string
	}{
		{"grid", gen.PottsGrid(6, 6, 3, 1, 7), "factor"},
		{"complete", gen.DenseMatching(8, 9, 7), "sdpad"},
		{"complete, N > 1000", gen.DenseMatching(40, 40, 7), "sdpad-lr"},
		{"orient", orient(60, 8, 8, 0.1), "cyclic"},
	} {
		p, err := c.m.Pairwise(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := autoRelaxation(p); got != c.want {
			t.Errorf("%s: auto relaxes by %s, want %s", c.name, got, c.want)
		}
	}
}

// TestKeepsSymmetry: auto keeps the symmetry of ORIENT and breaks it when
// the model has forbidden entries; cyclic always keeps it, sdpad never.
func TestKeepsSymmetry(t *testing.T) {
	md := orient(60, 8, 8, 0.1)
	forbid := orient(20, 4, 3, 0.1)
	for f := range forbid.Factors {
		for a := range 4 {
			forbid.Factors[f].Forbid(a*4 + (a+2)%4) // x_j - x_i = 2 forbidden everywhere: still shift invariant
		}
	}
	if !forbid.ShiftInvariant() || KeepsSymmetry("auto", forbid) || !KeepsSymmetry("auto", md) || !KeepsSymmetry("cyclic", forbid) || KeepsSymmetry("sdpad", md) {
		t.Errorf("KeepsSymmetry: auto with forbidden entries %v, auto %v, cyclic %v, sdpad %v",
			KeepsSymmetry("auto", forbid), KeepsSymmetry("auto", md), KeepsSymmetry("cyclic", forbid), KeepsSymmetry("sdpad", md))
	}
}

// TestOptionsOf: nil gives the defaults, a value or a pointer of the
// method's type is taken, another type is an error naming the method.
func TestOptionsOf(t *testing.T) {
	if o, err := OptionsOf[ExactOptions]("exact", &Run{}); err != nil || o != (ExactOptions{}) {
		t.Errorf("nil: %+v, %v", o, err)
	}
	if o, err := OptionsOf[ExactOptions]("exact", &Run{Options: ExactOptions{MaxStates: 5}}); err != nil || o.MaxStates != 5 {
		t.Errorf("value: %+v, %v", o, err)
	}
	if o, err := OptionsOf[ExactOptions]("exact", &Run{Options: &ExactOptions{MaxStates: 6}}); err != nil || o.MaxStates != 6 {
		t.Errorf("pointer: %+v, %v", o, err)
	}
	if _, err := OptionsOf[ExactOptions]("exact", &Run{Options: ICMOptions{}}); err == nil {
		t.Error("ICMOptions accepted by exact")
	}
}
