package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap/format/toulbar2"
	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/internal/jsonfloat"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
	"github.com/sdrmap/sdrmap/model"
)

func evalCmd() *cobra.Command {
	var evid string
	var asJSON bool
	var lim solvecmd.LimitFlags
	c := &cobra.Command{
		Use:   "eval FILE SOLUTION",
		Short: "Print the energy and log10 score of an assignment",
		Long: `eval reads an assignment in the UAI result format ("MAP" then "n x0 ... x{n-1}")
and prints its energy E(x) = -sum ln phi_f(x_f) (+Inf if it uses a forbidden
entry) and its log10 score. With --evid, the assignment must agree with the
evidence. For a toulbar2 model (.wcsp, .cfn) SOLUTION may also be what
toulbar2 -w writes: the values of all variables on one line, as indices or
(cfn) value names.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := loadWithin(lim, args[0], evid)
			if err != nil {
				return err
			}
			m, ev := in.Model, in.Evidence
			lm, _ := lim.Limits()
			x, err := readAssignment(in, args[1], lm)
			if err != nil {
				return err
			}
			if err := m.Check(x); err != nil {
				return fmt.Errorf("%s: %w", args[1], err)
			}
			for _, o := range ev {
				if x[o.Var] != o.Value {
					return fmt.Errorf("%s: variable %d is %d, the evidence says %d", args[1], o.Var, x[o.Var], o.Value)
				}
			}
			e := m.Energy(x)
			notes := in.Notes(e)
			if asJSON {
				out := map[string]any{
					"energy": jsonfloat.Float(e), "log10": jsonfloat.Float(model.Log10(e)), "energy_convention": in.Convention,
				}
				if notes != nil {
					out["notes"] = notes
				}
				return writeJSON(cmd.OutOrStdout(), out)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "energy  %.9f  (%s)\nlog10   %.9f\n", e, in.Convention, model.Log10(e))
			for _, n := range notes {
				fmt.Fprintf(cmd.OutOrStdout(), "note    %s\n", n)
			}
			return nil
		},
	}
	c.Flags().StringVar(&evid, "evid", "", "evidence file (UAI 2014 or PIC 2011 layout)")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"energy": ..., "log10": ...}`)
	lim.Register(c.Flags())
	return c
}

// readAssignment reads an assignment of in's model from path: a UAI result,
// or for a toulbar2 model a toulbar2 solution.
func readAssignment(in *input, path string, lm model.Limits) ([]int, error) {
	if in.Toulbar2 == nil {
		return uai.ReadResultFileLimits(path, lm)
	}
	data, err := uai.ReadAllLimit(path, uai.ResultBytes(lm))
	if err != nil {
		return nil, err
	}
	if toulbar2.IsSolution(data) {
		return in.Toulbar2.ParseSolution(path, data)
	}
	return uai.ParseResult(path, data)
}
