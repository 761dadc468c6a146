"""The C API of the Go library (cmd/libsdrmap), loaded with ctypes.

The library is ``libsdrmap.so`` beside this file (``make -C python`` builds
it) or the file named by the environment variable ``SDRMAP_LIBRARY``.
Every call that can fail returns an error kind and a message, raised here
as the matching Python exception with the Go message.
"""

from __future__ import annotations

import ctypes
import json
import os
from ctypes import POINTER, c_char_p, c_double, c_int, c_int64, c_void_p
from typing import Any, Callable

__all__ = ["lib", "call", "check", "release", "take_string", "i64p", "f64p"]

_PATH = os.environ.get("SDRMAP_LIBRARY") or os.path.join(os.path.dirname(__file__), "libsdrmap.so")

try:
    lib = ctypes.CDLL(_PATH)
except OSError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"sdrmap: cannot load the Go library {_PATH} ({e}); build it with `make -C python` "
        "from the repository (Go toolchain needed), or set SDRMAP_LIBRARY"
    ) from e

i64p = POINTER(c_int64)
f64p = POINTER(c_double)
_err = POINTER(c_void_p)

# Strings returned by the library are freed by sdrmap_free, so they are
# declared as void pointers and read with take_string.
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "sdrmap_free": (None, [c_void_p]),
    "sdrmap_version": (c_void_p, []),
    "sdrmap_read": (c_int, [c_char_p, c_char_p, i64p, _err]),
    "sdrmap_model_new": (
        c_int,
        [c_int64, i64p, c_int64, i64p, c_int64, i64p, c_int64, f64p, c_int, i64p, _err],
    ),
    "sdrmap_model_info": (c_int, [c_int64, POINTER(c_void_p), _err]),
    "sdrmap_model_export": (c_int, [c_int64, i64p, i64p, i64p, f64p, _err]),
    "sdrmap_model_write": (c_int, [c_int64, c_char_p, _err]),
    "sdrmap_energy": (c_int, [c_int64, i64p, c_int64, f64p, _err]),
    "sdrmap_solve_start": (c_int, [c_int64, c_char_p, i64p, _err]),
    "sdrmap_job_wait": (c_int, [c_int64, c_int64]),
    "sdrmap_job_cancel": (None, [c_int64]),
    "sdrmap_job_result": (c_int, [c_int64, i64p, c_int64, POINTER(c_void_p), _err]),
    "sdrmap_release": (None, [c_int64]),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args

# Error kinds of the C API (cmd/libsdrmap/errors.go).
_EXCEPTIONS: dict[int, type[Exception]] = {
    1: ValueError,
    2: OSError,
    3: FileNotFoundError,
    4: TypeError,
    5: RuntimeError,
}


# A process forked after the Go runtime started has none of its threads:
# calls into the library there would hang, so they raise instead.
_forked = False


def _after_fork() -> None:
    global _forked
    _forked = True


os.register_at_fork(after_in_child=_after_fork)


def check() -> None:
    """Raise RuntimeError in a process forked after the library was loaded."""
    if _forked:
        raise RuntimeError(
            "sdrmap: the Go library cannot run in a process forked after it was loaded "
            "(its threads are not copied); use multiprocessing's 'spawn' or 'forkserver' "
            "start method"
        )


def release(handle: int) -> None:
    """Release a model or solve handle (nothing in a forked child)."""
    if not _forked:
        lib.sdrmap_release(handle)


def take_string(p: c_void_p | int | None) -> str:
    """Return the library's string at p and free it."""
    if not p:
        return ""
    try:
        return ctypes.string_at(p).decode("utf-8", "replace")
    finally:
        lib.sdrmap_free(p)


def call(f: Callable[..., int], *args: Any) -> None:
    """Call f(*args, &err) and raise the exception its error kind names."""
    check()
    err = c_void_p()
    kind = f(*args, ctypes.byref(err))
    if kind:
        raise _EXCEPTIONS.get(kind, RuntimeError)(take_string(err))


def version() -> dict[str, Any]:
    """The library's version, solvers and solve options."""
    check()
    return json.loads(take_string(lib.sdrmap_version()))
