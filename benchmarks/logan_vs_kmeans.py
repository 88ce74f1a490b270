"""LOGAN vs scikit-learn KMeans on 100,000 x 384 random features: same k, n_init and seed.

Features: a float32 Gaussian mixture (``--k`` random centres of sd ``--spread``, unit noise), the
size of MiniLM sentence embeddings; labels, predictions (accuracy differs by group and centre) and
groups are random. Both estimators run in this process with the same k-means++ seed (``lam=0``
would give KMeans's exact clustering). Runs are interleaved, so a busy machine slows both alike,
and the median wall times are compared (target: LOGAN <= 3x KMeans). Iteration counts are printed
too: the bias term changes how many iterations convergence takes. Wall times include k-means++.

    .venv/bin/python benchmarks/logan_vs_kmeans.py [--n 100000] [--d 384] [--lam 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.cluster import KMeans

from nlpbias.studies.logan.estimator import LOGAN


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def make_data(n: int, d: int, k: int, spread: float, seed: int) -> tuple[np.ndarray, ...]:
    """Mixture features, binary labels, predictions with a group- and centre-dependent accuracy."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, spread, (k, d)).astype(np.float32)
    comp = rng.integers(0, k, n)
    X = centres[comp] + rng.normal(0.0, 1.0, (n, d)).astype(np.float32)
    group = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    acc = 0.85 + 0.1 * (group - 0.5) * np.where(comp % 2 == 0, 1, -1)
    y_pred = np.where(rng.random(n) < acc, y, 1 - y)
    return X, y, y_pred, group


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=384)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument(
        "--spread", type=float, default=0.1, help="sd of the centres (noise sd is 1)"
    )
    parser.add_argument("--lam", type=float, default=10.0)
    parser.add_argument("--n-init", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    X, y, y_pred, group = make_data(args.n, args.d, args.k, args.spread, args.seed)
    km = KMeans(args.k, n_init=args.n_init, algorithm="lloyd", random_state=args.seed)
    lo = LOGAN(args.k, lam=args.lam, n_init=args.n_init, random_state=args.seed)
    times: dict[str, list[float]] = {"KMeans": [], "LOGAN": []}
    fits = {
        "KMeans": lambda: km.fit(X),
        "LOGAN": lambda: lo.fit(X, y_true=y, y_pred_or_score=y_pred, group=group),
    }
    for _ in range(args.repeat):
        for name, fit in fits.items():
            times[name].append(_timed(fit)[0])
    t_km, t_lo = statistics.median(times["KMeans"]), statistics.median(times["LOGAN"])
    print(f"data: {args.n} x {args.d} float32, k={args.k}, n_init={args.n_init}, lam={args.lam}")
    print(f"KMeans : {t_km:8.3f} s (median of {args.repeat}), {km.n_iter_:4d} iterations")
    print(f"LOGAN  : {t_lo:8.3f} s (median of {args.repeat}), {lo.n_iter_:4d} iterations")
    print(f"inertia ratio LOGAN / KMeans: {lo.inertia_ / km.inertia_:.4f}")
    print(f"time ratio LOGAN / KMeans: {t_lo / t_km:.2f}x (target <= 3x)")


if __name__ == "__main__":
    main()
