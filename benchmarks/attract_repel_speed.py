"""Attract-Repel on a word set of an expanded size: what the two speed-ups of issue 32 buy.

The intrinsic-vs-extrinsic chapter's expanded word sets (every word plus 10 neighbours) hold
1,000 and more terms. On `paper` (2026-11-27) their Attract-Repel runs took a median of 134 s on
the hate-speech race family, most of the chapter's Attract-Repel time. Two causes, each timed
here in this process against its baseline on a GloVe 50-d set of 4 x N words:

1. **loss over the batch's terms** (``attract_repel._Model.loss``) against the loss over every
   term's vector, as the reference implementations compute it (baseline): the trained vectors
   were bit-identical on the Xeon of 2026-11-27 (on other CPUs the gradients may differ in the
   last bit, so the line below may say False with equal vectors to rounding);
2. **a pool whose workers share the cores** (``nlpbias.core.sweep.process_pool``: each of the 2
   workers runs ``cpu_count // 2`` native threads) against a spawned pool of 2 workers with the
   libraries' default threads (baseline), each running the same two Attract-Repel tasks.

    .venv/bin/python benchmarks/attract_repel_speed.py [--words 250]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import torch
import torch.nn.functional as F

from nlpbias.core.sweep import native_threads, process_pool
from nlpbias.metrics.query import Query
from nlpbias.models.embeddings import load_glove_50d
from nlpbias.studies.intrinsic_extrinsic import attract_repel as ar_mod

OPTIONS = {"delta_sim": 1.0, "delta_ant": 0.0, "reg": 0.05, "drop_last": False}


def _every_term_loss(self, batch, attract, gen):  # the baseline: every term's vector each batch
    hp, b = self.hp, batch.shape[0]
    V = F.normalize(self.mean @ self.P, dim=1)
    ids = batch.reshape(-1)
    with torch.no_grad():
        neg = ar_mod._mix(batch, ids[ar_mod._nearest(V[ids], attract)].reshape(b, 2), gen)
    left, right = V[batch[:, 0]], V[batch[:, 1]]
    sim = (left * right).sum(1)
    sim_l, sim_r = (left * V[neg[:, 0]]).sum(1), (right * V[neg[:, 1]]).sum(1)
    delta = hp["delta_sim"] if attract else hp["delta_ant"]
    sign = 1.0 if attract else -1.0
    cost = F.relu(delta + sign * (sim_l - sim)) + F.relu(delta + sign * (sim_r - sim))
    o = self.orig[batch]
    reg = hp["reg"] * 0.5 * (((left - o[:, 0]) ** 2).sum() + ((right - o[:, 1]) ** 2).sum())
    return cost.sum() + b * reg


def _query(kv, n: int) -> Query:
    words = kv.index_to_key[1000 : 1000 + 4 * n]
    return Query((words[:n], words[n : 2 * n]), (words[2 * n : 3 * n], words[3 * n :]), name="big")


def run_task(n: int, mode: str) -> tuple[float, dict[str, int]]:
    """One Attract-Repel run in a worker: its seconds and the worker's native threads."""
    kv = load_glove_50d()
    start = time.perf_counter()
    ar_mod.attract_repel(kv, _query(kv, n), mode=mode, show_progress=False, **OPTIONS)
    return time.perf_counter() - start, native_threads()


def _pool_seconds(pool, n: int) -> tuple[float, list]:
    start = time.perf_counter()
    results = list(pool.map(run_task, [n, n], ["debias", "overbias"]))
    return time.perf_counter() - start, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=250, help="words per set (4 sets)")
    args = parser.parse_args()
    n = args.words
    print(f"{os.cpu_count()} CPUs; 4 sets of {n} GloVe words ({2 * n * n} pairs of each kind)")

    kv = load_glove_50d()
    query = _query(kv, n)
    start = time.perf_counter()
    new = ar_mod.attract_repel(kv, query, mode="debias", show_progress=False, **OPTIONS)
    t_new = time.perf_counter() - start
    current = ar_mod._Model.loss
    ar_mod._Model.loss = _every_term_loss
    try:
        start = time.perf_counter()
        old = ar_mod.attract_repel(kv, query, mode="debias", show_progress=False, **OPTIONS)
        t_old = time.perf_counter() - start
    finally:
        ar_mod._Model.loss = current
    same = np.array_equal(new.vectors, old.vectors)
    print(f"\n1. one run: every term {t_old:.1f} s (baseline), the batch's terms {t_new:.1f} s:")
    print(f"   {t_old / t_new:.2f}x; vectors bit-identical: {same}")

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=ctx) as pool:
        t_plain, plain = _pool_seconds(pool, n)
    with process_pool(2) as pool:
        t_shared, shared = _pool_seconds(pool, n)
    print("\n2. two runs in a pool of 2 workers (wall time; each run's seconds; worker threads)")
    for label, total, results in (
        ("default threads (baseline)", t_plain, plain),
        ("process_pool", t_shared, shared),
    ):
        runs = ", ".join(f"{s:.1f} s" for s, _ in results)
        print(f"   {label:<28}{total:6.1f} s  ({runs}; {results[0][1]})")
    print(f"   ratio {t_plain / t_shared:.2f}x")


if __name__ == "__main__":
    main()
