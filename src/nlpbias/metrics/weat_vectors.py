r"""WEAT on arrays of vectors: association, statistic, effect size, permutation test, bootstrap.

The Word Embedding Association Test (Caliskan, Bryson & Narayanan, 2017) on vectors; WEAT for a
:class:`~nlpbias.metrics.query.Query` in an embedding is :mod:`nlpbias.metrics.intrinsic`.

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
from typing import Any

import numpy as np

from nlpbias.core.checks import check_int
from nlpbias.metrics.stats import bootstrap_ci, permutation_pvalue

__all__ = [
    "association",
    "association_scores",
    "bootstrap_effect_ci",
    "check_ddof",
    "check_distinct_sets",
    "check_target_sizes",
    "effect_sizes",
    "permutation_test",
    "target_cosines",
    "weat_effect_size",
    "weat_statistic",
]

_CHUNK_ELEMENTS = 2**21


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


def check_distinct_sets(
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
    >>> check_distinct_sets(np.eye(2), np.eye(2)[:1], ("T1", "T2"))  # doctest: +ELLIPSIS
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


def check_target_sizes(n1: int, n2: int, names: tuple[str, str] = ("T1", "T2")) -> None:
    """Refuse target sets of fewer than two words: ``d`` would be ``±sqrt(2)`` whatever they are.

    Examples
    --------
    >>> check_target_sizes(1, 3)  # doctest: +ELLIPSIS
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
    check_distinct_sets(np.asarray(A1, dtype=np.float64), np.asarray(A2, dtype=np.float64),
                        ("A1", "A2"))  # fmt: skip
    return Wn @ np.vstack([A1n, A2n]).T, A1n.shape[0]


def association_scores(C: np.ndarray, m1: int) -> np.ndarray:
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
    return association_scores(C, m1)


def check_ddof(ddof: object, n: int) -> int:
    """``ddof`` as an int in [0, n - 1] for ``n`` target words: 1 (Caliskan) or 0 (WEFE)."""
    return check_int(ddof, "ddof", minimum=0, maximum=n - 1)


def effect_sizes(values: np.ndarray, n1: int, ddof: int) -> np.ndarray:
    """Effect size per row of ``values`` (rows: s over T1 then T2); NaN where std is ~0."""
    diff = values[:, :n1].mean(axis=1) - values[:, n1:].mean(axis=1)
    sd = values.std(axis=1, ddof=ddof)
    undefined = sd <= 1e-12 * np.abs(values).max(axis=1)
    out = np.full(values.shape[0], np.nan)
    np.divide(diff, sd, out=out, where=~undefined)
    return out


def target_cosines(T1: Any, T2: Any, A1: Any, A2: Any) -> tuple[np.ndarray, int, int]:
    """Cosine matrix of ``[T1; T2]`` against ``[A1; A2]``, with ``len(T1)`` and ``len(A1)``."""
    T1n = _unit_rows(T1, "T1")
    T2n = _unit_rows(T2, "T2", T1n.shape[1])
    check_distinct_sets(np.asarray(T1, dtype=np.float64), np.asarray(T2, dtype=np.float64),
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
    C, n1, m1 = target_cosines(T1, T2, A1, A2)
    s = association_scores(C, m1)
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
        Fewer than two vectors in a target set, a vector in both target (or both attribute)
        sets, or all association scores equal (std 0), so ``d`` is undefined.

    Examples
    --------
    >>> T1, T2 = [[1.0, 0.0], [1.0, 0.2]], [[0.0, 1.0], [0.2, 1.0]]
    >>> round(weat_effect_size(T1, T2, [[1.0, 0.0]], [[0.0, 1.0]], ddof=0), 6)
    1.985569
    """
    C, n1, m1 = target_cosines(T1, T2, A1, A2)
    check_target_sizes(n1, C.shape[0] - n1)
    ddof = check_ddof(ddof, C.shape[0])
    d = effect_sizes(association_scores(C, m1)[None, :], n1, ddof)[0]
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


def permutation_test(
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


def bootstrap_effect_ci(
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
        return effect_sizes(values, n1, ddof)

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
