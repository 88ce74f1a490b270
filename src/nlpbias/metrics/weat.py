r"""Word Embedding Association Test (WEAT; Caliskan, Bryson & Narayanan, 2017).

On word sets: :func:`weat` runs the test for one :class:`~nlpbias.metrics.query.Query` in an
embedding (word lookup with an out-of-vocabulary policy, statistic, effect size, permutation
p-value, bootstrap interval); :func:`weat_table`, :func:`weat_by_embedding`,
:func:`word_associations` and :func:`coverage_table` tabulate it over queries and embeddings.
On arrays of vectors: :func:`association`, :func:`weat_statistic` and :func:`weat_effect_size`.

Definitions (cosine similarity ``cos``; ``T1, T2`` target sets, ``A1, A2`` attribute sets)

.. math::

    s(w, A_1, A_2) &= \operatorname{mean}_{a \in A_1} \cos(w, a)
                     - \operatorname{mean}_{b \in A_2} \cos(w, b) \\
    S(T_1, T_2, A_1, A_2) &= \sum_{x \in T_1} s(x) - \sum_{y \in T_2} s(y) \\
    d &= \frac{\operatorname{mean}_{x \in T_1} s(x) - \operatorname{mean}_{y \in T_2} s(y)}
             {\operatorname{std}_{w \in T_1 \cup T_2} s(w)}

The standard deviation of the effect size ``d``: Caliskan et al. (2017) write
"std-dev" over ``T1 ∪ T2`` without saying which. Their released code and Brunet et al. (2019) use
the **sample** standard deviation (``ddof=1``, the intrinsic chapter's value); WEFE and Katô &
Miyao use the **population** one (``ddof=0``). The two differ by the factor
``sqrt((n - 1) / n)`` with ``n = |T1| + |T2|``: ``d(ddof=0) = d(ddof=1) * sqrt(n / (n - 1))``.

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

Inputs that make WEAT meaningless are refused with one line: fewer than two words in a target
set (with one word each, ``d`` is ``±sqrt(2)`` whatever the vectors) and the same vector in both
target sets or both attribute sets (the same word on both sides of the comparison).

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

from nlpbias.core.checks import check_choice, check_fraction, check_int
from nlpbias.core.progress import progress as progress_bar
from nlpbias.core.repro import rng as _rng
from nlpbias.metrics.query import OutOfVocabularyError, Query, QueryVectors, as_query
from nlpbias.metrics.stats import bootstrap_ci, check_alternative, permutation_pvalue

__all__ = [
    "WEATResult",
    "association",
    "coverage_table",
    "weat",
    "weat_by_embedding",
    "weat_effect_size",
    "weat_statistic",
    "weat_table",
    "word_associations",
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


def _check_distinct_sets(
    X: np.ndarray,
    Y: np.ndarray,
    names: tuple[str, str],
    words: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
) -> None:
    """Refuse a vector that is a row of both ``X`` and ``Y``: the same word in both sets.

    Parameters
    ----------
    X, Y : numpy.ndarray, shape (n_words, dim)
        The two target sets, or the two attribute sets (vectors as looked up, not normalised).
    names : pair of str
        Names of the two sets, for the message.
    words : pair of tuples of str, optional
        The words of each row; the message then names them.

    Raises
    ------
    ValueError
        One line naming the shared rows (or words) and the fix.

    Examples
    --------
    >>> _check_distinct_sets(np.eye(2), np.eye(2)[:1], ("T1", "T2"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: T1 and T2 share a vector (T1 row 0 = T2 row 0)...
    """
    X, Y = np.asarray(X), np.asarray(Y)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        return  # the shape checks of the callers report these
    same = np.argwhere((X[:, None, :] == Y[None, :, :]).all(axis=2))
    if not same.size:
        return
    if words is not None:
        pairs = [
            w if w == v else f"{w}/{v}"
            for w, v in ((words[0][i], words[1][j]) for i, j in same.tolist())
        ]
        shared = f"both list {', '.join(map(repr, pairs))}"
    else:
        rows = [f"{names[0]} row {i} = {names[1]} row {j}" for i, j in same.tolist()[:3]]
        shared = f"share a vector ({'; '.join(rows)}{'; ...' if len(same) > 3 else ''})"
    raise ValueError(
        f"{names[0]} and {names[1]} {shared}: the same word cannot be in both sets of a "
        "comparison; remove it from one of them"
    )


def _check_target_sizes(n1: int, n2: int, names: tuple[str, str] = ("T1", "T2")) -> None:
    """Refuse target sets of fewer than two words: ``d`` would be ``±sqrt(2)`` whatever they are.

    Examples
    --------
    >>> _check_target_sizes(1, 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: WEAT needs at least two words in each target set, got T1: 1, T2: 3 ...
    """
    if min(n1, n2) < 2:
        raise ValueError(
            f"WEAT needs at least two words in each target set, got {names[0]}: {n1}, "
            f"{names[1]}: {n2} (with one word a set, the effect size is ±1.414 whatever the "
            "vectors); add target words"
        )


def _cosines(W: Any, A1: Any, A2: Any, w_name: str = "W") -> tuple[np.ndarray, int]:
    """One cosine matrix ``cos(W, [A1; A2])`` and the number of A1 columns."""
    Wn = _unit_rows(W, w_name)
    dim = Wn.shape[1]
    A1n = _unit_rows(A1, "A1", dim)
    A2n = _unit_rows(A2, "A2", dim)
    _check_distinct_sets(np.asarray(A1, dtype=np.float64), np.asarray(A2, dtype=np.float64),
                        ("A1", "A2"))  # fmt: skip
    return Wn @ np.vstack([A1n, A2n]).T, A1n.shape[0]


def _association_scores(C: np.ndarray, m1: int) -> np.ndarray:
    """``s(w, A1, A2)`` of every row of the cosine matrix ``C`` (its first ``m1`` columns: A1)."""
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
    return _association_scores(C, m1)


def _check_ddof(ddof: object, n: int) -> int:
    """``ddof`` as an int in [0, n - 1] for ``n`` target words: 1 (Caliskan) or 0 (WEFE)."""
    return check_int(ddof, "ddof", minimum=0, maximum=n - 1)


def _effect_sizes(values: np.ndarray, n1: int, ddof: int) -> np.ndarray:
    """Effect size per row of ``values`` (rows: s over T1 then T2); NaN where std is ~0."""
    diff = values[:, :n1].mean(axis=1) - values[:, n1:].mean(axis=1)
    sd = values.std(axis=1, ddof=ddof)
    undefined = sd <= 1e-12 * np.abs(values).max(axis=1)
    out = np.full(values.shape[0], np.nan)
    np.divide(diff, sd, out=out, where=~undefined)
    return out


def _target_cosines(T1: Any, T2: Any, A1: Any, A2: Any) -> tuple[np.ndarray, int, int]:
    """Cosine matrix of ``[T1; T2]`` against ``[A1; A2]``, with ``len(T1)`` and ``len(A1)``."""
    T1n = _unit_rows(T1, "T1")
    T2n = _unit_rows(T2, "T2", T1n.shape[1])
    _check_distinct_sets(np.asarray(T1, dtype=np.float64), np.asarray(T2, dtype=np.float64),
                        ("T1", "T2"))  # fmt: skip
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
    s = _association_scores(C, m1)
    return float(s[:n1].sum() - s[n1:].sum())


def weat_effect_size(T1: Any, T2: Any, A1: Any, A2: Any, *, ddof: int) -> float:
    """WEAT effect size ``d`` (see the module docstring for the ``ddof`` conventions).

    Parameters
    ----------
    T1, T2, A1, A2 : array-like, shape (n_words, dim)
        Word vectors of the four sets.
    ddof : int
        Delta degrees of freedom of the std over T1 ∪ T2: 1 = sample std (Caliskan's code,
        Brunet), 0 = population std (WEFE, Katô & Miyao).

    Raises
    ------
    ValueError
        Fewer than two vectors in a target set, a vector in both target (or both attribute)
        sets, or all association scores equal (std 0), so ``d`` is undefined.

    Examples
    --------
    >>> T1, T2 = [[1.0, 0.0], [1.0, 0.2]], [[0.0, 1.0], [0.2, 1.0]]
    >>> round(weat_effect_size(T1, T2, [[1.0, 0.0]], [[0.0, 1.0]], ddof=0), 6)
    1.985569
    """
    C, n1, m1 = _target_cosines(T1, T2, A1, A2)
    _check_target_sizes(n1, C.shape[0] - n1)
    ddof = _check_ddof(ddof, C.shape[0])
    d = _effect_sizes(_association_scores(C, m1)[None, :], n1, ddof)[0]
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
    """Permutation p-value of the WEAT statistic of the association scores ``s`` (T1 first).

    Returns the p-value, the method used (``'exact'`` or ``'monte-carlo'``) and the number of
    splits; see the module docstring.
    """
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


def _bootstrap_effect_ci(
    C: np.ndarray, n1: int, m1: int, *, ddof: int, n_bootstrap: int, level: float, gen: Any
) -> tuple[float, float]:
    """Percentile bootstrap interval of the effect size from the cosine matrix ``C``."""
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


def weat(
    query: Query,
    embedding: Any = None,
    *,
    vectors: QueryVectors | None = None,
    ddof: int,
    alternative: Literal["greater", "two-sided", "less"] = "greater",
    method: Literal["auto", "exact", "monte-carlo"] = "auto",
    n_resamples: int,
    exact_limit: int = 10**6,
    n_bootstrap: int,
    confidence_level: float = 0.95,
    oov: Literal["drop", "raise"] = "drop",
    max_missing: float,
    lowercase: bool = False,
    random_state: None | int | np.random.Generator,
) -> WEATResult:
    """Run WEAT for one query: statistic, effect size, permutation p-value and bootstrap CI.

    ``ddof``, ``n_resamples``, ``n_bootstrap``, ``max_missing`` and ``random_state`` are the
    intrinsic chapter's parameters (its parameters cell and ``notebooks/profiles.yml``), so they
    have no default here: every caller passes them.

    Parameters
    ----------
    query : Query or WordSet
        The word sets.
    embedding : gensim KeyedVectors or Mapping[str, array-like], optional
        Where to look the words up (see :meth:`Query.vectors`). Give this or ``vectors``.
    vectors : QueryVectors, optional
        Vectors already looked up (then ``oov``, ``max_missing``, ``lowercase`` are unused).
    ddof : int
        Std convention of the effect size: 1 = sample (Caliskan's code, Brunet), 0 = population
        (WEFE, Katô & Miyao). See the module docstring.
    alternative : {"greater", "two-sided", "less"}, default "greater"
        "greater" is Caliskan's one-sided test (T1 more associated with A1 than T2 is).
    method : {"auto", "exact", "monte-carlo"}, default "auto"
        "auto" is exact when the number of splits is at most ``exact_limit``.
    n_resamples : int
        Random splits for the Monte-Carlo test.
    exact_limit : int, default 10**6
        Largest number of splits to enumerate.
    n_bootstrap : int
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
    >>> r = weat(q, emb, ddof=1, n_resamples=10_000, n_bootstrap=0, max_missing=0.2,
    ...          random_state=0)
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
    _check_query_vectors(query.name, qv)
    C, n1, m1 = _target_cosines(qv.T1, qv.T2, qv.A1, qv.A2)
    ddof = _check_ddof(ddof, C.shape[0])
    s = _association_scores(C, m1)
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
        ci = _bootstrap_effect_ci(
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


def _check_query_vectors(name: str, qv: QueryVectors) -> None:
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
            _check_distinct_sets(X, Y, pair, words if known else None)  # type: ignore[arg-type]
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
        Passed to :func:`weat` (``ddof``, ``n_resamples``, ``n_bootstrap``, ``max_missing`` and
        ``random_state`` are required there; an int ``random_state`` seeds each query the same
        way, so a row equals ``weat(query, embedding, random_state=seed, ...)``).

    Returns
    -------
    pandas.DataFrame
        The scalar fields of :class:`WEATResult` as columns, plus ``n_dropped`` (words dropped
        over all sets) and ``missing`` (``"set: w1, w2; ..."``, empty if none).

    Examples
    --------
    >>> emb = {"a": [1, .1], "b": [.9, 0], "c": [.1, 1], "d": [0, .8], "x": [1, 0], "y": [0, 1]}
    >>> q = Query((["a", "b"], ["c", "d"]), (["x"], ["y"]), name="q")
    >>> kw = dict(ddof=1, n_resamples=1000, n_bootstrap=0, max_missing=0.2, random_state=0)
    >>> table = weat_table([q, q.swap_attributes()], emb, progress=False, **kw)
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
    max_missing: float,
    lowercase: bool = False,
) -> pd.DataFrame:
    """The association s(w, A1, A2) of every target word the embedding has, one row per word.

    Unlike :func:`weat`, no word is dropped to balance the target sets: every word found is shown.
    ``max_missing`` (required, the chapter's parameter) as in :meth:`Query.vectors`.

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
        embedding,
        oov="drop",
        max_missing=max_missing,
        lowercase=lowercase,
        random_state=None,  # unused: balance=False drops no word
        balance=False,
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
    queries: Iterable[Query], embeddings: Mapping[str, Any], *, max_missing: float, **kwargs: Any
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`weat_table` for every embedding; queries an embedding cannot cover are excluded.

    A query is excluded from one embedding (not the whole table) when :func:`weat` raises
    :class:`~nlpbias.metrics.query.OutOfVocabularyError` for it there — e.g. the African-American
    first names of WEAT 3–5 in a corpus of 19th-century novels, or a target set left with fewer
    than two words.

    ``max_missing`` and ``kwargs`` go to :func:`weat` (through :func:`weat_table`).

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
    >>> kw = dict(ddof=1, n_resamples=1000, n_bootstrap=0, max_missing=0.2, random_state=0)
    >>> res, exc = weat_by_embedding([q, far], {"toy": emb}, progress=False, **kw)
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
                    max_missing=max_missing,
                    lowercase=weat_kw.get("lowercase", False),
                    random_state=None,  # which words balancing drops does not decide coverage
                )
                _check_query_vectors(q.name, qv)  # too few target words left: excluded too
            except OutOfVocabularyError as err:
                excluded.append({"embedding": name, "query": q.name, "reason": str(err)})
                continue
            usable.append(q)
        if usable:
            table = weat_table(usable, emb, max_missing=max_missing, **kwargs)
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
