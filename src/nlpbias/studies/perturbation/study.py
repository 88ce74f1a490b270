"""Which documents make an embedding biased? (Brunet et al. 2019; Wajda-Levie & Kleinbart, seed 004)

The study as functions the notebook calls:

1. :func:`~nlpbias.studies.perturbation.documents.load_documents` — the documents: Wikipedia
   summaries (one article each) or fixed-size blocks of Gutenberg books;
   :func:`~nlpbias.studies.perturbation.documents.prepare` tokenises them and builds the
   vocabulary and the co-occurrence matrix (:mod:`nlpbias.studies.perturbation.documents`).
2. :func:`fit_glove` — our GloVe (:class:`nlpbias.studies.perturbation.glove.GloVe`), cached on
   disk.
3. :func:`baseline_table` — WEAT effect sizes with permutation p-values of the fitted vectors.
4. :func:`score_documents` — every document's differential bias ΔB for every word set
   (:func:`nlpbias.studies.perturbation.influence.differential_bias`); :func:`top_documents`
   shows the documents at either end.
5. :func:`validate` — remove the most bias-increasing, the most bias-decreasing and random sets
   of documents, refit GloVe from the same initialisation with several seeds
   (:mod:`nlpbias.studies.perturbation.retraining`), and put the actual change of the effect
   size beside the predicted one; :func:`agreement` gives Pearson's and Spearman's r.
6. :func:`~nlpbias.studies.perturbation.bias_concentration.concentration_table` — the share of the
   summed |ΔB| held by the top 1 % and 10 % of documents, beside seed 004's 48.8 % and 92.2 %.

The cached steps (``_fit_cached``, ``_score_cached``, ``_retrain_cached``) are keyed by
:attr:`Prepared.key <nlpbias.studies.perturbation.documents.Prepared.key>`, which names the corpus.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.cache import cached
from nlpbias.core.checks import check_choice, check_int
from nlpbias.studies.perturbation.cooccurrence import Corpus
from nlpbias.studies.perturbation.documents import Prepared
from nlpbias.studies.perturbation.glove import GloVe
from nlpbias.studies.perturbation.influence import (
    DDOF,
    differential_bias,
    effect_sizes,
    predict_removals,
    weat_index,
)
from nlpbias.studies.perturbation.retraining import retrain_removals

__all__ = [
    "agreement",
    "baseline_table",
    "fit_glove",
    "readable",
    "removal_sets",
    "score_documents",
    "skipped_sentence",
    "top_documents",
    "usable_wordsets",
    "validate",
]

logger = logging.getLogger(__name__)


@cached(ignore=("X", "show_progress"))
def _fit_cached(key: str, X: Any, params: dict[str, Any], show_progress: bool) -> GloVe:
    return GloVe(**params, show_progress=show_progress).fit(X)


def fit_glove(prepared: Prepared, *, show_progress: bool = True, **params: Any) -> GloVe:
    """Fit :class:`~nlpbias.studies.perturbation.glove.GloVe` to ``prepared.X`` (cached by corpus
    and params).

    Examples
    --------
    >>> model = fit_glove(prepared, vector_size=50, epochs=30, learning_rate=0.2)  # doctest: +SKIP
    """
    return _fit_cached(prepared.key, prepared.X, dict(sorted(params.items())), show_progress)


def usable_wordsets(
    prepared: Prepared, wordsets: Sequence[str], *, max_missing: float, random_state: int
) -> tuple[list[str], pd.DataFrame]:
    """Split word sets into those the vocabulary covers and those it does not.

    Returns
    -------
    (list of str, pandas.DataFrame)
        The usable word sets, and one row per skipped set (``wordset``, ``reason``: the
        out-of-vocabulary words).
    """
    from nlpbias.metrics.query import OutOfVocabularyError

    usable, skipped = [], []
    for name in wordsets:
        try:
            idx = weat_index(
                name, prepared.vocab, max_missing=max_missing, random_state=random_state
            )
        except OutOfVocabularyError as exc:
            skipped.append({"wordset": name, "reason": str(exc)})
            continue
        short = {k: len(v) for k, v in list(idx.words.items())[:2] if len(v) < 2}
        if short:  # WEAT compares target words with each other: one word per set is no test
            left = ", ".join(f"{k}: {n}" for k, n in short.items())
            skipped.append({"wordset": name, "reason": f"fewer than 2 target words left ({left})"})
        else:
            usable.append(name)
    return usable, pd.DataFrame(skipped, columns=["wordset", "reason"])


def skipped_sentence(usable: Sequence[str], skipped: pd.DataFrame) -> str:
    """The outcome of :func:`usable_wordsets` in one sentence, word sets named by their titles.

    Examples
    --------
    >>> skipped_sentence(["science_arts"], pd.DataFrame({"wordset": ["caliskan_weat7"]}))
    'Of the 2 word sets, 1 is usable in this vocabulary (Science vs arts × male vs female terms) and 1 is skipped (WEAT 7: math vs arts × male vs female terms).'
    """  # noqa: E501
    from nlpbias.core.text import fmt_count
    from nlpbias.plotting.labels import wordset_label

    lost = list(skipped["wordset"]) if len(skipped) else []
    total = len(usable) + len(lost)

    def names(sets: Sequence[str]) -> str:
        return "; ".join(wordset_label(n, width=None) for n in sets)

    verb = "is" if len(usable) == 1 else "are"
    out = f"Of the {fmt_count(total)} word sets, {fmt_count(len(usable))} {verb} usable"
    out += " in this vocabulary"
    out += f" ({names(usable)})" if usable else ""
    if not lost:
        return out + " and none is skipped."
    verb = "is" if len(lost) == 1 else "are"
    return out + f" and {fmt_count(len(lost))} {verb} skipped ({names(lost)})."


def readable(frame: pd.DataFrame | pd.Series) -> pd.DataFrame | pd.Series:
    """The same table with word sets named by their titles (index and a ``wordset`` column).

    Examples
    --------
    >>> readable(pd.Series({"caliskan_weat7": 1.0, "mean": 2.0})).index.tolist()
    ['WEAT 7: math vs arts × male vs female terms', 'mean']
    """
    from nlpbias.plotting.labels import wordset_label

    def label(name: object) -> object:
        return wordset_label(name, width=None) if isinstance(name, str) else name

    out = frame.rename(index=label)
    if isinstance(out, pd.DataFrame) and "wordset" in out.columns:
        out = out.assign(wordset=out["wordset"].map(label))
    return out


def _check_some(wordsets: Sequence[str]) -> None:
    if isinstance(wordsets, str) or not list(wordsets):
        raise ValueError(
            "no word set to measure (none is covered by this vocabulary?); check "
            "usable_wordsets(), lower min_count, use more documents or raise max_missing"
        )


def baseline_table(
    model: GloVe,
    prepared: Prepared,
    wordsets: Sequence[str],
    *,
    n_permutations: int,
    max_missing: float,
    random_state: int,
) -> pd.DataFrame:
    """WEAT effect size and one-sided permutation p-value of each word set in ``W``.

    Returns
    -------
    pandas.DataFrame
        Index ``wordset``: ``effect_size``, ``p_value``, ``words`` (used per set),
        ``dropped`` (out of the vocabulary).
    """
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.weat import weat

    _check_some(wordsets)
    kv = model.to_keyed_vectors(prepared.vocab)
    rows = []
    for name in wordsets:
        idx = weat_index(name, prepared.vocab, max_missing=max_missing, random_state=random_state)
        res = weat(
            load_wordset(name), kv, lowercase=True, max_missing=max_missing, ddof=DDOF,
            n_resamples=n_permutations, n_bootstrap=0, random_state=random_state,
        )  # fmt: skip
        rows.append(
            {
                "wordset": name,
                "effect_size": res.effect_size,
                "p_value": res.p_value,
                "words": sum(len(v) for v in idx.words.values()),
                "dropped": ", ".join(w for ws in idx.dropped.values() for w in ws) or "—",
            }
        )
    return pd.DataFrame(rows).set_index("wordset")


@cached(ignore=("X", "corpus", "show_progress"))
def _score_cached(
    key: str,
    model: GloVe,
    X: Any,
    corpus: Corpus,
    wordset: str,
    window: int,
    max_missing: float,
    random_state: int,
    show_progress: bool,
) -> pd.DataFrame:
    return differential_bias(
        model, X, corpus, wordset, window=window, max_missing=max_missing,
        random_state=random_state, show_progress=show_progress,
    )  # fmt: skip


def score_documents(
    model: GloVe,
    prepared: Prepared,
    wordsets: Sequence[str],
    *,
    max_missing: float,
    random_state: int,
    show_progress: bool = True,
) -> dict[str, pd.DataFrame]:
    """Differential bias of every document for each word set (see
    :mod:`nlpbias.studies.perturbation.influence`).

    Cached on disk by the corpus (``prepared.key``), the model's vectors and the word set;
    ``attrs["seconds"]`` is the time of the computation that made the table. ``random_state``
    drops words to balance a word set's targets, as in :func:`baseline_table`.
    """
    _check_some(wordsets)
    return {
        name: _score_cached(
            prepared.key,
            model,
            prepared.X,
            prepared.corpus,
            name,
            prepared.window,
            max_missing,
            random_state,
            show_progress,
        )  # fmt: skip
        for name in wordsets
    }


def removal_sets(
    table: pd.DataFrame,
    *,
    sizes: Sequence[int],
    n_random: int,
    random_state: int,
) -> dict[str, np.ndarray]:
    """Sets of documents to remove: top-N and bottom-N by ΔB and random sets of each size.

    Names: ``"increasing N"`` (the N largest ΔB: removing them should lower the bias),
    ``"decreasing N"`` (the N smallest) and ``"random N #r"``.

    Examples
    --------
    >>> t = pd.DataFrame({"delta_b": [0.5, -0.2, 0.0, 0.1]})
    >>> sets = removal_sets(t, sizes=[1], n_random=1, random_state=0)
    >>> {k: v.tolist() for k, v in sets.items()}
    {'increasing 1': [0], 'decreasing 1': [1], 'random 1 #1': [3]}
    """
    n = len(table)
    rng = np.random.default_rng(random_state)
    order = np.argsort(-table["delta_b"].to_numpy(), kind="stable")
    out: dict[str, np.ndarray] = {}
    for size in sizes:
        check_int(size, f"each size (for {n} documents, at most half)", minimum=1, maximum=n // 2)
        out[f"increasing {size}"] = table.index.to_numpy()[order[:size]]
        out[f"decreasing {size}"] = table.index.to_numpy()[order[::-1][:size]]
        for r in range(n_random):
            out[f"random {size} #{r + 1}"] = np.sort(
                rng.choice(table.index.to_numpy(), size, False)
            )
    return out


@cached(ignore=("corpus", "executor", "n_jobs", "show_progress"))
def _retrain_cached(
    key: str,
    corpus: Corpus,
    wordset: str,
    sets: dict[str, list[int]],
    glove: dict[str, Any],
    seeds: list[int],
    window: int,
    max_missing: float,
    random_state: int,
    baselines: dict[int, float],
    executor: str | Any,
    n_jobs: int | None,
    show_progress: bool,
) -> pd.DataFrame:
    return retrain_removals(
        corpus, wordset, sets, glove=glove, seeds=seeds, window=window,
        max_missing=max_missing, random_state=random_state, executor=executor, n_jobs=n_jobs,
        baselines=baselines, show_progress=show_progress,
    )  # fmt: skip


def validate(
    model: GloVe,
    prepared: Prepared,
    wordset: str,
    table: pd.DataFrame,
    *,
    glove: Mapping[str, Any],
    sizes: Sequence[int],
    n_random: int,
    seeds: Sequence[int],
    max_missing: float,
    random_state: int,
    executor: str | Any,
    n_jobs: int | None,
    show_progress: bool = True,
) -> pd.DataFrame:
    """Predicted vs actual ΔB for removing sets of documents (:func:`removal_sets`).

    The prediction is made with ``model``; the actual change is measured by refitting GloVe
    with ``glove`` parameters for every seed in ``seeds`` (one fit on all documents and one per
    set, from the seed's initialisation), run by ``executor`` (see
    :func:`nlpbias.core.sweep.run_sweep`). Results are cached on disk.

    Returns
    -------
    pandas.DataFrame
        One row per set: ``kind`` (increasing/decreasing/random), ``n_documents``,
        ``predicted``, ``actual`` (mean over seeds), ``deviation`` (``actual − predicted``),
        ``actual_sd`` (standard deviation over seeds; only with two or more seeds), ``seeds``;
        ``attrs["runs"]`` holds every retraining run (:func:`~nlpbias.studies.perturbation.
        retraining.retrain_removals`).
    """
    sets = removal_sets(table, sizes=sizes, n_random=n_random, random_state=random_state)
    pred = predict_removals(
        model, prepared.X, prepared.corpus, wordset, sets, window=prepared.window,
        max_missing=max_missing, random_state=random_state,
    )  # fmt: skip
    # the model being explained is the seed's fit on all documents when its parameters match
    same = model.fitted_with(glove)
    idx = weat_index(wordset, prepared.vocab, max_missing=max_missing, random_state=random_state)
    base = {int(model.random_state): effect_sizes(model.W_[idx.rows], idx)} if same else {}
    runs = _retrain_cached(
        prepared.key, prepared.corpus, wordset, {k: v.tolist() for k, v in sets.items()},
        dict(glove), list(seeds), prepared.window, max_missing, random_state, base, executor,
        n_jobs, show_progress,
    )  # fmt: skip
    agg = runs.groupby("removed", sort=False)["actual"].agg(["mean", "std", "count"])
    predicted = pred.loc[list(sets)].to_numpy()
    actual = agg.loc[list(sets), "mean"].to_numpy()
    out = pd.DataFrame(
        {
            "kind": [name.split()[0] for name in sets],
            "n_documents": [len(v) for v in sets.values()],
            "predicted": predicted,
            "actual": actual,
            "deviation": actual - predicted,
            "actual_sd": agg.loc[list(sets), "std"].to_numpy(),
            "seeds": agg.loc[list(sets), "count"].to_numpy(),
        },
        index=pd.Index(list(sets), name="removed"),
    )
    if len(seeds) < 2:  # no spread over one seed: no column of NaN
        out = out.drop(columns="actual_sd")
    out.attrs["runs"] = runs
    return out


def agreement(validation: pd.DataFrame) -> pd.Series:
    """Pearson's and Spearman's r between predicted and actual ΔB over the removal sets.

    Examples
    --------
    >>> v = pd.DataFrame({"predicted": [1.0, 2, 3, 4], "actual": [1.1, 1.9, 3.2, 3.9]})
    >>> agreement(v).round(3).tolist()
    [0.993, 1.0, 4.0]
    """
    from scipy import stats

    if len(validation) < 3:
        raise ValueError(f"agreement needs at least 3 removal sets, got {len(validation)}")
    p, a = validation["predicted"].to_numpy(float), validation["actual"].to_numpy(float)
    return pd.Series(
        {
            "pearson_r": float(stats.pearsonr(p, a).statistic),
            "spearman_r": float(stats.spearmanr(p, a).statistic),
            "n_sets": float(len(validation)),
        },
        name="agreement",
    )


def top_documents(
    table: pd.DataFrame,
    prepared: Prepared,
    *,
    n: int = 5,
    direction: str = "increasing",
    excerpt_chars: int = 160,
) -> pd.DataFrame:
    """The ``n`` most bias-increasing (or -decreasing) documents, with an excerpt.

    The excerpt is centred on the first occurrence of a word of the test.
    """
    check_choice(direction, "direction", ("increasing", "decreasing"))
    pick = (
        table.nlargest(n, "delta_b") if direction == "increasing" else table.nsmallest(n, "delta_b")
    )
    words = [w.lower() for ws in table.attrs.get("words", {}).values() for w in ws]
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.I) if words else None
    rows = []
    for k, r in pick.iterrows():
        doc = prepared.documents.iloc[int(k)]  # the table counts documents by position
        text = " ".join(str(doc["text"]).split())
        m = pattern.search(text) if pattern else None
        start = max(0, (m.start() if m else 0) - excerpt_chars // 2)
        excerpt = ("…" if start else "") + text[start : start + excerpt_chars] + "…"
        rows.append(
            {
                "document": prepared.documents.index[int(k)],
                "title": doc.get("title", ""),
                "author": doc.get("author", ""),
                "delta_b": r["delta_b"],
                "delta_b_pct": r["delta_b_pct"],
                "weat_tokens": int(r["weat_tokens"]),
                "excerpt": excerpt,
            }
        )
    return pd.DataFrame(rows).set_index("document")
