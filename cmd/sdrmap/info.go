package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap/higherorder"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
	"github.com/sdrmap/sdrmap/model"
)

func infoCmd() *cobra.Command {
	var evid string
	var asJSON bool
	var lim solvecmd.LimitFlags
	c := &cobra.Command{
		Use:   "info FILE",
		Short: "Print the sizes of a model",
		Long: `info prints the number of variables, the cardinality range, the factor count and
arity histogram, the number of edges (distinct variable pairs of arity-2
factors; after a conversion, pairs sharing a factor of any arity), the number of forbidden (zero-probability) entries and the order
N = 1 + sum of cardinalities of the semidefinite relaxation's matrix.
With --evid, it also reports the free variables left by the evidence.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := loadWithin(lim, args[0], evid)
			if err != nil {
				return err
			}
			m, ev := in.Model, in.Evidence
			st := m.Stats()
			out := struct {
				File string `json:"file"`
				model.Stats
				Pairwise      bool   `json:"pairwise"`
				Evidence      int    `json:"evidence,omitempty"`
				FreeVariables *int   `json:"free_variables,omitempty"`
				Note          string `json:"pairwise_note,omitempty"`
				// ShiftInvariant: E(x + 1 mod m) = E(x) (model.ShiftInvariant).
				ShiftInvariant bool `json:"shift_invariant"`
				// Sizes after the exact conversion of higher-order factors.
				Converted *higherorder.Stats `json:"converted,omitempty"`
				Toulbar2  string             `json:"toulbar2,omitempty"`
			}{File: args[0], Stats: st, Evidence: len(ev), ShiftInvariant: m.ShiftInvariant(), Toulbar2: toulbar2Info(in)}
			if lm, _ := lim.Limits(); st.MaxArity > 2 {
				if err := higherorder.CheckSize(m, lm); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				_, mp, err := higherorder.Convert(m, higherorder.Settings{})
				if err != nil {
					return err
				}
				out.Converted = &mp.Stats
			}
			p, err := m.Pairwise(ev)
			out.Pairwise = err == nil
			if err != nil {
				out.Note = err.Error()
			} else if ev != nil {
				free := p.NumVars()
				out.FreeVariables = &free
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "file               %s\n", args[0])
			fmt.Fprintf(w, "variables          %d\n", st.Variables)
			fmt.Fprintf(w, "cardinality        %d..%d\n", st.MinCardinality, st.MaxCardinality)
			fmt.Fprintf(w, "factors            %d\n", st.Factors)
			fmt.Fprintf(w, "arity histogram   ")
			for k, c := range st.ArityHistogram {
				if c > 0 {
					fmt.Fprintf(w, " %d:%d", k, c)
				}
			}
			fmt.Fprintf(w, "\nmax arity          %d\n", st.MaxArity)
			fmt.Fprintf(w, "edges              %d  (variable pairs of arity-2 factors)\n", st.Edges)
			fmt.Fprintf(w, "forbidden entries  %d\n", st.ForbiddenEntries)
			fmt.Fprintf(w, "sdr dimension      %d\n", st.SDRDimension)
			if out.Toulbar2 != "" {
				fmt.Fprintf(w, "toulbar2           %s\n", out.Toulbar2)
			}
			if out.ShiftInvariant {
				how := fmt.Sprintf("solve fixes variable %d to state 0", m.SymmetryBreak())
				if st.ForbiddenEntries == 0 {
					how = fmt.Sprintf("auto and cyclic solve the relaxation reduced by it, the other solvers fix variable %d to state 0", m.SymmetryBreak())
				}
				fmt.Fprintf(w, "shift invariant    yes: E(x + 1 mod %d) = E(x); without evidence %s\n", st.MaxCardinality, how)
			}
			if ev != nil {
				fmt.Fprintf(w, "evidence           %d observed\n", len(ev))
				if out.FreeVariables != nil {
					fmt.Fprintf(w, "free variables     %d\n", *out.FreeVariables)
				}
			}
			if out.Note != "" {
				fmt.Fprintf(w, "pairwise           no: %s\n", out.Note)
			}
			if c := out.Converted; c != nil {
				fmt.Fprintf(w, "converted          %d auxiliary variables (%d factors encoded, %d decomposed)\n", c.Aux, c.Encoded, c.Decomposed)
				fmt.Fprintf(w, "  variables        %d -> %d\n", c.Before.Vars, c.After.Vars)
				fmt.Fprintf(w, "  sdr dimension    %d -> %d\n", c.Before.N, c.After.N)
				fmt.Fprintf(w, "  edges            %d -> %d  (variable pairs sharing a factor of any arity)\n", c.Before.Edges, c.After.Edges)
				fmt.Fprintf(w, "  pattern entries  %d -> %d\n", c.Before.Pattern, c.After.Pattern)
			}
			return nil
		},
	}
	c.Flags().StringVar(&evid, "evid", "", "evidence file (UAI 2014 or PIC 2011 layout)")
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON object instead of text")
	lim.Register(c.Flags())
	return c
}

// toulbar2Info describes a toulbar2 file's objective: its direction, bound
// and cost precision; "" for other formats.
func toulbar2Info(in *input) string {
	p := in.Toulbar2
	if p == nil {
		return ""
	}
	dir, cmp := "minimize", "<"
	if p.Maximize {
		dir, cmp = "maximize", ">"
	}
	s := dir + ", bound none"
	if !math.IsInf(p.Bound, 0) {
		s = fmt.Sprintf("%s, bound %s%s", dir, cmp, strconv.FormatFloat(p.Bound, 'f', -1, 64))
	}
	switch {
	case !p.Exact:
		return s + fmt.Sprintf(", costs with more than the %d decimals of the bound (toulbar2 1.1.1 drops their fraction)", p.Precision)
	case p.Precision == 0:
		return s + ", integer costs"
	}
	return s + ", costs multiples of " + strconv.FormatFloat(p.Resolution(), 'f', -1, 64)
}
