r"""Word Embedding Association Test (WEAT; Caliskan, Bryson & Narayanan, 2017).

Definitions (cosine similarity ``cos``; ``T1, T2`` target sets, ``A1, A2`` attribute sets)

.. math::

    s(w, A_1, A_2) &= \operatorname{mean}_{a \in A_1} \cos(w, a)
                     - \operatorname{mean}_{b \in A_2} \cos(w, b) \\
    S(T_1, T_2, A_1, A_2) &= \sum_{x \in T_1} s(x) - \sum_{y \in T_2} s(y) \\
    d &= \frac{\operatorname{mean}_{x \in T_1} s(x) - \operatorname{mean}_{y \in T_2} s(y)}
             {\operatorname{std}_{w \in T_1 \cup T_2} s(w)}

The standard deviation of the effect size ``d``: Caliskan et al. (2017) write
"std-dev" over ``T1 ∪ T2`` without saying which. Their released code and Brunet et al. (2019) use
the **sample** standard deviation (``ddof=1``, the default here); WEFE and Katô & Miyao use the
**population** one (``ddof=0``). The two differ by the factor ``sqrt((n - 1) / n)`` with
``n = |T1| + |T2|``: ``d(ddof=0) = d(ddof=1) * sqrt(n / (n - 1))``.

Permutation test
    Under the null hypothesis the labels T1/T2 are exchangeable. The p-value compares ``S`` with
    its values over equal-size re-splits ``(X, Y)`` of ``T1 ∪ T2`` (``|X| = |T1|``).
    ``s`` is computed once (one cosine matrix); a split's statistic is
    ``2 * sum(s[X]) - sum(s)``, so whole batches of splits are evaluated as index matrices.

    - exact: every split is enumerated (when their number ``C(n, |T1|)`` is at most
      ``exact_limit``); ``p = k / N`` with the observed split among the ``N``.
    - Monte Carlo: ``n_resamples`` uniformly random splits (random permutations, without
      replacement within a split); ``p = (k + 1) / (n_resamples + 1)``.

    ``k`` counts splits with ``S' >= S`` (``alternative="greater"``, the WEAT test), ``S' <= S``
    (``"less"``) or ``|S'| >= |S|`` (``"two-sided"``).

Bootstrap confidence interval of ``d``
    Percentile interval over ``n_bootstrap`` resamples that draw words with replacement within
    each of T1, T2, A1 and A2 separately (set sizes kept), recomputing ``s`` and ``d`` from the
    cosine matrix each time. It reflects the sensitivity of ``d`` to the choice of words.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from nlpbias.core.progress import progress as progress_bar
from nlpbias.core.repro import rng as _rng
from nlpbias.metrics.query import OutOfVocabularyError, Query, QueryVectors, as_query
from nlpbias.metrics.stats import bootstrap_ci, check_alternative, permutation_pvalue

__all__ = [
    "WEATResult",
    "association",
    "weat",
    "weat_effect_size",
    "weat_statistic",
    "weat_table",
]

_CHUNK_ELEMENTS = 2**21
_METHODS = ("auto", "exact", "monte-carlo")


def _unit_rows(X: Any, name: str, dim: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be a 2-D array of vectors, got {type(X).__name__}") from err
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(
            f"{name} must be a non-empty 2-D array (words x dims), got shape {arr.shape}"
        )
    if dim is not None and arr.shape[1] != dim:
        raise ValueError(
            f"{name} has vectors of length {arr.shape[1]}, the others {dim}; use one embedding"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; fix the vectors")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    if np.any(norms == 0):
        row = int(np.flatnonzero(norms[:, 0] == 0)[0])
        raise ValueError(f"row {row} of {name} is a zero vector, so its cosine is undefined")
    return arr / norms


def _cosines(W: Any, A1: Any, A2: Any, w_name: str = "W") -> tuple[np.ndarray, int]:
    """One cosine matrix ``cos(W, [A1; A2])`` and the number of A1 columns."""
    Wn = _unit_rows(W, w_name)
    dim = Wn.shape[1]
    A1n = _unit_rows(A1, "A1", dim)
    A2n = _unit_rows(A2, "A2", dim)
    return Wn @ np.vstack([A1n, A2n]).T, A1n.shape[0]


def _scores(C: np.ndarray, m1: int) -> np.ndarray:
    return C[:, :m1].mean(axis=1) - C[:, m1:].mean(axis=1)


def association(W: Any, A1: Any, A2: Any) -> np.ndarray:
    """Association ``s(w, A1, A2)`` of each row of ``W``: mean cosine with A1 minus with A2.

    Parameters
    ----------
    W, A1, A2 : array-like, shape (n_words, dim)
        Word vectors (one row per word); need not be normalised.

    Returns
    -------
    numpy.ndarray, shape (len(W),)

    Examples
    --------
    >>> association([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]])
    array([1.])
    """
    C, m1 = _cosines(W, A1, A2)
    return _scores(C, m1)


def _check_ddof(ddof: object, n: int) -> int:
    if isinstance(ddof, bool) or not isinstance(ddof, int | np.integer) or not 0 <= ddof < n:
        raise ValueError(
            f"ddof must be an int in [0, {n - 1}] for {n} target words, got {ddof!r}; "
            "pass 1 (sample std, Caliskan) or 0 (population std, WEFE)"
        )
    return int(ddof)


def _effect_sizes(values: np.ndarray, n1: int, ddof: int) -> np.ndarray:
    """Effect size per row of ``values`` (rows: s over T1 then T2); NaN where std is ~0."""
    diff = values[:, :n1].mean(axis=1) - values[:, n1:].mean(axis=1)
    sd = values.std(axis=1, ddof=ddof)
    undefined = sd <= 1e-12 * np.abs(values).max(axis=1)
    out = np.full(values.shape[0], np.nan)
    np.divide(diff, sd, out=out, where=~undefined)
    return out


def _target_cosines(T1: Any, T2: Any, A1: Any, A2: Any) -> tuple[np.ndarray, int, int]:
    T1n = _unit_rows(T1, "T1")
    T2n = _unit_rows(T2, "T2", T1n.shape[1])
    C, m1 = _cosines(np.vstack([T1n, T2n]), A1, A2, "T1/T2")
    return C, T1n.shape[0], m1


def weat_statistic(T1: Any, T2: Any, A1: Any, A2: Any) -> float:
    """WEAT test statistic ``S = sum_{x in T1} s(x) - sum_{y in T2} s(y)``.

    Examples
    --------
    >>> weat_statistic([[1.0, 0.0]], [[0.0, 1.0]], [[1.0, 0.0]], [[0.0, 1.0]])
    2.0
    """
    C, n1, m1 = _target_cosines(T1, T2, A1, A2)
    s = _scores(C, m1)
    return float(s[:n1].sum() - s[n1:].sum())


def weat_effect_size(T1: Any, T2: Any, A1: Any, A2: Any, *, ddof: int = 1) -> float:
    """WEAT effect size ``d`` (see the module docstring for the ``ddof`` conventions).

    Parameters
    ----------
    T1, T2, A1, A2 : array-like, shape (n_words, dim)
        Word vectors of the four sets.
    ddof : int, default 1
        Delta degrees of freedom of the std over T1 ∪ T2: 1 = sample std (Caliskan's code,
        Brunet), 0 = population std (WEFE, Katô & Miyao).

    Raises
    ------
    ValueError
        When all association scores are equal (std 0), so ``d`` is undefined.

    Examples
    --------
    >>> T1, T2 = [[1.0, 0.0], [1.0, 0.2]], [[0.0, 1.0], [0.2, 1.0]]
    >>> round(weat_effect_size(T1, T2, [[1.0, 0.0]], [[0.0, 1.0]], ddof=0), 6)
    1.985569
    """
    C, n1, m1 = _target_cosines(T1, T2, A1, A2)
    ddof = _check_ddof(ddof, C.shape[0])
    d = _effect_sizes(_scores(C, m1)[None, :], n1, ddof)[0]
    if not np.isfinite(d):
        raise ValueError(
            "all association scores s(w) are equal, so the effect size is undefined; "
            "check that the target words have distinct vectors"
        )
    return float(d)


def _subset_sums(s: np.ndarray, k: int) -> np.ndarray:
    """Sums of ``s`` over every k-subset, built by dynamic programming over the elements.

    ``table[j]`` holds the sums of all j-subsets of ``s[i:]``; adding element ``i`` gives
    ``table[j] = concat(s[i] + table[j - 1], table[j])``. Only array operations, no loop over
    subsets; peak memory about twice the output.
    """
    n = s.size
    table: list[np.ndarray] = [np.zeros(1)] + [np.empty(0)] * k
    for i in range(n - 1, -1, -1):
        # a j-subset of s[i:] needs j <= n - i; one with j < k - i can never reach size k
        for j in range(min(k, n - i), max(1, k - i) - 1, -1):
            table[j] = np.concatenate([s[i] + table[j - 1], table[j]])
    return table[k]


def _random_subset_sums(s: np.ndarray, k: int, n_resamples: int, gen: Any) -> np.ndarray:
    """Sums of ``s`` over ``n_resamples`` uniformly random k-subsets (chunked argpartition)."""
    n = s.size
    out = np.empty(n_resamples)
    chunk = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        # the k smallest of n iid uniform keys form a uniformly random k-subset
        idx = np.argpartition(gen.random((size, n)), k - 1, axis=1)[:, :k]
        out[start : start + size] = s[idx].sum(axis=1)
    return out


def _permutation_test(
    s: np.ndarray,
    n1: int,
    *,
    alternative: str,
    method: str,
    n_resamples: int,
    exact_limit: int,
    gen: Any,
) -> tuple[float, str, int]:
    n = s.size
    total = s.sum()
    n_splits = math.comb(n, n1)
    use_exact = method == "exact" or (method == "auto" and n_splits <= exact_limit)
    if use_exact and n_splits > exact_limit:
        raise ValueError(
            f"the exact test needs {n_splits:,} splits, more than exact_limit={exact_limit:,}; "
            "pass method='monte-carlo' or a larger exact_limit"
        )
    k = min(n1, n - n1)  # enumerate the smaller side; the other side's sum is total - sum
    if use_exact:
        sums = _subset_sums(s, k)
    else:
        sums = _random_subset_sums(s, k, n_resamples, gen)
    if k != n1:
        sums = total - sums
    null = 2.0 * sums - total
    observed = 2.0 * s[:n1].sum() - total
    p = permutation_pvalue(observed, null, alternative=alternative, exact=use_exact)
    return p, ("exact" if use_exact else "monte-carlo"), int(null.size)


def _bootstrap(
    C: np.ndarray, n1: int, m1: int, *, ddof: int, n_bootstrap: int, level: float, gen: Any
) -> tuple[float, float]:
    n, m = C.shape
    C1, C2 = C[:, :m1], C[:, m1:]
    m2 = m - m1

    def counts(idx: np.ndarray, size: int) -> np.ndarray:
        rows = idx.shape[0]
        flat = (idx + size * np.arange(rows)[:, None]).ravel()
        return np.bincount(flat, minlength=rows * size).reshape(rows, size) / idx.shape[1]

    def effect(t1: np.ndarray, t2: np.ndarray, a1: np.ndarray, a2: np.ndarray) -> np.ndarray:
        s_b = counts(a1, m1) @ C1.T - counts(a2, m2) @ C2.T  # (B, n): s of every target word
        values = np.take_along_axis(s_b, np.concatenate([t1, t2], axis=1), axis=1)
        return _effect_sizes(values, n1, ddof)

    data = (np.arange(n1), np.arange(n1, n), np.arange(m1), np.arange(m2))
    low, high = bootstrap_ci(
        data,
        effect,
        n_resamples=n_bootstrap,
        confidence_level=level,
        random_state=gen,
        vectorized=True,
    )
    return low, high


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


def _check_int(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}; pass such an int")
    return int(value)


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
        Too many words missing from the embedding (see :meth:`Query.vectors`).
    ValueError, TypeError
        Bad options, or an undefined effect size (all association scores equal).

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
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}; pass one of those")
    n_resamples = _check_int(n_resamples, "n_resamples", 1)
    exact_limit = _check_int(exact_limit, "exact_limit", 1)
    n_bootstrap = _check_int(n_bootstrap, "n_bootstrap", 0)
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, int | float):
        raise TypeError(f"confidence_level must be a float in (0, 1), got {confidence_level!r}")
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level}")
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
    C, n1, m1 = _target_cosines(qv.T1, qv.T2, qv.A1, qv.A2)
    ddof = _check_ddof(ddof, C.shape[0])
    s = _scores(C, m1)
    effect = _effect_sizes(s[None, :], n1, ddof)[0]
    if not np.isfinite(effect):
        raise ValueError(
            f"query {query.name!r}: all association scores s(w) are equal, so the effect size "
            "is undefined; check that the target words have distinct vectors"
        )
    p, p_method, n_used = _permutation_test(
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
        ci = _bootstrap(
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
    first names of WEAT 3–5 in a corpus of 19th-century novels.

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
                q.vectors(
                    emb,
                    oov=weat_kw.get("oov", "drop"),
                    max_missing=weat_kw.get("max_missing", 0.2),
                    lowercase=weat_kw.get("lowercase", False),
                    balance=False,
                )
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
