"""Word Embedding Association Test (WEAT; Caliskan, Bryson & Narayanan, 2017) for word sets.

:func:`weat` runs the test for one :class:`~nlpbias.metrics.query.Query` in an embedding (word
lookup with an out-of-vocabulary policy, statistic, effect size, permutation p-value, bootstrap
interval); :func:`weat_table`, :func:`weat_by_embedding`, :func:`word_associations` and
:func:`coverage_table` tabulate it over queries and embeddings.

The definitions and the conventions (``ddof`` of the effect size, exact and Monte-Carlo
permutation tests, the bootstrap) are in :mod:`nlpbias.metrics.weat_vectors`, which computes WEAT
on arrays of vectors; its :func:`association`, :func:`weat_statistic` and
:func:`weat_effect_size` are importable from here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_choice, check_fraction, check_int
from nlpbias.core.progress import progress as progress_bar
from nlpbias.core.repro import rng as _rng
from nlpbias.metrics.query import OutOfVocabularyError, Query, QueryVectors, as_query
from nlpbias.metrics.stats import check_alternative
from nlpbias.metrics.weat_vectors import (
    association,
    association_scores,
    bootstrap_effect_ci,
    check_ddof,
    check_distinct_sets,
    effect_sizes,
    permutation_test,
    target_cosines,
    weat_effect_size,
    weat_statistic,
)

__all__ = [
    "WEATResult",
    "association",
    "check_query_vectors",
    "coverage_table",
    "weat",
    "weat_by_embedding",
    "weat_effect_size",
    "weat_statistic",
    "weat_table",
    "word_associations",
]

_METHODS = ("auto", "exact", "monte-carlo")


@dataclass
class WEATResult:
    """Result of :func:`weat` for one query. ``ci_low``/``ci_high`` are NaN when
    ``n_bootstrap=0`` (no interval requested); ``n_resamples`` is the number of splits the
    p-value is based on (all of them for ``p_method="exact"``)."""

    query: str
    target_1: str
    target_2: str
    attribute_1: str
    attribute_2: str
    n_target_1: int
    n_target_2: int
    n_attribute_1: int
    n_attribute_2: int
    statistic: float
    effect_size: float
    p_value: float
    p_method: str
    n_resamples: int
    alternative: str
    ci_low: float
    ci_high: float
    confidence_level: float
    ddof: int
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """All fields as a dict (``words``, ``dropped``, ``missing`` stay dicts)."""
        return asdict(self)


def weat(
    query: Query,
    embedding: Any = None,
    *,
    vectors: QueryVectors | None = None,
    ddof: int = 1,
    alternative: Literal["greater", "two-sided", "less"] = "greater",
    method: Literal["auto", "exact", "monte-carlo"] = "auto",
    n_resamples: int = 10_000,
    exact_limit: int = 10**6,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    oov: Literal["drop", "raise"] = "drop",
    max_missing: float = 0.2,
    lowercase: bool = False,
    random_state: None | int | np.random.Generator = None,
) -> WEATResult:
    """Run WEAT for one query: statistic, effect size, permutation p-value and bootstrap CI.

    Parameters
    ----------
    query : Query or WordSet
        The word sets.
    embedding : gensim KeyedVectors or Mapping[str, array-like], optional
        Where to look the words up (see :meth:`Query.vectors`). Give this or ``vectors``.
    vectors : QueryVectors, optional
        Vectors already looked up (then ``oov``, ``max_missing``, ``lowercase`` are unused).
    ddof : int, default 1
        Std convention of the effect size: 1 = sample (Caliskan's code, Brunet), 0 = population
        (WEFE, Katô & Miyao). See the module docstring.
    alternative : {"greater", "two-sided", "less"}, default "greater"
        "greater" is Caliskan's one-sided test (T1 more associated with A1 than T2 is).
    method : {"auto", "exact", "monte-carlo"}, default "auto"
        "auto" is exact when the number of splits is at most ``exact_limit``.
    n_resamples : int, default 10000
        Random splits for the Monte-Carlo test.
    exact_limit : int, default 10**6
        Largest number of splits to enumerate.
    n_bootstrap : int, default 1000
        Bootstrap resamples for the CI of the effect size; 0 skips it (CI is NaN).
    confidence_level : float, default 0.95
    oov, max_missing, lowercase :
        Out-of-vocabulary policy and lookup options, see :meth:`Query.vectors`.
    random_state : None, int or numpy.random.Generator
        One generator drives, in order, the OOV balancing drops, the permutations and the
        bootstrap, so a seed reproduces the whole result.

    Returns
    -------
    WEATResult

    Raises
    ------
    OutOfVocabularyError
        Too many words missing from the embedding (see :meth:`Query.vectors`), or fewer than
        two words left in a target set after dropping them.
    ValueError, TypeError
        Bad options, fewer than two words in a target set, the same word (vector) in both
        target or both attribute sets, or an undefined effect size (all scores equal).

    Examples
    --------
    >>> emb = {"rose": [1, .1], "lily": [.9, 0], "ant": [.1, 1], "wasp": [0, .8],
    ...        "love": [1, 0], "hate": [0, 1]}
    >>> q = Query((["rose", "lily"], ["ant", "wasp"]), (["love"], ["hate"]), name="toy")
    >>> r = weat(q, emb, random_state=0)
    >>> r.p_method, r.n_resamples, r.p_value
    ('exact', 6, 0.16666666666666666)
    """
    alternative = check_alternative(alternative)  # type: ignore[assignment]
    check_choice(method, "method", _METHODS)
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    exact_limit = check_int(exact_limit, "exact_limit", minimum=1)
    n_bootstrap = check_int(n_bootstrap, "n_bootstrap", minimum=0)
    check_fraction(confidence_level, "confidence_level")
    query = as_query(query)
    gen = _rng(random_state)
    if vectors is None:
        if embedding is None:
            raise ValueError("weat needs word vectors; pass embedding= or vectors=")
        qv = query.vectors(
            embedding, oov=oov, max_missing=max_missing, lowercase=lowercase, random_state=gen
        )
    else:
        if embedding is not None:
            raise ValueError("pass either embedding or vectors to weat, not both")
        if not isinstance(vectors, QueryVectors):
            raise TypeError(f"vectors must be a QueryVectors, got {type(vectors).__name__}")
        qv = vectors
    check_query_vectors(query.name, qv)
    C, n1, m1 = target_cosines(qv.T1, qv.T2, qv.A1, qv.A2)
    ddof = check_ddof(ddof, C.shape[0])
    s = association_scores(C, m1)
    effect = effect_sizes(s[None, :], n1, ddof)[0]
    if not np.isfinite(effect):
        raise ValueError(
            f"query {query.name!r}: all association scores s(w) are equal, so the effect size "
            "is undefined; check that the target words have distinct vectors"
        )
    p, p_method, n_used = permutation_test(
        s,
        n1,
        alternative=alternative,
        method=method,
        n_resamples=n_resamples,
        exact_limit=exact_limit,
        gen=gen,
    )
    ci = (np.nan, np.nan)
    if n_bootstrap:
        ci = bootstrap_effect_ci(
            C, n1, m1, ddof=ddof, n_bootstrap=n_bootstrap, level=confidence_level, gen=gen
        )
    names = query.set_names
    return WEATResult(
        query=query.name,
        target_1=names[0],
        target_2=names[1],
        attribute_1=names[2],
        attribute_2=names[3],
        n_target_1=n1,
        n_target_2=C.shape[0] - n1,
        n_attribute_1=m1,
        n_attribute_2=C.shape[1] - m1,
        statistic=float(s[:n1].sum() - s[n1:].sum()),
        effect_size=float(effect),
        p_value=float(p),
        p_method=p_method,
        n_resamples=n_used,
        alternative=alternative,
        ci_low=float(ci[0]),
        ci_high=float(ci[1]),
        confidence_level=float(confidence_level),
        ddof=ddof,
        words=dict(qv.words),
        dropped=dict(qv.dropped),
        missing=dict(qv.missing),
    )


def check_query_vectors(name: str, qv: QueryVectors) -> None:
    """Refuse looked-up vectors that WEAT cannot use, in one line that names the words.

    At least two words must be left in each target set after out-of-vocabulary words were
    dropped (:class:`~nlpbias.metrics.query.OutOfVocabularyError` when dropping left fewer,
    else ``ValueError``), and no word (vector) may be in both target sets or both attribute
    sets (e.g. ``"He"`` and ``"he"`` with ``lowercase=True``).
    """
    names = qv.names
    for pair, (X, Y) in ((names[:2], (qv.T1, qv.T2)), (names[2:], (qv.A1, qv.A2))):
        words = (qv.words.get(pair[0]), qv.words.get(pair[1]))
        known = all(w is not None and len(w) == len(V) for w, V in zip(words, (X, Y), strict=True))
        try:
            check_distinct_sets(X, Y, pair, words if known else None)  # type: ignore[arg-type]
        except ValueError as err:
            raise ValueError(f"query {name!r}: {err}") from None
    sizes = {n: len(V) for n, V in zip(names[:2], (qv.T1, qv.T2), strict=True)}
    if min(sizes.values()) >= 2:
        return
    lost = {n: qv.dropped.get(n, ()) for n in names[:2]}
    got = ", ".join(
        f"{n!r}: {k}" + (f" ({', '.join(qv.words[n])})" if qv.words.get(n) else "")
        for n, k in sizes.items()
    )
    msg = f"query {name!r}: WEAT needs at least two words in each target set"
    if any(lost.values()):
        dropped = "; ".join(f"{n}: {', '.join(w)}" for n, w in lost.items() if w)
        raise OutOfVocabularyError(
            f"{msg} after dropping out-of-vocabulary words (and as many from the other target "
            f"set), got {got} (dropped {dropped}); "
            "add target words the embedding has, or use another embedding",
            qv.missing,
        )
    raise ValueError(
        f"{msg}, got {got} (with one word a set, the effect size is ±1.414 whatever the "
        "vectors); add target words"
    )


def weat_table(
    queries: Iterable[Query], embedding: Any, *, progress: bool = True, **kwargs: Any
) -> pd.DataFrame:
    """Run :func:`weat` on several queries; one row per query.

    Parameters
    ----------
    queries : iterable of Query (or WordSet)
    embedding : gensim KeyedVectors or Mapping[str, array-like]
    progress : bool, default True
        Show a tqdm progress bar over the queries.
    **kwargs
        Passed to :func:`weat` (e.g. ``ddof``, ``random_state``: an int seeds each query the
        same way, so a row equals ``weat(query, embedding, random_state=seed)``).

    Returns
    -------
    pandas.DataFrame
        The scalar fields of :class:`WEATResult` as columns, plus ``n_dropped`` (words dropped
        over all sets) and ``missing`` (``"set: w1, w2; ..."``, empty if none).

    Examples
    --------
    >>> emb = {"a": [1, .1], "b": [.9, 0], "c": [.1, 1], "d": [0, .8], "x": [1, 0], "y": [0, 1]}
    >>> q = Query((["a", "b"], ["c", "d"]), (["x"], ["y"]), name="q")
    >>> table = weat_table([q, q.swap_attributes()], emb, progress=False, n_bootstrap=0)
    >>> table["p_value"].round(3).tolist()
    [0.167, 1.0]
    """
    queries = list(queries)
    if not queries:
        raise ValueError("queries is empty; pass at least one Query")
    rows = []
    for query in progress_bar(queries, desc="WEAT", enabled=progress, leave=False):
        row = weat(query, embedding, **kwargs).to_dict()
        row.pop("words")
        dropped = row.pop("dropped")
        missing = row.pop("missing")
        row["n_dropped"] = sum(len(v) for v in dropped.values())
        row["missing"] = "; ".join(f"{k}: {', '.join(v)}" for k, v in missing.items() if v)
        rows.append(row)
    return pd.DataFrame(rows)


def word_associations(
    query: Query,
    embedding: Any,
    *,
    max_missing: float = 0.2,
    lowercase: bool = False,
) -> pd.DataFrame:
    """The association s(w, A1, A2) of every target word the embedding has, one row per word.

    Unlike :func:`weat`, no word is dropped to balance the target sets: every word found is shown.

    Returns
    -------
    pandas.DataFrame
        ``set`` (target set name), ``word``, ``association``.

    Examples
    --------
    >>> emb = {"a": [1, .1], "c": [.1, 1], "x": [1, 0], "y": [0, 1]}
    >>> q = Query((["a"], ["c", "zz"]), (["x"], ["y"]), name="q")
    >>> word_associations(q, emb, max_missing=0.5)["word"].tolist()
    ['a', 'c']
    """
    qv = as_query(query).vectors(
        embedding, oov="drop", max_missing=max_missing, lowercase=lowercase, balance=False
    )
    rows = []
    for set_name, W in zip(qv.names[:2], (qv.T1, qv.T2), strict=True):
        scores = association(W, qv.A1, qv.A2)
        rows += [
            {"set": set_name, "word": w, "association": float(v)}
            for w, v in zip(qv.words[set_name], scores, strict=True)
        ]
    return pd.DataFrame(rows, columns=["set", "word", "association"])


def weat_by_embedding(
    queries: Iterable[Query], embeddings: Mapping[str, Any], **kwargs: Any
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`weat_table` for every embedding; queries an embedding cannot cover are excluded.

    A query is excluded from one embedding (not the whole table) when :func:`weat` raises
    :class:`~nlpbias.metrics.query.OutOfVocabularyError` for it there — e.g. the African-American
    first names of WEAT 3–5 in a corpus of 19th-century novels, or a target set left with fewer
    than two words.

    Returns
    -------
    (results, excluded) : pair of DataFrames
        ``results``: the columns of :func:`weat_table` with ``embedding`` first. ``excluded``:
        ``embedding, query, reason`` (the error message, which lists the missing words).

    Examples
    --------
    >>> emb = {"a": [1, .1], "b": [.9, 0], "c": [.1, 1], "d": [0, .8], "x": [1, 0], "y": [0, 1]}
    >>> q = Query((["a", "b"], ["c", "d"]), (["x"], ["y"]), name="q")
    >>> far = Query((["a", "qq"], ["c", "d"]), (["x"], ["y"]), name="far")
    >>> res, exc = weat_by_embedding([q, far], {"toy": emb}, n_bootstrap=0, progress=False)
    >>> res["query"].tolist(), exc["query"].tolist()
    (['q'], ['far'])
    """
    queries = [as_query(q) for q in queries]
    if not queries:
        raise ValueError("queries is empty; pass at least one Query")
    if not embeddings:
        raise ValueError("embeddings is empty; pass a mapping name -> embedding")
    weat_kw = {k: v for k, v in kwargs.items() if k != "progress"}
    results, excluded = [], []
    for name, emb in embeddings.items():
        usable = []
        for q in queries:
            try:
                qv = q.vectors(
                    emb,
                    oov=weat_kw.get("oov", "drop"),
                    max_missing=weat_kw.get("max_missing", 0.2),
                    lowercase=weat_kw.get("lowercase", False),
                )
                check_query_vectors(q.name, qv)  # too few target words left: excluded too
            except OutOfVocabularyError as err:
                excluded.append({"embedding": name, "query": q.name, "reason": str(err)})
                continue
            usable.append(q)
        if usable:
            table = weat_table(usable, emb, **kwargs)
            results.append(table.assign(embedding=name))
    columns = ["embedding", "query", "reason"]
    res = pd.concat(results, ignore_index=True) if results else pd.DataFrame()
    if not res.empty:
        res = res[["embedding", *[c for c in res.columns if c != "embedding"]]]
    return res, pd.DataFrame(excluded, columns=columns)


def coverage_table(
    queries: Iterable[Query], embeddings: Mapping[str, Any], *, lowercase: bool = False
) -> pd.DataFrame:
    """Share of each query's words that each embedding has: the smallest share over its four
    sets (what an out-of-vocabulary threshold acts on), with the per-set counts.

    Returns
    -------
    pandas.DataFrame
        ``embedding, query, min_share, found, n, worst_set, missing`` (``missing``: all sets).

    Examples
    --------
    >>> q = Query((["a", "b"], ["c", "d"]), (["x"], ["y"]), name="q")
    >>> emb = {"a": [1, 0], "c": [0, 1], "d": [1, 1], "x": [1, 0], "y": [0, 1]}
    >>> coverage_table([q], {"toy": emb})[["query", "min_share", "worst_set"]].values.tolist()
    [['q', 0.5, 'T1']]
    """
    queries = [as_query(q) for q in queries]
    rows = []
    for name, emb in embeddings.items():
        for q in queries:
            cov = q.coverage(emb, lowercase=lowercase)
            worst = cov.loc[cov["share"].idxmin()]
            rows.append(
                {
                    "embedding": name,
                    "query": q.name,
                    "min_share": float(worst["share"]),
                    "found": int(cov["found"].sum()),
                    "n": int(cov["n"].sum()),
                    "worst_set": worst["set"],
                    "missing": ", ".join(w for ws in cov["missing"] for w in ws),
                }
            )
    return pd.DataFrame(rows)
