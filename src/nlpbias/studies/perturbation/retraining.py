"""Validation by retraining: remove sets of documents, refit GloVe, measure the actual ``ΔB``.

The influence-function prediction of :mod:`nlpbias.studies.perturbation.influence` is one Newton
step; this module measures what it predicts. For each seed, GloVe is refitted from the same
initialisation to the matrix without each set of documents (rebuilt from the remaining
documents), and the WEAT effect size of the refit is compared with that of the fit on all
documents. The fits run through :func:`nlpbias.core.sweep.run_sweep` (serially, in processes or
on Dask).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.perturbation.cooccurrence import Corpus, cooccurrence
from nlpbias.studies.perturbation.glove import GloVe
from nlpbias.studies.perturbation.influence import WeatIndex, effect_sizes, weat_index

__all__ = ["refit_vectors", "retrain_removals"]


def refit_vectors(
    corpus: Corpus,
    removed: Sequence[int] | None,
    rows: np.ndarray,
    window: int,
    params: Mapping[str, Any],
    random_state: int,
) -> tuple[np.ndarray, float]:
    """Fit GloVe without the documents ``removed``; return the word vectors of ``rows`` and
    the fit's seconds (a sweep task: module-level, so processes can run it)."""
    keep = np.arange(len(corpus))
    if removed is not None:
        keep = np.setdiff1d(keep, np.asarray(removed, dtype=np.int64))
    X = cooccurrence(corpus, window=window, documents=keep, show_progress=False)
    model = GloVe(random_state=int(random_state), **params).fit(X)
    return model.W_[rows].copy(), model.fit_time_


def _refit(
    corpus: Corpus,
    removed: Sequence[int] | None,
    rows: np.ndarray,
    sets: tuple[np.ndarray, ...],
    window: int,
    params: Mapping[str, Any],
    random_state: int,
) -> tuple[float, float]:
    """One sweep task: fit GloVe without ``removed``; return (effect size, fit seconds)."""
    W, seconds = refit_vectors(corpus, removed, rows, window, params, random_state)
    return effect_sizes(W, WeatIndex("", rows, sets, {}, {})), seconds


def retrain_removals(
    corpus: Corpus,
    wordset: Any,
    sets: Mapping[str, Sequence[int]],
    *,
    glove: Mapping[str, Any] | None,
    seeds: Sequence[int],
    window: int,
    lowercase: bool = True,
    max_missing: float,
    random_state: int,
    executor: str | Any,
    n_jobs: int | None,
    baselines: Mapping[int, float] | None = None,
    show_progress: bool = True,
) -> pd.DataFrame:
    """Actual ``ΔB``: remove each set of documents, retrain GloVe from the same start, compare.

    For each seed, GloVe is fitted to the full ``X`` and to ``X`` without each set (same
    parameters and seed, hence the same initialisation); ``ΔB = B(full) − B(removed)``. The
    matrix without a set is rebuilt from the remaining documents, so it holds exact zeros where
    only removed documents contributed. The fits run through :func:`nlpbias.core.sweep.run_sweep`.

    Parameters
    ----------
    corpus : Corpus
    wordset : str, WordSet or Query
    sets : mapping of name to document indices
    glove : mapping or None
        Keyword arguments of :class:`GloVe` (None: its defaults; ``random_state`` comes from
        ``seeds``).
    seeds : sequence of int
        Seeds of the GloVe fits.
    window : int
        Co-occurrence window (the chapter's ``window``).
    lowercase : bool, default True
    max_missing : float
    random_state : int
        Seed that drops words to balance the word set's targets (see :func:`weat_index`), the
        same as for the influence scores; the fits themselves are seeded by ``seeds``.
    executor : {"serial", "process", "dask"} or executor object
        Where the fits run (see :func:`nlpbias.core.sweep.run_sweep`).
    n_jobs : int, optional
        Processes of the ``"process"`` executor.
    baselines : mapping of seed to float, optional
        ``B`` of fits on all documents already made with these parameters (e.g. the model
        being explained); those seeds' full fits are skipped.
    show_progress : bool, default True

    Returns
    -------
    pandas.DataFrame
        One row per (set, seed): ``removed``, ``seed``, ``n_documents``, ``B_full``,
        ``B_removed``, ``actual`` (``B_full − B_removed``), ``fit_seconds``.

    Examples
    --------
    >>> retrain_removals(
    ...     corpus, "science_arts", {"top 10": top10}, glove={"epochs": 30}, seeds=[0, 1],
    ...     window=8, max_missing=0.2, random_state=0, executor="serial", n_jobs=None,
    ... )  # doctest: +SKIP
    """
    from nlpbias.core.sweep import run_sweep

    params = dict(glove or {})
    params.pop("random_state", None)
    params["show_progress"] = False
    index = weat_index(
        wordset, corpus.vocab, lowercase=lowercase, max_missing=max_missing,
        random_state=random_state,
    )  # fmt: skip
    known = {int(k): (float(v), float("nan")) for k, v in (baselines or {}).items()}
    jobs = [(int(s), None) for s in seeds if int(s) not in known]
    jobs += [(int(s), name) for s in seeds for name in sets]
    tasks = [
        {
            "corpus": corpus,
            "removed": None if name is None else [int(k) for k in sets[name]],
            "rows": index.rows,
            "sets": index.sets,
            "window": window,
            "params": params,
            "random_state": seed,
        }
        for seed, name in jobs
    ]
    results = run_sweep(
        _refit, tasks, executor=executor, n_jobs=n_jobs, show_progress=show_progress,
        desc="retrain GloVe",
    )  # fmt: skip
    fits = dict(zip(jobs, results, strict=True))
    fits.update({(seed, None): value for seed, value in known.items()})
    rows = []
    for name, docs in sets.items():
        for seed in seeds:
            b_full, b_rem = fits[(int(seed), None)][0], fits[(int(seed), name)][0]
            rows.append(
                {
                    "removed": name,
                    "seed": int(seed),
                    "n_documents": len(docs),
                    "B_full": b_full,
                    "B_removed": b_rem,
                    "actual": b_full - b_rem,
                    "fit_seconds": fits[(int(seed), name)][1],
                }
            )
    return pd.DataFrame(rows)
