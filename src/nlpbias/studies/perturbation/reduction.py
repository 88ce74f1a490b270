"""The full corpus against a reduced one (seed 004's Table 6), with a random reduction as control.

Seed 004's Table 6 compares GloVe on the full New York Times corpus with GloVe on a "reduced" one
for 14 WEAT tests (``delta_effect_sizes``, ``delta_p_values``, ``effect_sizes_ratio``,
``p_values_ratio``), without saying how the corpus was reduced, which documents were removed or
what the columns are. The book's definitions, stated before the run:

- **reduced**: the corpus without the most bias-increasing documents: for every test, the top
  ``top`` share of documents by ``ΔB`` (the largest positive differential bias); one corpus for
  all tests (the union of their sets), as the poster compares one reduced corpus on all tests;
- **random**: the corpus without as many documents drawn at random (seeded) — the control that
  says how much removing that many documents changes an effect size anyway;
- per test and reduction: ``delta_effect_sizes = B_full − B_reduced``, ``delta_p_values =
  p_reduced − p_full`` (one-sided permutation p-values), ``effect_sizes_ratio = delta / B_full``,
  ``p_values_ratio = delta_p / p_full``. These are the only reading of the poster's columns
  under which all 14 of its rows are consistent (a ratio ``B_reduced / B_full`` would put its
  WEAT L's full effect size above 2, which no effect size reaches, and ``p_reduced / p_full``
  cannot be 1.0 with a non-zero difference, as in its WEAT D); the book's YAML of the poster's
  numbers says so.

GloVe is refitted from the same initialisation (the model's seed) with the same parameters on the
matrix rebuilt from the remaining documents, as in the validation by retraining
(:mod:`~nlpbias.studies.perturbation.retraining`); the vectors of every test's words are kept,
and each test is measured on them exactly as :func:`~nlpbias.studies.perturbation.study.
baseline_table` measures the full model (same words, same permutation test).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.cache import cached
from nlpbias.core.checks import check_number
from nlpbias.studies.perturbation.cooccurrence import Corpus
from nlpbias.studies.perturbation.documents import Prepared
from nlpbias.studies.perturbation.glove import GloVe
from nlpbias.studies.perturbation.influence import DDOF, weat_index
from nlpbias.studies.perturbation.retraining import refit_vectors

__all__ = ["COLUMNS", "full_vs_reduced", "reduction_sets"]

#: Seed 004's column names, in its order.
COLUMNS = ("delta_effect_sizes", "delta_p_values", "effect_sizes_ratio", "p_values_ratio")


def reduction_sets(
    tables: Mapping[str, pd.DataFrame], *, top: float, random_state: int
) -> dict[str, np.ndarray]:
    """The documents removed for the reduced corpus and for its random control.

    Parameters
    ----------
    tables : mapping
        Test → per-document table with ``delta_b`` (same documents in every table).
    top : float
        Share of documents removed per test, by largest ``ΔB`` (0.01: the top 1 %; at least
        one document per test).
    random_state : int
        Seed of the random control.

    Returns
    -------
    dict
        ``"reduced"``: the union of every test's top documents (sorted ids); ``"random"``:
        as many documents drawn without replacement from all of them.

    Examples
    --------
    >>> t = {"a": pd.DataFrame({"delta_b": [0.5, 0.0, -1.0, 0.2]}),
    ...      "b": pd.DataFrame({"delta_b": [0.1, 0.3, 0.0, 0.0]})}
    >>> sets = reduction_sets(t, top=0.25, random_state=0)
    >>> sets["reduced"].tolist(), len(sets["random"])
    ([0, 1], 2)
    """
    check_number(top, "top", low=0.0, high=0.5, low_open=True)
    if not tables:
        raise ValueError("no ΔB tables: score at least one word set first")
    index = next(iter(tables.values())).index
    k = max(1, math.floor(top * len(index)))
    chosen: set[int] = set()
    for name, table in tables.items():
        if not table.index.equals(index):
            raise ValueError(f"the table of {name!r} scores other documents than the first one")
        order = np.argsort(-table["delta_b"].to_numpy(), kind="stable")[:k]
        chosen.update(int(i) for i in index.to_numpy()[order])
    reduced = np.array(sorted(chosen), dtype=np.int64)
    rng = np.random.default_rng(random_state)
    random = np.sort(rng.choice(index.to_numpy(), reduced.size, replace=False)).astype(np.int64)
    return {"reduced": reduced, "random": random}


@cached(ignore=("corpus", "executor", "n_jobs", "show_progress"))
def _refits_cached(
    key: str,
    corpus: Corpus,
    sets: dict[str, list[int]],
    rows: list[int],
    glove: dict[str, Any],
    seed: int,
    window: int,
    executor: str | Any,
    n_jobs: int | None,
    show_progress: bool,
) -> dict[str, tuple[np.ndarray, float]]:
    from nlpbias.core.sweep import run_sweep

    params = {k: v for k, v in glove.items() if k != "random_state"}
    params["show_progress"] = False
    tasks = [
        {"corpus": corpus, "removed": docs, "rows": np.asarray(rows, dtype=np.int64),
         "window": window, "params": params, "random_state": seed}
        for docs in sets.values()
    ]  # fmt: skip
    results = run_sweep(
        refit_vectors, tasks, executor=executor, n_jobs=n_jobs, show_progress=show_progress,
        desc="retrain GloVe (reduced corpora)",
    )  # fmt: skip
    return dict(zip(sets, results, strict=True))


def _measure(
    vectors: Mapping[str, np.ndarray],
    wordset: str,
    *,
    max_missing: float,
    n_permutations: int,
    random_state: int,
) -> tuple[float, float]:
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.weat import weat

    res = weat(
        load_wordset(wordset), vectors, lowercase=True, max_missing=max_missing, ddof=DDOF,
        n_resamples=n_permutations, n_bootstrap=0, random_state=random_state,
    )  # fmt: skip
    return res.effect_size, res.p_value


def full_vs_reduced(
    model: GloVe,
    prepared: Prepared,
    wordsets: Sequence[str],
    sets: Mapping[str, Sequence[int]],
    *,
    glove: Mapping[str, Any],
    max_missing: float,
    n_permutations: int,
    random_state: int,
    executor: str | Any,
    n_jobs: int | None,
    show_progress: bool = True,
) -> pd.DataFrame:
    """Seed 004's Table 6 for each reduction in ``sets`` (see the module docstring).

    Parameters
    ----------
    model : GloVe
        The fit on all documents. When its parameters are ``glove``'s, it is the full model;
        otherwise the full corpus is refitted with ``glove`` and the model's seed too.
    prepared : Prepared
    wordsets : sequence of str
        The tests (usable in ``prepared``'s vocabulary).
    sets : mapping
        Reduction name → removed document ids (:func:`reduction_sets`).
    glove : mapping
        GloVe parameters of the refits (the chapter's ``glove``).
    max_missing, n_permutations, random_state :
        As for :func:`~nlpbias.studies.perturbation.study.baseline_table`.
    executor, n_jobs :
        Where the refits run (:func:`nlpbias.core.sweep.run_sweep`); cached on disk.

    Returns
    -------
    pandas.DataFrame
        One row per (reduction, test), index ``(reduction, wordset)``: ``n_removed``,
        ``B_full``, ``p_full``, ``B_reduced``, ``p_reduced`` and :data:`COLUMNS`;
        ``attrs["fit_seconds"]`` the seconds of each refit.
    """
    if not wordsets:
        raise ValueError("no word sets to compare; pass the usable word sets")
    if not sets:
        raise ValueError("no reductions given; pass reduction_sets(...)")
    indices = {
        name: weat_index(name, prepared.vocab, max_missing=max_missing, random_state=random_state)
        for name in wordsets
    }
    rows = np.array(sorted({int(r) for idx in indices.values() for r in idx.rows}), dtype=np.int64)
    words = [prepared.vocab.words[r] for r in rows]
    same = model.fitted_with(glove)
    todo = {name: [int(d) for d in docs] for name, docs in sets.items()}
    if not same:
        todo = {"__full__": None, **todo}  # type: ignore[dict-item]
    fits = _refits_cached(
        prepared.key, prepared.corpus, todo, rows.tolist(), dict(glove), int(model.random_state),
        prepared.window, executor, n_jobs, show_progress,
    )  # fmt: skip
    full_rows = model.W_[rows] if same else fits["__full__"][0]

    def vectors(W: np.ndarray) -> dict[str, np.ndarray]:
        return dict(zip(words, W, strict=True))

    measure = {"max_missing": max_missing, "n_permutations": n_permutations,
               "random_state": random_state}  # fmt: skip
    full = {name: _measure(vectors(full_rows), name, **measure) for name in wordsets}
    out = []
    for reduction, docs in sets.items():
        W = vectors(fits[reduction][0])
        for name in wordsets:
            b_full, p_full = full[name]
            b_red, p_red = _measure(W, name, **measure)
            delta, delta_p = b_full - b_red, p_red - p_full
            out.append(
                {
                    "reduction": reduction,
                    "wordset": name,
                    "n_removed": len(docs),
                    "B_full": b_full,
                    "p_full": p_full,
                    "B_reduced": b_red,
                    "p_reduced": p_red,
                    "delta_effect_sizes": delta,
                    "delta_p_values": delta_p,
                    "effect_sizes_ratio": delta / b_full if b_full != 0 else np.nan,
                    "p_values_ratio": delta_p / p_full,
                }
            )
    table = pd.DataFrame(out).set_index(["reduction", "wordset"])
    table.attrs["fit_seconds"] = {k: float(v[1]) for k, v in fits.items()}
    return table
