"""Solves in process against the sdrmap command, options, Ctrl-C."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, fnum, numpy_energy

import sdrmap

SHIPPED = REPO / "testdata" / "uai2008_pdb1akg.uai.xz"

# Shared instances and solvers that end by their own rule (no time limit),
# so that the command and the library must give the same run.
SHARED = [
    ("protein_sidechain/uai2008_pdb1akg.uai.xz", "auto"),
    ("grids/uai2014_Grids_26.uai.xz", "trws"),
    ("segmentation/uai2014_Segmentation_12.uai.xz", "auto"),
    ("higher_order/uai2014mar_CSP_11.uai.xz", "icm"),
    ("image_alignment/uai2014_ImageAlignment_12.uai.xz", "trws"),
    ("dbn/pic2011_rus_20_40_9_3.uai.xz", "trws"),
]


def same_as_command(res: sdrmap.Result, out: dict) -> None:
    assert res.answer == out["answer"] and res.termination == out["termination"]
    assert res.energy == fnum(out["energy"]) and res.bound == fnum(out["bound"])
    np.testing.assert_array_equal(res.assignment, out["assignment"])


def test_shipped_model_as_the_command(cli) -> None:
    for solver in ("auto", "sdpad-lr", "trws"):
        res = sdrmap.solve(sdrmap.read(SHIPPED), solver=solver, seed=2)
        same_as_command(res, cli(str(SHIPPED), "--solver", solver, "--seed", "2"))
        assert res.solver == solver


@pytest.mark.parametrize("name, solver", SHARED)
def test_shared_instances_as_the_command(data: Path, cli, name: str, solver: str) -> None:
    path = data / "uai" / name
    evid = Path(str(path).removesuffix(".xz") + ".evid")
    evid_args = ["--evid", str(evid)] if evid.exists() else []
    m = sdrmap.read(path, evidence=evid if evid.exists() else None)
    res = sdrmap.solve(m, solver=solver)
    same_as_command(res, cli(str(path), "--solver", solver, *evid_args))
    # The energy by the library and by numpy from the exported tables.
    e = numpy_energy(m.factors(), res.assignment)
    assert res.energy == pytest.approx(e, rel=1e-9, abs=1e-9)
    assert res.bound <= res.energy + 1e-6 * max(1, abs(res.energy))
    for v, x in m.evidence.items():
        assert res.assignment[v] == x


def test_reference_map_energies(data: Path) -> None:
    """The competition's .MAP assignments evaluated by the library and by
    numpy give reference.tsv's energies (an independent parser's)."""
    rows = [line.split("\t") for line in (data / "reference.tsv").read_text().splitlines()]
    head, rows = rows[0], rows[1:]
    checked = 0
    for row in rows:
        r = dict(zip(head, row))
        path = data / "uai" / r["file"]
        mp = Path(str(path).removesuffix(".xz") + ".MAP")
        if not r["map_energy"] or not mp.exists() or int(r["variables"]) > 7000:
            continue
        words = mp.read_text().split()  # MAP n x0 ... x{n-1}
        x = np.array(words[2 : 2 + int(words[1])], dtype=np.int64)
        m = sdrmap.read(path)
        assert sdrmap.evaluate(m, x) == pytest.approx(float(r["map_energy"]), rel=1e-9, abs=1e-6)
        assert numpy_energy(m.factors(), x) == pytest.approx(float(r["map_energy"]), rel=1e-9, abs=1e-6)
        checked += 1
    assert checked >= 5


def test_opengm_files_with_opengm_energies(data: Path) -> None:
    """Every OpenGM-written file reads with OpenGM's energies of its three
    labelings (1e-9 relative), or is refused with a ValueError."""
    try:
        sdrmap.read(data / "opengm" / "grid_potts.h5")
    except ValueError as e:
        if "hdf5" in str(e):
            pytest.skip(f"library built without HDF5: {e}")
        raise
    read = 0
    for h5 in sorted((data / "opengm").glob("*.h5")):
        stem = str(h5).removesuffix(".h5")
        try:
            m = sdrmap.read(h5)
        except ValueError as e:
            assert h5.name in str(e)
            continue
        assert m.energy_convention == "sum of OpenGM function values"
        labels = Path(stem + ".labels.txt").read_text().splitlines()
        energies = Path(stem + ".energy.txt").read_text().split()
        assert len(labels) == len(energies) == 3
        for line, e in zip(labels, energies):
            x = np.array(line.split(), dtype=np.int64)
            assert sdrmap.evaluate(m, x) == pytest.approx(float(e), rel=1e-9, abs=1e-12)
            assert numpy_energy(m.factors(), x) == pytest.approx(float(e), rel=1e-9, abs=1e-12)
        read += 1
    assert read >= 7


def test_grid_in_process_as_the_command_on_its_uai_file(cli, tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    m = sdrmap.grid(rng.random((20, 30, 4)), 0.4 * (1 - np.eye(4)))
    m.write(tmp_path / "g.uai")
    res = sdrmap.solve(m, solver="trws", max_iter=30)
    out = cli(str(tmp_path / "g.uai"), "--solver", "trws", "--max-iter", "30")
    assert res.energy == pytest.approx(fnum(out["energy"]), rel=1e-12)
    assert res.bound == pytest.approx(fnum(out["bound"]), rel=1e-12)


def test_options_and_their_errors() -> None:
    m = sdrmap.read(SHIPPED)
    with pytest.raises(TypeError, match='unknown option "bogus"'):
        sdrmap.solve(m, bogus=1)
    with pytest.raises(ValueError, match="tol -1"):
        sdrmap.solve(m, tol=-1)
    with pytest.raises(ValueError, match="unknown solver"):
        sdrmap.solve(m, solver="nope")
    with pytest.raises(ValueError, match="rounding must be"):
        sdrmap.solve(m, solver="sdpad-lr", rounding="coin")
    with pytest.raises(ValueError, match="evidence sets variable 0 to 99"):
        sdrmap.solve(m, evidence={0: 99})
    with pytest.raises(TypeError, match="option value"):
        sdrmap.solve(m, tol=object())
    r = sdrmap.solve(m, solver="trws", max_iter=np.int64(3), rank=None)
    assert r.iterations <= 3
    r = sdrmap.solve(m, solver="sdpad-lr", rounding="iterative", tol=1e-5, max_rank=8, evidence={0: 1})
    assert r.assignment[0] == 1 and r.sdr is not None and r.sdr.dimension > 1
    assert r.energy == pytest.approx(sdrmap.evaluate(m, r.assignment), rel=1e-12)


def test_infeasible_model_has_no_assignment() -> None:
    # x0 must be 0, x1 must be 1, and the pair (0, 1) is forbidden.
    m = sdrmap.from_factors(
        [2, 2], [([0], [0, np.inf]), ([1], [np.inf, 0]), ([0, 1], [[0, np.inf], [0, 0]])]
    )
    r = sdrmap.solve(m)
    assert r.answer == "infeasible" and r.assignment is None and math.isinf(r.energy)


def test_solves_in_threads_run_at_once() -> None:
    m = sdrmap.read(SHIPPED)
    results: list[sdrmap.Result] = []
    ts = [threading.Thread(target=lambda: results.append(sdrmap.solve(m, solver="sdpad-lr"))) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len({r.energy for r in results}) == 1


CHILD = textwrap.dedent(
    """
    import json, sys, numpy as np, sdrmap
    rng = np.random.default_rng(1)
    u = rng.random((120, 120, 5))
    m = sdrmap.grid(u, 0.8 * (1 - np.eye(5)))
    print("solving", flush=True)
    r = sdrmap.solve(m, solver="factor", no_probe=True, tol=1e-9)
    print(json.dumps({"termination": r.termination, "answer": r.answer, "energy": r.energy,
                      "evaluated": sdrmap.evaluate(m, r.assignment), "n": len(r.assignment)}), flush=True)
    """
)


def _default_sigint() -> None:
    # A shell without job control starts background commands with SIGINT
    # ignored, and Python keeps an ignored SIGINT ignored: the child must
    # start with the default action to turn Ctrl-C into KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_returns_the_best_assignment_so_far() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=_default_sigint)
    try:
        assert p.stdout.readline().strip() == "solving"
        time.sleep(3)
        assert p.poll() is None, "the solve ended before Ctrl-C"
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        waited = time.monotonic() - sent
    finally:
        p.kill()
    assert p.returncode == 0, err
    r = json.loads(out)
    assert r["termination"] == "interrupted", r
    assert r["answer"] == "feasible" and r["n"] == 120 * 120
    assert r["energy"] == pytest.approx(r["evaluated"], rel=1e-12)
    assert "interrupted: ending the solve" in err
    print(f"returned {waited:.2f} s after SIGINT")


@pytest.mark.parametrize("name", ["features.wcsp", "features.cfn", "maximize.cfn"])
def test_toulbar2_files_as_the_command(cli, name: str) -> None:
    """toulbar2's formats read by the Go side (no Python code of their own),
    with the command's convention, notes (the bound rounded up) and answer."""
    path = REPO / "format" / "toulbar2" / "testdata" / name
    m = sdrmap.read(path)
    res = sdrmap.solve(m)
    out = cli(str(path))
    same_as_command(res, out)
    assert res.energy_convention == out["energy_convention"] == m.energy_convention
    assert list(res.notes) == out.get("notes", [])
    assert res.energy == pytest.approx(numpy_energy(m.factors(), res.assignment), rel=1e-12, abs=1e-12)


def test_forked_child_raises_instead_of_hanging() -> None:
    """The Go runtime's threads do not survive fork: a child forked after
    the library was loaded gets RuntimeError, not a hang."""
    m = sdrmap.read(SHIPPED)
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only on the expected error
        code = 1
        try:
            sdrmap.solve(m)
        except RuntimeError as e:
            code = 0 if "forked" in str(e) else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung")
    assert sdrmap.solve(m).answer == "optimal"  # the parent goes on


def test_second_ctrl_c_raises_at_once(monkeypatch, capsys) -> None:
    """_wait's protocol with the library's wait replaced: the first
    KeyboardInterrupt cancels the job and waits on, the second propagates."""
    from sdrmap import _solve

    calls: list[str] = []

    class FakeLib:
        def sdrmap_job_wait(self, job: int, ms: int) -> int:
            calls.append("wait")
            if len(calls) in (2, 4):
                raise KeyboardInterrupt
            return 0

        def sdrmap_job_cancel(self, job: int) -> None:
            calls.append("cancel")

    monkeypatch.setattr(_solve, "lib", FakeLib())
    with pytest.raises(KeyboardInterrupt):
        _solve._wait(7)
    assert calls == ["wait", "wait", "cancel", "wait"]
    assert "a second Ctrl-C abandons it" in capsys.readouterr().err
