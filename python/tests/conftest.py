"""Shared fixtures: the repository, the shared benchmark data, and the sdrmap
command built from the same checkout, to compare with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def shared_data() -> Path | None:
    """../shared/data beside the repository, or $SDRMAP_DATA."""
    d = Path(os.environ.get("SDRMAP_DATA") or REPO.parent / "shared" / "data")
    return d if d.is_dir() else None


@pytest.fixture(scope="session")
def data() -> Path:
    d = shared_data()
    if d is None:
        if os.environ.get("CI"):
            pytest.fail("shared data missing under CI (../shared/data or $SDRMAP_DATA)")
        pytest.skip("shared data not found (../shared/data or $SDRMAP_DATA)")
    return d


@pytest.fixture(scope="session")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., dict[str, Any]]:
    """Runs `sdrmap solve --json ARGS` (the command built from this checkout,
    or $SDRMAP_CLI) and returns its JSON output."""
    exe = os.environ.get("SDRMAP_CLI")
    if not exe:
        if shutil.which("go") is None:
            pytest.skip("no Go toolchain to build the sdrmap command")
        exe = str(tmp_path_factory.mktemp("cli") / "sdrmap")
        subprocess.run(["go", "build", "-o", exe, "./cmd/sdrmap"], cwd=REPO, check=True)

    def run(*args: str) -> dict[str, Any]:
        out = subprocess.run([exe, "solve", "--json", *args], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    return run


def numpy_energy(factors: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> float:
    """Sum over factors of the energy table's entry at x (an oracle
    independent of the Go library's evaluation)."""
    x = np.asarray(x).ravel()
    return float(sum(t[tuple(x[s])] for s, t in factors))


def fnum(v: Any) -> float:
    """A number of sdrmap's JSON ("+Inf", "-Inf" and "NaN" as strings)."""
    return float(v)
