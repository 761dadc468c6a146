"""Models: read from files, or built from numpy arrays without a file."""

from __future__ import annotations

import ctypes
import json
import os
import weakref
from typing import Any, Iterable, Literal, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._native import call, f64p, i64p, lib, release, take_string

__all__ = ["Model", "read", "from_arrays", "from_factors", "grid", "evaluate"]

Form = Literal["energy", "probability"]
PathLike = Union[str, "os.PathLike[str]"]

_FORMS = {"energy": 0, "probability": 1}


class Model:
    """A discrete Markov random field held by the Go library.

    Variables are numbered 0..n-1; a factor is a scope (distinct variables)
    and a table over their joint states, last scope variable fastest (UAI
    order). The energy of a full assignment x is the sum over factors of the
    table entries' energies, lower is better: for tables given as energies
    (costs) their sum, for potentials phi (probabilities, UAI files)
    -sum ln phi; +inf when x uses a forbidden entry (energy +inf,
    probability 0). ``energy_convention`` names which.

    Build one with :func:`read`, :func:`from_factors`, :func:`grid` or
    :func:`from_arrays`; the constructor is internal.
    """

    def __init__(self, handle: int, shape: tuple[int, ...] | None = None) -> None:
        self._handle = handle
        self._finalizer = weakref.finalize(self, release, handle)
        info_p = ctypes.c_void_p()
        call(lib.sdrmap_model_info, handle, ctypes.byref(info_p))
        info = json.loads(take_string(info_p))
        self._sizes: list[int] = info["sizes"]
        #: How energies are counted: "sum of the given energies",
        #: "-sum ln phi" (UAI), "sum of OpenGM function values", "sum of
        #: toulbar2 costs", ... (the command's energy_convention).
        self.energy_convention: str = info["energy_convention"]
        #: Observed variables read with the model: {variable: state}.
        self.evidence: dict[int, int] = {v: x for v, x in info["evidence"]}
        #: (H, W) for a model built by :func:`grid` (variable r * W + c is
        #: pixel (r, c)), else None.
        self.shape = shape
        self._arrays: dict[str, NDArray[Any]] | None = None

    @property
    def num_variables(self) -> int:
        """Number of variables."""
        return self._sizes[0]

    @property
    def num_factors(self) -> int:
        """Number of factors."""
        return self._sizes[1]

    def __repr__(self) -> str:
        return (
            f"<sdrmap.Model: {self.num_variables} variables, {self.num_factors} factors, "
            f"energies {self.energy_convention!r}>"
        )

    def to_arrays(self) -> dict[str, NDArray[Any]]:
        """The model in the flat layout of :func:`from_arrays`.

        Returns a dict with ``cardinalities`` (n,), ``arity`` (factors,),
        ``scopes`` (the scopes one after the other) and ``tables`` (the tables
        one after the other, as energies: -ln phi for potentials, +inf for
        forbidden entries). The arrays are cached and must not be modified.
        """
        if self._arrays is None:
            n, nf, ns, nt = self._sizes
            a = {
                "cardinalities": np.empty(n, np.int64),
                "arity": np.empty(nf, np.int64),
                "scopes": np.empty(ns, np.int64),
                "tables": np.empty(nt, np.float64),
            }
            call(
                lib.sdrmap_model_export,
                self._handle,
                _ptr(a["cardinalities"], i64p),
                _ptr(a["arity"], i64p),
                _ptr(a["scopes"], i64p),
                _ptr(a["tables"], f64p),
            )
            for v in a.values():
                v.flags.writeable = False
            self._arrays = a
        return self._arrays

    @property
    def cardinalities(self) -> NDArray[np.int64]:
        """Number of states of each variable."""
        return self.to_arrays()["cardinalities"]

    def factors(self) -> list[tuple[NDArray[np.int64], NDArray[np.float64]]]:
        """The factors as (scope, table) pairs, each table an array of
        energies of shape ``cardinalities[scope]``."""
        a = self.to_arrays()
        card, out = a["cardinalities"], []
        so = to = 0
        for k in a["arity"]:
            scope = a["scopes"][so : so + k]
            shape = tuple(card[scope])
            size = int(np.prod(shape, dtype=np.int64))
            out.append((scope, a["tables"][to : to + size].reshape(shape)))
            so, to = so + k, to + size
        return out

    def energy(self, assignment: ArrayLike) -> float:
        """The energy of a full assignment (see :func:`evaluate`)."""
        return evaluate(self, assignment)

    def write(self, path: PathLike) -> None:
        """Write the model to path: OpenGM HDF5 for ``file.h5`` or
        ``file.h5:group`` (a library built with HDF5), UAI for ``file.uai``
        (potentials exp(-energy) with 17 digits: energies above about 745
        underflow to 0, a forbidden entry)."""
        call(lib.sdrmap_model_write, self._handle, os.fsencode(path))


def _ptr(a: NDArray[Any], kind: Any) -> Any:
    return a.ctypes.data_as(kind)


def _ints(a: ArrayLike, what: str, flat: bool = True) -> NDArray[np.int64]:
    """a as a contiguous int64 array (flattened if flat); ValueError if it
    holds values that are not integers."""
    x = np.asarray(a)
    if x.dtype.kind not in "iub":
        if x.size and not (x.dtype.kind == "f" and np.array_equal(x, np.trunc(x))):
            raise ValueError(f"{what}: need integers, got {x.dtype} values")
    x = np.ascontiguousarray(x, dtype=np.int64)
    return x.ravel() if flat else x


def read(path: PathLike, evidence: PathLike | None = None) -> Model:
    """Read a model file, in any format the ``sdrmap`` command reads, chosen
    from the path by the Go library: UAI (plain, .gz, .xz, .zip), toulbar2's
    .wcsp and .cfn (plain, .gz, .xz) and, in a library built with HDF5,
    OpenGM's ``file.h5`` or ``file.h5:group``.

    evidence is a UAI evidence file, kept with the model and used by
    :func:`solve`. Raises FileNotFoundError or OSError for a file that cannot
    be read, ValueError (with the file, line and problem) for a malformed one.
    """
    h = ctypes.c_int64()
    ev = os.fsencode(evidence) if evidence is not None else None
    call(lib.sdrmap_read, os.fsencode(path), ev, ctypes.byref(h))
    return Model(h.value)


def from_arrays(
    cardinalities: ArrayLike,
    arity: ArrayLike,
    scopes: ArrayLike,
    tables: ArrayLike,
    form: Form = "energy",
    *,
    shape: tuple[int, ...] | None = None,
) -> Model:
    """Build a model from the flat layout: factor f has ``arity[f]``
    variables, the next ones of ``scopes``, and a table of
    prod(cardinalities[scope]) entries, the next ones of ``tables`` (last
    scope variable fastest), as energies or as potentials (form
    "probability": phi >= 0, 0 forbids an entry).

    Raises ValueError naming the factor and entry for a malformed model
    (variable out of range or twice in a scope, table of the wrong length,
    NaN, negative probability, energy -inf, a table with every entry
    forbidden). Nothing is written to disk; the arrays are copied.
    """
    if form not in _FORMS:
        raise ValueError(f"form {form!r}: need 'energy' or 'probability'")
    card = _ints(cardinalities, "cardinalities")
    ar = _ints(arity, "arity")
    sc = _ints(scopes, "scopes")
    tb = np.ascontiguousarray(tables, dtype=np.float64).ravel()
    h = ctypes.c_int64()
    call(
        lib.sdrmap_model_new,
        card.size,
        _ptr(card, i64p),
        ar.size,
        _ptr(ar, i64p),
        sc.size,
        _ptr(sc, i64p),
        tb.size,
        _ptr(tb, f64p),
        _FORMS[form],
        ctypes.byref(h),
    )
    return Model(h.value, shape)


def from_factors(
    cardinalities: ArrayLike,
    factors: Iterable[tuple[ArrayLike, ArrayLike]],
    form: Form = "energy",
) -> Model:
    """Build a model from its cardinalities and factors.

    Each item of factors is either one factor, ``(scope, table)`` with scope
    a sequence of k variables and table of shape ``cardinalities[scope]``
    (or flat, last variable fastest), or a batch of F factors of the same
    arity, ``(scopes, tables)`` with scopes of shape (F, k) and tables of
    shape (F, c_1, ..., c_k) or (F, c_1 * ... * c_k): the form for many
    factors at numpy speed. Tables are energies (form "energy", lower is
    better, +inf forbids an entry) or potentials (form "probability",
    energy -ln phi, 0 forbids an entry).

    Raises ValueError naming the factor for a malformed model.
    """
    card = _ints(cardinalities, "cardinalities")
    n = card.size
    arities: list[NDArray[np.int64]] = []
    scopes: list[NDArray[np.int64]] = []
    tables: list[NDArray[np.float64]] = []
    f0 = 0  # index of the item's first factor
    for scope, table in factors:
        s = _ints(scope, f"scope of factor {f0}", flat=False)
        t = np.asarray(table, dtype=np.float64)
        batch = s.ndim == 2
        s2 = s if batch else s.reshape(1, -1)
        if s.ndim > 2:
            raise ValueError(f"factor {f0}: scope of shape {s.shape}: need (k,) or, for a batch, (F, k)")
        bad = np.argwhere((s2 < 0) | (s2 >= n))
        if bad.size:
            r, c = bad[0]
            raise ValueError(f"factor {f0 + r}: variable {s2[r, c]} out of range 0..{n - 1}")
        F, k = s2.shape
        if not batch:
            t = t.reshape(1, *t.shape)
        if t.ndim == 0 or t.shape[0] != F:
            raise ValueError(f"factor {f0}: a batch of {F} scopes needs tables of shape ({F}, ...), got {t.shape}")
        sizes = np.prod(card[s2], axis=1)
        want = tuple(card[s2[0]]) if F else ()
        if F and (sizes != sizes[0]).any():
            r = int(np.argmax(sizes != sizes[0]))
            raise ValueError(
                f"factor {f0 + r}: its table has {sizes[r]} entries, factor {f0}'s {sizes[0]}: "
                "a batch needs tables of one size"
            )
        got = t.shape[1:]
        if F and got != want and got != (int(sizes[0]),) and not (k == 0 and got in ((), (1,))):
            raise ValueError(f"factor {f0}: table of shape {got}, its scope needs {want} (or ({int(sizes[0])},) flat)")
        arities.append(np.full(F, k, dtype=np.int64))
        scopes.append(s2.ravel())
        tables.append(t.reshape(-1))
        f0 += F
    cat = lambda xs, dt: np.concatenate(xs) if xs else np.empty(0, dt)  # noqa: E731
    return from_arrays(card, cat(arities, np.int64), cat(scopes, np.int64), cat(tables, np.float64), form)


def grid(unary: ArrayLike, pairwise: ArrayLike | Sequence[ArrayLike], form: Form = "energy") -> Model:
    """A 4-connected grid model, the shape computer-vision code has at hand.

    unary has shape (H, W, L): the table of pixel (r, c), variable r * W + c.
    pairwise is one (L, L) table for every edge (rows: the left or upper
    pixel's state), or a pair (horizontal, vertical) of per-edge tables of
    shapes (H, W - 1, L, L) (edge (r, c)-(r, c + 1)) and (H - 1, W, L, L)
    (edge (r, c)-(r + 1, c)); scale a shared table per edge with
    ``w[..., None, None] * table``. Tables are energies or, with form
    "probability", potentials. The model's ``shape`` is (H, W):
    ``result.assignment.reshape(model.shape)`` is the labeling.
    """
    u = np.asarray(unary, dtype=np.float64)
    if u.ndim != 3:
        raise ValueError(f"unary costs of shape {u.shape}: need (H, W, L)")
    H, W, L = u.shape
    idx = np.arange(H * W, dtype=np.int64).reshape(H, W)
    hs = np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], axis=1)
    vs = np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()], axis=1)
    if isinstance(pairwise, (tuple, list)) and len(pairwise) == 2:
        ph = np.asarray(pairwise[0], dtype=np.float64)
        pv = np.asarray(pairwise[1], dtype=np.float64)
        for name, p, want in (("horizontal", ph, (H, W - 1, L, L)), ("vertical", pv, (H - 1, W, L, L))):
            if p.shape != want:
                raise ValueError(f"{name} pairwise tables of shape {p.shape}: need {want}")
    else:
        p = np.asarray(pairwise, dtype=np.float64)
        if p.shape != (L, L):
            raise ValueError(f"pairwise table of shape {p.shape}: need ({L}, {L}) or a (horizontal, vertical) pair")
        ph = np.broadcast_to(p, (len(hs), L, L))
        pv = np.broadcast_to(p, (len(vs), L, L))
    n = H * W
    arity = np.concatenate([np.ones(n, np.int64), np.full(len(hs) + len(vs), 2, np.int64)])
    scopes = np.concatenate([idx.ravel(), hs.ravel(), vs.ravel()])
    tables = np.concatenate([u.ravel(), ph.reshape(-1), pv.reshape(-1)])
    return from_arrays(np.full(n, L, np.int64), arity, scopes, tables, form, shape=(H, W))


def evaluate(model: Model, assignment: ArrayLike) -> float:
    """The energy of a full assignment (one state per variable, any array
    shape, e.g. a grid's (H, W) labeling), computed by the Go library with
    compensated summation: +inf if it uses a forbidden entry.

    Raises ValueError for a wrong length or a state out of range.
    """
    x = _ints(assignment, "assignment")
    out = ctypes.c_double()
    call(lib.sdrmap_energy, model._handle, _ptr(x, i64p), x.size, ctypes.byref(out))
    return out.value
