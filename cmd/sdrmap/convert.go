package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap/format/opengm"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

func convertCmd() *cobra.Command {
	var lim solvecmd.LimitFlags
	c := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert a model between UAI and OpenGM HDF5",
		Long: `convert reads IN (UAI, possibly compressed, or OpenGM HDF5) and writes OUT:
OpenGM HDF5 if OUT ends in .h5 (optionally OUT.h5:group, default group gm),
plain UAI text otherwise. Energies are preserved exactly in meaning: an OpenGM
value v is the UAI potential phi = exp(-v), and zero probabilities are +Inf
values. Writing and reading HDF5 needs a build with -tags hdf5.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := loadWithin(lim, args[0], "")
			if err != nil {
				return err
			}
			out := args[1]
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
