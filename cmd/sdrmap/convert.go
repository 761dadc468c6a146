package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap/format/opengm"
	"github.com/sdrmap/sdrmap/format/toulbar2"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

func convertCmd() *cobra.Command {
	var lim solvecmd.LimitFlags
	c := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert a model between UAI, OpenGM HDF5 and toulbar2's wcsp and cfn",
		Long: `convert reads IN (UAI, possibly compressed, OpenGM HDF5, or toulbar2's .wcsp
or .cfn) and writes OUT: OpenGM HDF5 if OUT ends in .h5 (optionally
OUT.h5:group, default group gm), wcsp if it ends in .wcsp, cfn if in .cfn,
plain UAI text otherwise. Energies are preserved exactly in meaning: an OpenGM
value v and a toulbar2 cost v are the UAI potential phi = exp(-v), and zero
probabilities are +Inf values, forbidden tuples. Writing and reading HDF5
needs a build with -tags hdf5.

Rules: wcsp holds integer costs only (a cost within 1e-9 relative of an
integer is written rounded; others are refused: write .cfn), non-negative
ones (functions are shifted into the constant; a model whose least costs
sum below 0 is refused). cfn writes every cost as the shortest decimal
that reads back to the same double. From a toulbar2 file to wcsp or cfn
the names are kept, and the file's bound where every cost that is not
forbidden stays below it (otherwise the bound written is 1 + the sum of
the functions' largest non-negative costs). UAI and HDF5 do not hold the
bound: an assignment whose total cost reaches it is feasible there. A cfn
maximization becomes a minimization of the negated costs.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := loadWithin(lim, args[0], "")
			if err != nil {
				return err
			}
			out := args[1]
			if format := toulbar2.Format(out); format != "" {
				return writeToulbar2(in, out, format)
			}
			if file, group := opengm.SplitPath(out); strings.EqualFold(filepath.Ext(file), ".h5") {
				if group == "" {
					group = opengm.DefaultGroup
				}
				return opengm.WriteFile(file, group, in.Model)
			}
			return solvecmd.WriteFile(out, func(w io.Writer) error { return uai.WriteModel(w, in.Model) })
		},
	}
	lim.Register(c.Flags())
	return c
}

// writeToulbar2 writes in's model to out in toulbar2's format ("wcsp" or
// "cfn"), with the bound and names of a toulbar2 input.
func writeToulbar2(in *input, out, format string) error {
	if l := strings.ToLower(out); strings.HasSuffix(l, ".gz") || strings.HasSuffix(l, ".xz") {
		return fmt.Errorf("%s: writing compressed toulbar2 files is not supported", out)
	}
	var h toulbar2.Header
	if in.Toulbar2 != nil {
		h = toulbar2.HeaderOf(in.Toulbar2)
	}
	return solvecmd.WriteFile(out, func(w io.Writer) error {
		if format == "wcsp" {
			return toulbar2.WriteWCSP(w, in.Model, h)
		}
		return toulbar2.WriteCFN(w, in.Model, h)
	})
}
