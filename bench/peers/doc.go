// Package peers runs external solvers beside sdrmap and parses their output:
// the SDP solvers CSDP, SDPA and DSDP on the SDPA sparse export of the
// relaxation (sdr.WriteSDPA, `sdrmap export-sdpa`), and the exact MAP solver
// toulbar2 on UAI models.
//
// # Command lines
//
// Every solver runs in a fresh temporary working directory (so no
// param.csdp or param.sdpa lying around is read), with stdout and stderr
// captured together, under `stdbuf -oL -eL` when stdbuf is on PATH (so the
// output printed before a kill is not lost in a stdio buffer), in its own
// process group, which is killed (SIGKILL) when the time limit or the
// context ends:
//
//	csdp FILE
//	sdpa -ds FILE -o OUT                  (OUT in the temporary directory)
//	dsdp5 FILE
//	toulbar2 MODEL.uai [MODEL.uai.evid] -w=SOL [-A] [-timer=S]
//
// Extra arguments given to CSDP, SDPA and DSDP are appended. For toulbar2,
// MODEL.uai is the decompressed model (toulbar2 picks its reader from the
// file name and would also load any FILE.evid lying beside the model),
// rewritten with every factor's scope in increasing order when some is not
// (toulbar2 1.1.1 transposes a table whose variable pair already appeared
// in the other order: wrong optimum and wrong printed energy),
// MODEL.uai.evid the evidence rewritten in the PIC 2011 layout ("1", then
// "k v1 x1 ..."), which toulbar2 reads unambiguously even for k = 1, and
// -timer is the time limit in whole seconds (at least 1, rounded down),
// with the kill deadline a grace period later so that toulbar2 can stop by
// itself and report.
//
// # Sign conventions
//
// The export holds the SDR as max <-C, Xbar> (the X side, CSDP's primal,
// SDPA's dual) and its dual min <b,u> (CSDP's dual, SDPA's primal); see
// sdr.WriteSDPA. Run.Objective is always <C, Xbar> of the X-side iterate and
// Run.DualObjective the matching lower bound, both in sdrmap's minimization
// convention (sdpad's PrimalObjective and DualObjective), so at an optimum
// Objective >= DualObjective and both equal min <C, Xbar>; the energy bound
// is DualObjective - sdr.Problem.Const. Per solver:
//
//	CSDP:  Objective = -"Primal objective value", DualObjective = -"Dual objective value"
//	SDPA:  Objective = -objValDual,               DualObjective = -objValPrimal
//	DSDP:  Objective = "P Objective",             DualObjective = "DSDP Solution"
//
// (DSDP negates both values itself when it prints them.) Statuses use the
// same orientation: "primal infeasible" means no feasible Xbar.
//
// # toulbar2 energies
//
// toulbar2 works with integer costs: for a MARKOV file, cost =
// trunc(-ln(phi/max phi) * NF) per entry with NF = -1/log1p(-10^-7) (its
// default -precision=7), and prints energies with three decimals. Run.Energy
// is instead the exact energy -sum ln phi of the assignment it wrote (-w),
// evaluated with model.Model.Energy on the model read by format/uai.
// Run.Bound converts toulbar2's best integer lower bound lb to an energy
// through the solution it wrote, whose integer cost U it printed:
// Bound = Energy - (U - lb)/NF - F/NF, where F is the number of factors and
// F/NF covers the rounding of every table entry to an integer cost. The
// solution line used is the last one, or after a kill (which can leave an
// older solution in the file) the one of largest cost among those whose
// printed energy matches Energy; without a match Bound stays NaN.
package peers
