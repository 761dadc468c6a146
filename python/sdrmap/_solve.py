"""Solving a model in process: sdrmap.solve and its Result."""

from __future__ import annotations

import ctypes
import json
import math
import sys
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np
from numpy.typing import NDArray

from ._model import Model
from ._native import call, i64p, lib, release, take_string

__all__ = ["Result", "SDRInfo", "solve"]

Evidence = Union[Mapping[int, int], Sequence[Sequence[int]]]

# How often the waiting Python thread looks for Ctrl-C, in milliseconds.
_POLL_MS = 50


def _float(v: Any) -> float:
    """A number of the library's JSON: finite values as numbers, others as
    the strings "+Inf", "-Inf", "NaN"."""
    return float(v) if v is not None else math.nan


@dataclass(frozen=True)
class SDRInfo:
    """The paper's evaluation protocol of the last relaxation solved (SDR
    solvers only; docs/relaxation.md, "Protocol")."""

    primal_objective: float
    dual_objective: float
    sdp_gap: float  #: relative gap between the primal and dual objectives
    primal_infeasibility: float
    dual_infeasibility: float
    dimension: int  #: N = 1 + sum of cardinalities, the order of the lifted matrix
    rank: int  #: rank of the low-rank factor (0 for the dense solvers)
    restarts: int  #: restarts from the average of the iterates
    complement: bool  #: the bound is that of a dual point complementary to a rounded assignment


@dataclass(frozen=True)
class Result:
    """The outcome of :func:`solve`, as ``sdrmap solve --json`` reports it.

    ``answer`` says what the assignment is: "optimal" (the bound proves it),
    "feasible", "none" (no assignment of finite energy found) or
    "infeasible" (none exists); ``termination`` why the run stopped:
    "converged", "converged-loosely", "iteration-limit", "time-limit",
    "interrupted" (Ctrl-C), "infeasible" or "failed".
    """

    assignment: Optional[NDArray[np.int64]]  #: one state per variable (evidence included); None if none found
    energy: float  #: energy of the assignment (+inf if none), in ``energy_convention``
    bound: float  #: a lower bound on the optimal energy (-inf if none)
    gap: float  #: energy - bound; 0 proves the assignment optimal
    answer: str
    termination: str
    log10: float  #: -energy / ln 10, the UAI score
    solver: str
    iterations: int
    rounds: int  #: rounding rounds of the SDR solvers
    time: float  #: wall time of the solve in seconds
    energy_convention: str
    sdr: Optional[SDRInfo]  #: SDR figures of the SDR solvers, else None
    notes: tuple[str, ...] = ()  #: what the command would print beside the figures


def _options(
    solver: str, time_limit: Optional[float], seed: Optional[int], evidence: Optional[Evidence], options: dict[str, Any]
) -> str:
    opts: dict[str, Any] = {"solver": solver, "seed": seed}
    if time_limit is not None:
        opts["time_limit"] = float(time_limit)
    if evidence is not None:
        items = evidence.items() if isinstance(evidence, Mapping) else evidence
        opts["evidence"] = [[int(v), int(x)] for v, x in items]
    opts.update(options)
    return json.dumps(opts, default=_plain)


def _plain(o: Any) -> Any:
    """A numpy scalar as a Python number for json.dumps."""
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"option value {o!r}: need a number, a string or a bool")


def _wait(job: int) -> None:
    """Wait for a solve; the first Ctrl-C cancels it (it then ends with the
    best assignment so far), a second one stops waiting."""
    cancelled = False
    while True:
        try:
            while lib.sdrmap_job_wait(job, _POLL_MS) == 0:
                pass
            return
        except KeyboardInterrupt:
            if cancelled:
                raise
            cancelled = True
            lib.sdrmap_job_cancel(job)
            print(
                "sdrmap: interrupted: ending the solve with the best assignment so far "
                "(a second Ctrl-C abandons it)",
                file=sys.stderr,
            )


def solve(
    model: Model,
    solver: str = "auto",
    time_limit: Optional[float] = None,
    seed: Optional[int] = None,
    *,
    evidence: Optional[Evidence] = None,
    verbose: bool = False,
    **options: Any,
) -> Result:
    """Find a MAP assignment (least energy) of model, in process.

    Runs the pipeline of ``sdrmap solve`` with the same defaults. solver is
    one of ``sdrmap.solvers()`` ("auto": TRW-S, then the semidefinite
    relaxation unless TRW-S's bound proves its assignment optimal);
    time_limit in seconds (None: none) ends the run with the best assignment
    so far, as does Ctrl-C (a second Ctrl-C raises KeyboardInterrupt without
    waiting). seed seeds the randomized steps (runs are deterministic per
    seed; None: the command's default). Options given as None take the
    command's defaults too. evidence ({variable: state}) replaces the evidence read with the
    model. verbose prints the iteration table on the standard error.
    options are the other flags of ``sdrmap solve`` with underscores: tol,
    max_iter, rank, max_rank, no_restart, no_accel, no_probe, rounding
    ("sample" or "iterative"), no_polish, max_states, no_convert,
    keep_symmetry.

    Raises TypeError for an unknown option, ValueError for a bad value or
    evidence, RuntimeError when the solver fails. The GIL is released while
    the Go library works, so solves in threads run in parallel (Ctrl-C
    reaches the solve waiting in the main thread); for processes use
    multiprocessing's "spawn" or "forkserver" start method (in a process
    forked after the library was loaded every call raises RuntimeError).
    """
    text = _options(solver, time_limit, seed, evidence, dict(options, verbose=verbose))
    job = ctypes.c_int64()
    call(lib.sdrmap_solve_start, model._handle, text.encode(), ctypes.byref(job))
    try:
        _wait(job.value)
        x = np.empty(model.num_variables, dtype=np.int64)
        summary = ctypes.c_void_p()
        call(lib.sdrmap_job_result, job.value, x.ctypes.data_as(i64p), x.size, ctypes.byref(summary))
    finally:
        lib.sdrmap_job_cancel(job.value)
        release(job.value)
    r = json.loads(take_string(summary))
    sdr = r.get("sdr")
    return Result(
        assignment=x if r["variables"] else None,
        energy=_float(r["energy"]),
        bound=_float(r["bound"]),
        gap=_float(r["gap"]),
        answer=r["answer"],
        termination=r["termination"],
        log10=_float(r["log10"]),
        solver=r["solver"],
        iterations=r["iterations"],
        rounds=r["rounds"],
        time=r["time_s"],
        energy_convention=r["energy_convention"],
        notes=tuple(r.get("notes") or ()),
        sdr=None
        if sdr is None
        else SDRInfo(
            primal_objective=_float(sdr["primal_objective"]),
            dual_objective=_float(sdr["dual_objective"]),
            sdp_gap=_float(sdr["sdp_gap"]),
            primal_infeasibility=_float(sdr["primal_infeasibility"]),
            dual_infeasibility=_float(sdr["dual_infeasibility"]),
            dimension=sdr["dimension"],
            rank=sdr.get("rank", 0),
            restarts=sdr["restarts"],
            complement=sdr["complement"],
        ),
    )
