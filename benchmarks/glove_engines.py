"""GloVe and co-occurrence engines of the perturbation chapter: numpy reference vs numba loops.

On one corpus, in this process: build the co-occurrence matrix with each engine (the entries must
be bit-identical), then fit GloVe for a few epochs with each engine (parameters and losses must
be bit-identical) and print the seconds per epoch and the ratios. Default corpus: Gutenberg part
1 in 1000-token blocks, min count 20 (the chapter's `paper` setting: 9.7M tokens, 17.9M
co-occurrences); `--source wiki` takes the Wikipedia summaries (no data home needed).

    NLPBIAS_DATA=../shared/data .venv/bin/python benchmarks/glove_engines.py [--epochs 2]
    .venv/bin/python benchmarks/glove_engines.py --source wiki --min-count 10
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from nlpbias.studies import perturbation as study
from nlpbias.studies.perturbation import kernels
from nlpbias.studies.perturbation.cooccurrence import cooccurrence
from nlpbias.studies.perturbation.glove import GloVe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default="gutenberg", choices=study.SOURCES)
    parser.add_argument("--min-count", type=int, default=20)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--vector-size", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    if not kernels.AVAILABLE:
        raise SystemExit("numba is not installed: pip install -r requirements.txt")

    docs = study.load_documents(args.source, parts=[1], block_tokens=1000, max_documents=None)
    prepared = study.prepare(
        docs, min_count=args.min_count, max_size=None, window=args.window, show_progress=False
    )
    corpus = prepared.corpus
    print(prepared.summary().to_string())

    # warm the compiled loops (numba compiles or loads them once per process)
    small = corpus.subset(range(min(20, len(corpus))))
    warm_X = cooccurrence(small, window=prepared.window, engine="numba")
    GloVe(vector_size=args.vector_size, epochs=1, engine="numba", show_progress=False).fit(warm_X)

    seconds = {}
    for engine in ("numpy", "numba"):
        t0 = time.perf_counter()
        X = cooccurrence(corpus, window=prepared.window, engine=engine, show_progress=False)
        seconds[engine] = time.perf_counter() - t0
        if engine == "numpy":
            X_ref = X
    same = np.array_equal(X.indptr, X_ref.indptr) and np.array_equal(X.data, X_ref.data)
    print(f"\nco-occurrence ({X.nnz:,} non-zeros): numpy {seconds['numpy']:.1f} s, numba "
          f"{seconds['numba']:.1f} s, ratio {seconds['numpy'] / seconds['numba']:.1f}x; "
          f"bit-identical: {same}")  # fmt: skip

    glove = {"vector_size": args.vector_size, "epochs": args.epochs, "learning_rate": 0.2}
    fits = {e: GloVe(**glove, engine=e, show_progress=False).fit(X) for e in ("numpy", "numba")}
    ref, fast = fits["numpy"], fits["numba"]
    same = ref.loss_ == fast.loss_ and all(
        np.array_equal(getattr(ref, k), getattr(fast, k)) for k in ("W_", "U_", "b_", "c_")
    )
    per_epoch = {e: m.fit_time_ / args.epochs for e, m in fits.items()}
    print(f"GloVe {args.vector_size}-d, {args.epochs} epochs: numpy {per_epoch['numpy']:.2f} s "
          f"per epoch, numba {per_epoch['numba']:.2f} s, ratio "
          f"{per_epoch['numpy'] / per_epoch['numba']:.1f}x; bit-identical: {same}")  # fmt: skip


if __name__ == "__main__":
    main()
