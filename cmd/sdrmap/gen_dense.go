package main

import "github.com/spf13/cobra"

func genDenseCmd() *cobra.Command {
	var o genOptions
	c := &cobra.Command{
		Use:   "dense -o FILE.uai",
		Short: "Dense random model: complete or G(n, p) graph, random costs",
		Long: `dense writes a dense random model (gen.Dense): --vars variables with --labels
states each; each pair of variables is an edge with probability --density
(1: the complete graph); one unary factor per variable and one pairwise
factor per edge, all log potentials standard normal; each pairwise entry is
forbidden (phi = 0) with probability --forbid, but never every entry of a
table. With --forbid > 0 the model may have no assignment of finite energy.
The class of the dense SDR solver factor-dense.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			return o.write(cmd)
		},
	}
	o.flags(c, "dense")
	return c
}
