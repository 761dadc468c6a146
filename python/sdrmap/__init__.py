"""sdrmap: MAP inference in discrete Markov random fields by the
semidefinite relaxation of Huang, Chen and Guibas (ICML 2014), in process.

The Go library (cmd/libsdrmap, a c-shared build loaded with ctypes) does
the work; models pass as numpy arrays, without files::

    import numpy as np, sdrmap
    unary = np.random.default_rng(0).random((300, 300, 5))
    model = sdrmap.grid(unary, 0.5 * (1 - np.eye(5)))     # Potts edges
    res = sdrmap.solve(model, time_limit=30)
    labels = res.assignment.reshape(model.shape)

Energies are lower-is-better; ``res.bound`` is a proven lower bound on the
optimal energy and ``res.answer == "optimal"`` when it meets the energy.
"""

from __future__ import annotations

from . import _native
from ._model import Model, evaluate, from_arrays, from_factors, grid, read
from ._solve import Result, SDRInfo, solve

__all__ = [
    "Model",
    "Result",
    "SDRInfo",
    "evaluate",
    "from_arrays",
    "from_factors",
    "grid",
    "read",
    "solve",
    "solvers",
    "version",
]


def solvers() -> list[str]:
    """The solvers :func:`solve` accepts."""
    return list(_native.version()["solvers"])


def version() -> str:
    """The Go library's module version and VCS revision."""
    return str(_native.version()["version"])
