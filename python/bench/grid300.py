"""The issue's timing case: a 300 x 300 grid with 5 labels built from numpy
arrays (a noisy piecewise-constant image, squared-difference unary costs,
Potts edges), solved in process against `sdrmap solve` on the same model
written as UAI.

    python3 grid300.py write grid300.uai            # the model as UAI, once (--random: another model)
    python3 grid300.py solve [--solver S] [--max-iter K]
    sdrmap solve grid300.uai [--solver S] [--max-iter K]

`solve` builds the model from arrays (no file) and solves it with the
library; both print the energy and bound, so the runs can be compared.
"""

from __future__ import annotations

import argparse

import numpy as np

import sdrmap


def model(h: int = 300, w: int = 300, labels: int = 5, seed: int = 1, random: bool = False) -> sdrmap.Model:
    rng = np.random.default_rng(seed)
    if random:  # uniform unary costs in [0, 2): a frustrated model, no quick proof
        return sdrmap.grid(2 * rng.random((h, w, labels)), 1.0 * (1 - np.eye(labels)))
    r, c = np.mgrid[0:h, 0:w]
    truth = ((r // 60 + c // 75) % labels).astype(float)
    obs = truth + rng.normal(scale=0.7, size=(h, w))
    unary = (obs[..., None] - np.arange(labels)) ** 2
    return sdrmap.grid(unary, 1.0 * (1 - np.eye(labels)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["write", "solve"])
    ap.add_argument("path", nargs="?")
    ap.add_argument("--solver", default="auto")
    ap.add_argument("--max-iter", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--random", action="store_true", help="uniform random unary costs instead of a noisy image")
    a = ap.parse_args()
    m = model(random=a.random)
    if a.what == "write":
        m.write(a.path)
        return
    r = sdrmap.solve(m, solver=a.solver, max_iter=a.max_iter, time_limit=a.time_limit)
    print(f"answer {r.answer} stopped {r.termination} energy {r.energy:.9f} bound {r.bound:.9f} time {r.time:.3f} s")


if __name__ == "__main__":
    main()
