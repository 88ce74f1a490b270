"""One study sweep through each executor: serial vs local process pool vs Dask LocalCluster.

The sweep is the perturbation chapter's retraining check (GloVe refits without sets of
documents, seeds × sets) on the 10,033 Wikipedia summaries of the `demo` profile. All three
executors run in this process on this machine; the script prints each one's time as a ratio to
the serial run and checks that all return identical numbers. With 2 cores the ideal speed-up is
2x; the gap to it is the cost of starting workers and shipping the corpus to them. The Dask
cluster runs twice: with Dask's default worker environment (MALLOC_TRIM_THRESHOLD_=65536) and as
:func:`nlpbias.core.sweep.local_cluster` starts it (glibc's default).

    .venv/bin/python benchmarks/sweep_executors.py [--sets 4] [--epochs 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from distributed import Client, LocalCluster

from nlpbias.core.sweep import local_cluster
from nlpbias.studies import perturbation
from nlpbias.studies.perturbation.retraining import retrain_removals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=4, help="removal sets (tasks per seed)")
    parser.add_argument("--epochs", type=int, default=5, help="GloVe epochs per refit")
    args = parser.parse_args()
    prepared = perturbation.prepare(
        perturbation.load_documents("wiki", parts=[1], block_tokens=1000, max_documents=None),
        min_count=10,
        show_progress=False,
        max_size=None,
        window=8,
    )
    corpus, n_docs = prepared.corpus, len(prepared.documents)
    rng = np.random.default_rng(0)
    sets = {
        f"random {i}": rng.choice(n_docs, 100, replace=False).tolist() for i in range(args.sets)
    }
    kwargs = dict(glove={"vector_size": 50, "epochs": args.epochs}, seeds=[0], show_progress=False)

    def run(executor) -> tuple[float, pd.DataFrame]:
        t0 = time.perf_counter()
        out = retrain_removals(
            corpus, "science_arts", sets, window=prepared.window, executor=executor, n_jobs=2,
            max_missing=0.2, random_state=0, **kwargs,
        )  # fmt: skip
        return time.perf_counter() - t0, out.drop(columns="fit_seconds")

    times, results = {}, {}
    times["serial"], results["serial"] = run("serial")
    times["process (2 workers)"], results["process"] = run("process")
    with local_cluster(2) as cluster, Client(cluster) as client:
        times["dask nlpbias local_cluster"], results["dask"] = run(client)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        times["dask LocalCluster, Dask's env"], results["dask default"] = run(client)
    for name in ("process", "dask default", "dask"):
        pd.testing.assert_frame_equal(results[name], results["serial"], check_exact=True)
    base = times["serial"]
    print(f"{len(sets) + 1} GloVe fits ({args.epochs} epochs) on {n_docs:,} documents")
    for name, sec in times.items():
        print(f"{name:32s} {sec:7.1f} s   speed-up vs serial {base / sec:4.2f}x")
    print("identical results: yes")


if __name__ == "__main__":
    main()
