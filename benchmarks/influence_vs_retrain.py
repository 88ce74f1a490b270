"""Influence functions vs retraining: the cost of scoring every document, and the agreement.

On one corpus, in this process: fit GloVe once; time
:func:`nlpbias.studies.perturbation.influence.differential_bias` over all documents (t_influence);
time one GloVe refit after removing a set of documents (t_retrain, including rebuilding X). Scoring
every document by retraining would take ``n_documents * t_retrain``; the ratio ``n_documents *
t_retrain / t_influence`` is what the influence approximation saves (target >= 100). Then remove
the most bias-increasing, the most bias-decreasing and random sets of documents, refit from the
same initialisation, and report Pearson's and Spearman's r between predicted and actual change of
the effect size (target >= 0.9). Default corpus: the 10,033 Wikipedia summaries (the chapter's demo
setting).

    .venv/bin/python benchmarks/influence_vs_retrain.py [--wordset science_arts]
    NLPBIAS_DATA=../shared/data .venv/bin/python benchmarks/influence_vs_retrain.py \
        --source gutenberg --min-count 20 --epochs 25 --sizes 93
"""

from __future__ import annotations

import argparse
import time

from nlpbias.studies import perturbation as study
from nlpbias.studies.perturbation.glove import GloVe
from nlpbias.studies.perturbation.influence import differential_bias
from nlpbias.studies.perturbation.retraining import retrain_removals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default="wiki", choices=study.SOURCES)
    parser.add_argument("--wordset", default="science_arts")
    parser.add_argument("--min-count", type=int, default=10)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--vector-size", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--learning-rate", type=float, default=0.2)
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 300])
    parser.add_argument("--max-missing", type=float, default=0.4)
    args = parser.parse_args()
    glove = {
        "vector_size": args.vector_size,
        "epochs": args.epochs,
        "learning_rate": args.learning_rate,
    }

    t0 = time.perf_counter()
    prepared = study.prepare(
        study.load_documents(args.source, parts=[1], block_tokens=1000, max_documents=None),
        min_count=args.min_count,
        max_size=None,
        window=args.window,
    )
    t_prepare = time.perf_counter() - t0
    print(prepared.summary().to_string(), f"\nprepare: {t_prepare:.1f} s")

    model = GloVe(**glove, show_progress=False).fit(prepared.X)
    print(f"GloVe fit: {model.fit_time_:.1f} s")

    t0 = time.perf_counter()
    table = differential_bias(
        model, prepared.X, prepared.corpus, args.wordset, window=prepared.window,
        max_missing=args.max_missing, random_state=0, show_progress=False,
    )  # fmt: skip
    t_influence = time.perf_counter() - t0

    sets = study.removal_sets(table, sizes=args.sizes, n_random=2, random_state=0)
    one = {name: docs for name, docs in list(sets.items())[:1]}
    t0 = time.perf_counter()
    retrain_removals(
        prepared.corpus, args.wordset, one, glove=glove, seeds=[0], window=prepared.window,
        max_missing=args.max_missing, random_state=0, show_progress=False, executor="serial",
        n_jobs=None,
    )  # fmt: skip
    # that call fitted twice (all documents, then without the set): one refit is half of it
    t_retrain = (time.perf_counter() - t0) / 2
    n = len(prepared.corpus)
    print(f"\ninfluence, all {n} documents: {t_influence:9.2f} s")
    print(f"one retrain (rebuild X + fit):   {t_retrain:9.2f} s")
    print(f"retraining for every document:   {n * t_retrain:9.0f} s (estimated)")
    print(f"ratio retrain-all / influence:   {n * t_retrain / t_influence:9.0f}x (target >= 100)")

    val = study.validate(
        model, prepared, args.wordset, table, glove=glove, sizes=args.sizes, n_random=2,
        seeds=[0], max_missing=args.max_missing, random_state=0, executor="serial", n_jobs=None,
        show_progress=False,
    )  # fmt: skip
    print("\n", val[["kind", "n_documents", "predicted", "actual"]].round(3).to_string())
    r = study.agreement(val)
    print(
        f"\nagreement over {int(r['n_sets'])} sets: Pearson r = {r['pearson_r']:.3f}, "
        f"Spearman r = {r['spearman_r']:.3f} (target >= 0.9)"
    )


if __name__ == "__main__":
    main()
