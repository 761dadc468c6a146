package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sdrmap/sdrmap/internal/solvecmd"
	"github.com/sdrmap/sdrmap/sdr"
)

func exportCmd() *cobra.Command {
	var evid, out string
	var lim solvecmd.LimitFlags
	c := &cobra.Command{
		Use:   "export-sdpa FILE -o OUT.dat-s",
		Short: "Write the relaxation in SDPA sparse format",
		Long: `export-sdpa writes the semidefinite relaxation of a pairwise model (after
evidence) in SDPA sparse format: the minimization of <C, Xbar> as an N x N PSD
block plus an LP block of slacks for the nonnegativity of the edge blocks, so
CSDP, SDPA or DSDP can solve the same problem. The optimal value they print
is -min <C, Xbar>; the energy bound is min <C, Xbar> - Const (see package sdr).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("-o OUT is required")
			}
			in, err := loadWithin(lim, args[0], evid)
			if err != nil {
				return err
			}
			p, err := in.Model.Pairwise(in.Evidence)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			prob, err := sdr.Build(p)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			return solvecmd.WriteFile(out, func(w io.Writer) error { return sdr.WriteSDPA(w, prob) })
		},
	}
	c.Flags().StringVar(&evid, "evid", "", "evidence file (UAI 2014 or PIC 2011 layout)")
	c.Flags().StringVarP(&out, "output", "o", "", "output file (SDPA sparse format)")
	lim.Register(c.Flags())
	return c
}
