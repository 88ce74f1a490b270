"""WEAT with a 10,000-resample permutation p-value: nlpbias vs WEFE, same query, same vectors.

Query: Caliskan et al.'s WEAT 1 (flowers vs insects x pleasant vs unpleasant) from WEFE's
``WEAT.json``; vectors: WEFE's 13k-word word2vec subset (``nlpbias.models.load_wefe_word2vec``).
Words missing from the subset are removed from both queries beforehand, so both libraries see
exactly the same words. Both run in this process; the ratio is what counts. Also times our exact
test on 8 + 8 target words (C(16, 8) = 12,870 splits).

    .venv/bin/python benchmarks/weat_vs_wefe.py [--iterations 10000] [--repeat 7]

Needs ``wefe`` (``pip install --no-deps wefe==1.0.1``) and ``semantic_version``.
"""

from __future__ import annotations

import argparse
import logging
import math
import statistics
import time
from collections.abc import Callable
from typing import Any

from nlpbias.metrics.query import Query
from nlpbias.metrics.weat import weat
from nlpbias.models import load_wefe_word2vec

SETS = ("flowers", "insects", "pleasant_5", "unpleasant_5a")


def _time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median wall time of ``repeat`` calls after one untimed warm-up call, and the result."""
    times, out = [], fn()
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10_000, help="Monte-Carlo resamples")
    parser.add_argument("--repeat", type=int, default=7, help="repeats of our (fast) runs")
    args = parser.parse_args()
    logging.getLogger("wefe").setLevel(logging.ERROR)

    from wefe.datasets import load_weat
    from wefe.metrics import WEAT
    from wefe.query import Query as WefeQuery
    from wefe.word_embedding_model import WordEmbeddingModel

    kv = load_wefe_word2vec()
    raw = load_weat()
    sets = {name: [w for w in raw[name] if w in kv.key_to_index] for name in SETS}
    lost = {name: sorted(set(raw[name]) - set(sets[name])) for name in SETS}
    query = Query(
        (sets["flowers"], sets["insects"]),
        (sets["pleasant_5"], sets["unpleasant_5a"]),
        target_names=("flowers", "insects"),
        attribute_names=("pleasant", "unpleasant"),
        name="WEAT 1",
    )
    wefe_query = WefeQuery(
        [sets["flowers"], sets["insects"]],
        [sets["pleasant_5"], sets["unpleasant_5a"]],
        ["flowers", "insects"],
        ["pleasant", "unpleasant"],
    )
    model = WordEmbeddingModel(kv, "word2vec-13k")
    n = args.iterations

    ours_s, ours = _time(
        lambda: weat(
            query, kv, ddof=0, method="monte-carlo", n_resamples=n, n_bootstrap=0, random_state=0
        ),
        args.repeat,
    )
    t0 = time.perf_counter()
    ref = WEAT().run_query(
        wefe_query,
        model,
        calculate_p_value=True,
        p_value_method="approximate",
        p_value_test_type="right-sided",
        p_value_iterations=n,
    )
    wefe_s = time.perf_counter() - t0
    ci_s, with_ci = _time(
        lambda: weat(query, kv, ddof=0, method="monte-carlo", n_resamples=n, random_state=0),
        args.repeat,
    )

    small = Query((sets["flowers"][:8], sets["insects"][:8]), query.attributes, name="8+8")
    exact_s, exact = _time(lambda: weat(small, kv, method="exact", n_bootstrap=0), args.repeat)

    sizes = {k: len(v) for k, v in sets.items()}
    print(f"WEAT 1 on WEFE's word2vec-13k; words per set {sizes}")
    print(f"  not in the vocabulary (removed for both): {lost}")
    print(f"  effect size (ddof=0): ours {ours.effect_size:.6f}   WEFE {ref['effect_size']:.6f}")
    print(f"  p-value, {n:,} resamples: ours {ours.p_value:.6f}   WEFE {ref['p_value']:.6f}")
    print(f"  ours, Monte-Carlo p ({n:,}), median of {args.repeat}: {ours_s * 1e3:10.1f} ms")
    print(f"  WEFE, approximate p ({n:,}), one run:       {wefe_s * 1e3:10.1f} ms")
    print(f"  ratio WEFE / ours:                          {wefe_s / ours_s:10.0f}x")
    print(
        f"  ours + 1,000-resample bootstrap CI [{with_ci.ci_low:.3f}, {with_ci.ci_high:.3f}]: "
        f"{ci_s * 1e3:.1f} ms"
    )
    splits = math.comb(16, 8)
    print(
        f"  ours, exact test 8+8 targets ({exact.n_resamples:,} = C(16, 8) = {splits:,} splits, "
        f"p = {exact.p_value:.6f}), median of {args.repeat}: {exact_s * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
