"""Models from arrays: energies against numpy, malformed models, files."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from conftest import REPO, numpy_energy

import sdrmap


def random_factors(rng: np.random.Generator, card: np.ndarray, nf: int, max_arity: int = 3):
    fs = []
    for _ in range(nf):
        k = int(rng.integers(0, max_arity + 1))
        scope = rng.choice(len(card), size=k, replace=False)
        fs.append((scope, rng.normal(size=tuple(card[scope]))))
    return fs


def brute_min(card: np.ndarray, factors) -> float:
    return min(numpy_energy(factors, np.array(x)) for x in itertools.product(*(range(c) for c in card)))


def test_energies_match_numpy_and_exact_solves_to_brute_force() -> None:
    rng = np.random.default_rng(3)
    for trial in range(5):
        card = rng.integers(1, 4, size=6)
        fs = random_factors(rng, card, 8)
        m = sdrmap.from_factors(card, fs)
        assert (m.num_variables, m.num_factors) == (6, 8)
        for _ in range(20):
            x = np.array([rng.integers(c) for c in card])
            assert sdrmap.evaluate(m, x) == pytest.approx(numpy_energy(fs, x), rel=1e-12, abs=1e-12)
        r = sdrmap.solve(m, solver="exact")
        assert r.answer == "optimal"
        assert r.energy == pytest.approx(brute_min(card, fs), rel=1e-12, abs=1e-12)
        assert r.energy == pytest.approx(numpy_energy(fs, r.assignment), rel=1e-12, abs=1e-12)
        assert r.energy_convention == "sum of the given energies"


def test_probability_form_is_minus_log() -> None:
    rng = np.random.default_rng(4)
    card = np.array([2, 3, 2])
    fs = [(np.array([0, 1]), rng.random((2, 3))), (np.array([2]), np.array([0.0, 0.5]))]
    m = sdrmap.from_factors(card, fs, form="probability")
    energy = [(s, np.where(t > 0, -np.log(np.where(t > 0, t, 1)), np.inf)) for s, t in fs]
    for x in itertools.product(range(2), range(3), range(2)):
        assert sdrmap.evaluate(m, x) == pytest.approx(numpy_energy(energy, np.array(x)), rel=1e-12)
    assert math.isinf(sdrmap.evaluate(m, [0, 0, 0]))  # phi = 0 forbids
    r = sdrmap.solve(m)
    assert r.assignment[2] == 1 and r.answer == "optimal"
    assert m.energy_convention == "-sum ln phi"


def test_batches_and_flat_tables_and_export() -> None:
    rng = np.random.default_rng(5)
    card = np.array([3, 3, 3, 3])
    scopes = np.array([[0, 1], [1, 2], [2, 3]])
    tables = rng.normal(size=(3, 3, 3))
    single = sdrmap.from_factors(card, [(s, t) for s, t in zip(scopes, tables)])
    batch = sdrmap.from_factors(card, [(scopes, tables)])
    flat = sdrmap.from_factors(card, [(scopes, tables.reshape(3, 9)), (np.array([0]), [1.0, 2.0, 3.0])])
    for x in itertools.product(range(3), repeat=4):
        e = numpy_energy(list(zip(scopes, tables)), np.array(x))
        assert sdrmap.evaluate(single, x) == pytest.approx(e, rel=1e-12)
        assert sdrmap.evaluate(batch, x) == pytest.approx(e, rel=1e-12)
        assert sdrmap.evaluate(flat, x) == pytest.approx(e + 1 + x[0], rel=1e-12)
    got = flat.factors()
    assert len(got) == 4
    np.testing.assert_array_equal(got[1][0], [1, 2])
    np.testing.assert_allclose(got[1][1], tables[1], rtol=1e-15)
    np.testing.assert_array_equal(flat.cardinalities, card)


def grid_energy(u: np.ndarray, ph: np.ndarray, pv: np.ndarray, x: np.ndarray) -> float:
    H, W, _ = u.shape
    r, c = np.arange(H)[:, None], np.arange(W)[None, :]
    e = u[r, c, x].sum()
    e += ph[r[:, :], np.arange(W - 1)[None, :], x[:, :-1], x[:, 1:]].sum()
    e += pv[np.arange(H - 1)[:, None], c, x[:-1, :], x[1:, :]].sum()
    return float(e)


def test_grid_forms() -> None:
    rng = np.random.default_rng(6)
    H, W, L = 7, 9, 4
    u = rng.random((H, W, L))
    P = 0.3 * (1 - np.eye(L))
    ph = rng.random((H, W - 1, L, L))
    pv = rng.random((H - 1, W, L, L))
    shared = sdrmap.grid(u, P)
    per_edge = sdrmap.grid(u, (ph, pv))
    assert shared.shape == (H, W) and shared.num_variables == H * W
    assert shared.num_factors == H * W + H * (W - 1) + (H - 1) * W
    for _ in range(10):
        x = rng.integers(L, size=(H, W))
        e = grid_energy(u, np.broadcast_to(P, ph.shape), np.broadcast_to(P, pv.shape), x)
        assert sdrmap.evaluate(shared, x) == pytest.approx(e, rel=1e-12)
        assert sdrmap.evaluate(per_edge, x) == pytest.approx(grid_energy(u, ph, pv, x), rel=1e-12)
    r = sdrmap.solve(per_edge, time_limit=20)
    assert r.energy == pytest.approx(grid_energy(u, ph, pv, r.assignment.reshape(H, W)), rel=1e-12)
    assert r.bound <= r.energy + 1e-9 and r.gap >= 0


@pytest.mark.parametrize(
    "factors, message",
    [
        ([([0, 0], np.zeros((2, 2)))], "factor 0: variable 0 appears twice"),
        ([([0], [1.0, 2.0]), ([1, 5], np.zeros((2, 2)))], "factor 1: variable 5 out of range"),
        ([([0], [1.0, 2.0]), ([0, 1], [[0, 1], [np.nan, 0]])], "factor 1: entry 2: NaN"),
        ([([1], [-np.inf, 0.0])], "factor 0: entry 0: energy -Inf"),
        ([([0], [np.inf, np.inf])], "factor 0: all 2 entries are forbidden"),
        ([([0], [1.0, 2.0, 3.0])], "factor 0: table of shape (3,)"),
        ([([0, 1], np.zeros((3, 2)))], "factor 0: table of shape (3, 2)"),
        ([([[0, 1], [1, 2]], np.zeros((2, 4)))], "factor 1: variable 2 out of range"),
    ],
)
def test_malformed_models_raise_value_error_naming_the_factor(factors, message) -> None:
    with pytest.raises(ValueError) as e:
        sdrmap.from_factors([2, 2], factors)
    assert message in str(e.value)


def test_malformed_flat_arrays_are_caught_by_the_library() -> None:
    with pytest.raises(ValueError, match="factor 1: its table needs 4 entries, 2 are left"):
        sdrmap.from_arrays([2, 2], [1, 2], [0, 0, 1], [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="factor 0: entry 1: probability -0.5"):
        sdrmap.from_arrays([2], [1], [0], [1.0, -0.5], form="probability")
    with pytest.raises(ValueError, match="variable 1 has cardinality 0"):
        sdrmap.from_arrays([2, 0], [], [], [])
    with pytest.raises(ValueError, match="scopes: need integers"):
        sdrmap.from_arrays([2], [1], [0.5], [1.0, 2.0])


def test_evaluate_checks_the_assignment() -> None:
    m = sdrmap.from_factors([2, 3], [([0, 1], np.zeros((2, 3)))])
    with pytest.raises(ValueError, match="assignment has 1 values, model has 2 variables"):
        sdrmap.evaluate(m, [0])
    with pytest.raises(ValueError, match="variable 1 has value 3, outside 0..2"):
        sdrmap.evaluate(m, [0, 3])


def test_read_errors(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.uai"):
        sdrmap.read(tmp_path / "nope.uai")
    bad = tmp_path / "bad.uai"
    bad.write_text("MARKOV\n2\n2 2\n1\n2 0 0\n4\n1 1 1 1\n")
    with pytest.raises(ValueError, match=r"bad.uai:.*factor 0: variable 0 appears twice"):
        sdrmap.read(bad)


def test_write_and_read_back(tmp_path) -> None:
    rng = np.random.default_rng(7)
    u = rng.random((4, 5, 3))
    m = sdrmap.grid(u, 0.5 * (1 - np.eye(3)))
    m.write(tmp_path / "g.uai")
    back = sdrmap.read(tmp_path / "g.uai")
    with pytest.raises(ValueError, match="written as .uai or .h5"):
        m.write(tmp_path / "g.wcsp")
    assert back.energy_convention == "-sum ln phi"
    for _ in range(10):
        x = rng.integers(3, size=20)
        assert sdrmap.evaluate(back, x) == pytest.approx(sdrmap.evaluate(m, x), rel=1e-13)


def test_shipped_model_reads_and_exports() -> None:
    m = sdrmap.read(REPO / "testdata" / "uai2008_pdb1akg.uai.xz")
    assert (m.num_variables, m.num_factors) == (14, 25)
    r = sdrmap.solve(m)
    assert r.answer == "optimal" and r.energy == pytest.approx(6.048465202, abs=1e-9)
    assert sdrmap.evaluate(m, r.assignment) == pytest.approx(numpy_energy(m.factors(), r.assignment), rel=1e-12)


def test_readme_example_runs(capsys) -> None:
    text = (REPO / "README.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) == 5
    exec(compile(code, "README.md", "exec"), {})
    answer, energy, bound = capsys.readouterr().out.split()[:3]
    assert answer in ("optimal", "feasible") and float(bound) <= float(energy) + 1e-6
