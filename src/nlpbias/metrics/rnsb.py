"""Relative Negative Sentiment Bias (RNSB) of word sets in an embedding.

:func:`rnsb` computes RNSB for one :class:`~nlpbias.metrics.query.Query` (word lookup with an
out-of-vocabulary policy, then the signed or the KL score) and :func:`rnsb_table` for several.
The scores, the classifier runs and the differences from WEFE are described in
:mod:`nlpbias.metrics.rnsb_vectors`, which computes RNSB on arrays of vectors; its
:class:`RNSBResult`, :func:`rnsb_kl` and :func:`rnsb_signed` are importable from here too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Literal

import pandas as pd

from nlpbias.core.checks import check_choice, check_fraction, check_int
from nlpbias.core.progress import progress as progress_bar
from nlpbias.core.repro import rng as _rng
from nlpbias.metrics.query import Query, as_query
from nlpbias.metrics.rnsb_vectors import RandomState, RNSBResult, rnsb_kl, rnsb_signed

__all__ = ["VARIANTS", "RNSBResult", "rnsb", "rnsb_kl", "rnsb_signed", "rnsb_table"]

Variant = Literal["signed", "kl", "kl_sets"]
VARIANTS: tuple[str, ...] = ("signed", "kl", "kl_sets")


def rnsb(
    query: Query,
    embedding: object,
    *,
    variant: Variant = "signed",
    n_runs: int = 10,
    holdout: float = 0.0,
    oov: Literal["drop", "raise"] = "drop",
    max_missing: float = 0.2,
    lowercase: bool = False,
    random_state: RandomState = None,
) -> RNSBResult:
    """RNSB of a :class:`~nlpbias.metrics.query.Query` in an embedding.

    Looks the words up with :meth:`Query.vectors` (OOV policy ``oov``, ``max_missing``,
    ``lowercase``), then calls :func:`rnsb_signed` (``variant="signed"``) or :func:`rnsb_kl`
    on both target sets pooled (``"kl"``) or on the two set means (``"kl_sets"``).

    Parameters
    ----------
    query : Query
        ``T1``, ``T2`` targets; ``A1`` is labelled ``+1``, ``A2`` is the "negative" class.
    embedding : gensim KeyedVectors or Mapping[str, array-like]
        Word vectors.
    variant : {"signed", "kl", "kl_sets"}, default "signed"
        Which score (see the module docstring).
    n_runs, holdout
        As in :func:`rnsb_signed`.
    oov, max_missing, lowercase
        As in :meth:`Query.vectors`.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        One generator drives both the OOV balancing draw and the per-run seeds.

    Returns
    -------
    RNSBResult
        With ``name`` (the query's) and ``words`` (words used per set) filled in.

    Examples
    --------
    >>> from nlpbias.metrics.query import Query, as_query
    >>> emb = {"doctor": [1.0, 0.2], "nurse": [-1.0, 0.3], "he": [1.0, 0.0],
    ...        "him": [0.9, 0.1], "she": [-1.0, 0.0], "her": [-0.9, 0.1]}
    >>> q = Query((["doctor"], ["nurse"]), (["he", "him"], ["she", "her"]), name="toy")
    >>> res = rnsb(q, emb, n_runs=2, random_state=0)
    >>> res.variant, bool(res.score > 0)
    ('signed', True)
    """
    query = as_query(query)
    check_choice(variant, "variant", VARIANTS)
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    holdout = check_fraction(holdout, "holdout", allow_zero=True)
    gen = _rng(random_state)
    qv = query.vectors(
        embedding, oov=oov, max_missing=max_missing, lowercase=lowercase, random_state=gen
    )
    t_names = qv.names[:2]
    t_words = [qv.words[n] for n in t_names]
    common = {
        "n_runs": n_runs,
        "random_state": gen,
        "holdout": holdout,
        "target_words": t_words,
        "target_names": t_names,
    }
    if variant == "signed":
        res = rnsb_signed(qv.T1, qv.T2, qv.A1, qv.A2, **common)
    else:
        res = rnsb_kl([qv.T1, qv.T2], qv.A1, qv.A2, per_set=variant == "kl_sets", **common)
    return replace(res, name=query.name, words=dict(qv.words))


def rnsb_table(
    queries: Iterable[Query], embedding: object, *, progress: bool = True, **kwargs: Any
) -> pd.DataFrame:
    """Run :func:`rnsb` on several queries; one row per query (``name, variant, score, std,
    n_runs``). ``kwargs`` go to :func:`rnsb`; an int ``random_state`` seeds every query alike.

    Examples
    --------
    >>> emb = {"a": [1, .1], "b": [.9, 0], "c": [.1, 1], "d": [0, .8], "x": [1, 0], "y": [0, 1],
    ...        "x2": [.9, .2], "y2": [.2, .9]}
    >>> q = Query((["a", "b"], ["c", "d"]), (["x", "x2"], ["y", "y2"]), name="q")
    >>> rnsb_table([q], emb, progress=False, n_runs=2)["score"].gt(0).tolist()
    [True]
    """
    queries = list(queries)
    if not queries:
        raise ValueError("queries is empty; pass at least one Query")
    rows = [
        rnsb(query, embedding, **kwargs).to_series()
        for query in progress_bar(queries, desc="RNSB", enabled=progress, leave=False)
    ]
    return pd.DataFrame(rows).reset_index(drop=True)
