r"""Relative Negative Sentiment Bias (RNSB): the original KL score and the signed two-set variant.

:func:`rnsb` computes RNSB for one :class:`~nlpbias.metrics.query.Query` in an embedding (word
lookup with an out-of-vocabulary policy, then the signed or the KL score) and :func:`rnsb_table`
for several; :func:`rnsb_kl` and :func:`rnsb_signed` compute it on arrays of vectors.

A logistic-regression classifier is trained on attribute vectors, :math:`A_1` labelled ``+1``
and :math:`A_2` labelled ``-1`` (:math:`A_2` is the "negative" class, as in Sweeney & Najafian
(2019), where :math:`A_1` is positive and :math:`A_2` negative sentiment). For every target word
:math:`t` the classifier gives :math:`p(t) = P(A_2 \mid t)`.

- **KL (original)** — Sweeney & Najafian (2019); Badilla et al. (2020) for several target sets.
  The probabilities of all target words are normalised to a distribution
  :math:`D(t) = p(t) / \sum_{t'} p(t')` and the score is the Kullback-Leibler divergence
  :math:`\mathrm{KL}(D \,\|\, U) = \sum_t D(t) \ln (N D(t))` from the uniform distribution
  :math:`U` over the :math:`N` target words (natural log, so the maximum is :math:`\ln N`).
  The score is :math:`\ge 0`, and ``0`` when every target word is equally "negative"; which
  set a word belongs to does not matter. ``variant="kl_sets"`` uses the mean probability of
  each target *set* instead of each word (the distribution over sets proposed in seed 001).
- **Signed** (Katô & Miyao, seed 001, Section 3.2 and Appendix K) for two target sets:
  :math:`\bar p(T_i)` is the mean of :math:`p(t)` over :math:`T_i`, and the score is
  :math:`(\bar p(T_2) - \bar p(T_1)) / (\bar p(T_1) + \bar p(T_2))`, in :math:`(-1, 1)`.
  It is **positive** when :math:`T_2` is closer to :math:`A_2` than :math:`T_1` is (the
  stereotypical direction when :math:`T_1 \leftrightarrow A_1` and
  :math:`T_2 \leftrightarrow A_2`), negative for the reverse, and ``0`` when both sets are
  equally associated. For two sets, ``kl_sets`` equals
  :math:`\tfrac{1-s}{2}\ln(1-s) + \tfrac{1+s}{2}\ln(1+s)` of the signed score :math:`s`.

Each of ``n_runs`` runs fits ``LogisticRegression(solver="liblinear", max_iter=10000,
random_state=seed)`` (sklearn defaults otherwise: L2 penalty, ``C=1``, intercept penalised
like a weight), with one seed per run drawn from ``random_state``. The seed also shuffles the
order of the training rows and, when ``holdout > 0``, picks the held-out attribute words.
The score is the mean of the per-run scores and ``std`` their sample standard deviation.

What varies between runs: **with** ``holdout=0`` (seed 001's setting) liblinear's primal
L2 logistic regression is a deterministic Newton method on a strictly convex problem, so the
shuffled row order and the seed change the fit only by floating-point rounding: runs agree to
about ``1e-15`` and ``std`` is about 0; averaging over 10 seeds, as the paper does, changes
nothing. With ``holdout > 0`` each run trains on a different stratified subset of the
attribute words and the runs genuinely differ.

Differences from WEFE's ``RNSB`` (wefe 1.0.1, read for comparison, no code shared):

- WEFE holds out 20 % of the attribute words by default (``holdout=True``); here the default is
  no hold-out (``holdout=0.0``), as in seed 001, and ``holdout`` is a fraction.
- WEFE refuses ``random_state`` with ``n_iterations > 1`` (every iteration would be the same);
  here each run gets its own seed drawn from ``random_state``, so runs are reproducible and
  (with a hold-out) different.
- WEFE's reported word distribution normalises the run-averaged probabilities, while its score
  averages per-run KL values; here ``probabilities`` holds run-averaged probabilities and the
  score is likewise the mean of per-run scores.
- WEFE silently returns NaN when too many words are missing and logs and skips a failing
  iteration; here bad input raises.

With ``holdout=0`` the KL score equals WEFE's ``holdout=False`` result on the same vectors to
about ``1e-6`` (checked in the tests). liblinear stops at its default ``tol=1e-4``, so the fitted
weights are within about ``1e-5`` (relative) of the exact optimum.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.special import rel_entr
from sklearn.linear_model import LogisticRegression

from nlpbias.core.checks import check_choice, check_fraction, check_int
from nlpbias.core.progress import progress as progress_bar
from nlpbias.core.repro import rng as _rng
from nlpbias.metrics.query import Query, as_query

__all__ = ["VARIANTS", "RNSBResult", "rnsb", "rnsb_kl", "rnsb_signed", "rnsb_table"]

RandomState = int | np.random.Generator | np.random.RandomState | None
Variant = Literal["signed", "kl", "kl_sets"]
VARIANTS: tuple[str, ...] = ("signed", "kl", "kl_sets")


@dataclass(frozen=True)
class RNSBResult:
    """Result of an RNSB computation.

    Attributes
    ----------
    variant : str
        ``"signed"``, ``"kl"`` or ``"kl_sets"``.
    score : float
        Mean of the per-run scores.
    std : float
        Sample standard deviation (``ddof=1``) of the per-run scores; ``0.0`` for one run.
    runs : pandas.DataFrame
        One row per run: ``run``, ``seed``, ``score``, ``accuracy`` (on the held-out attribute
        words when ``holdout > 0``, else on the training words), and for the signed variant
        ``p_t1`` / ``p_t2`` (mean :math:`P(A_2)` over each target set).
    probabilities : pandas.DataFrame
        One row per target word: ``target_set``, ``word``, ``p_a2`` (:math:`P(A_2)` averaged
        over runs) and ``p_a2_std`` (its sample std over runs).
    name : str
        Query name (set by :func:`rnsb`; empty for the array functions).
    words : dict[str, tuple[str, ...]]
        Words used per set after the OOV policy (set by :func:`rnsb`; empty otherwise).
    """

    variant: str
    score: float
    std: float
    runs: pd.DataFrame
    probabilities: pd.DataFrame
    name: str = ""
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_series(self) -> pd.Series:
        """``name``, ``variant``, ``score``, ``std`` and ``n_runs`` as a Series named ``"rnsb"``."""
        return pd.Series(
            {
                "name": self.name,
                "variant": self.variant,
                "score": self.score,
                "std": self.std,
                "n_runs": len(self.runs),
            },
            name="rnsb",
        )


# --------------------------------------------------------------------------- validation


def _matrix(x: object, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be a numeric array of word vectors; got {err}") from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (one row per word); got shape {arr.shape}; "
            "stack the word vectors with numpy.vstack"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; give at least one word vector")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has vectors of dimension 0; give non-empty vectors")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; drop or fix those vectors")
    return arr


def _same_dim(named: dict[str, np.ndarray]) -> int:
    dims = {name: arr.shape[1] for name, arr in named.items()}
    if len(set(dims.values())) > 1:
        shown = ", ".join(f"{n}={d}" for n, d in dims.items())
        raise ValueError(f"all vectors must have the same dimension; got {shown}")
    return next(iter(dims.values()))


def _labels(
    sizes: list[int], words: Sequence[Sequence[str]] | None, names: Sequence[str] | None
) -> tuple[list[str], list[str]]:
    """Per-row target-set names and word labels (``"T1[0]"`` etc. when no words are given)."""
    if names is None:
        names = [f"T{i + 1}" for i in range(len(sizes))]
    names = [str(n) for n in names]
    if len(names) != len(sizes):
        raise ValueError(f"target_names has {len(names)} names for {len(sizes)} target sets")
    if words is None:
        words = [[f"{n}[{j}]" for j in range(k)] for n, k in zip(names, sizes, strict=True)]
    if len(words) != len(sizes):
        raise ValueError(f"target_words has {len(words)} lists for {len(sizes)} target sets")
    set_col: list[str] = []
    word_col: list[str] = []
    for name, k, ws in zip(names, sizes, words, strict=True):
        if len(ws) != k:
            raise ValueError(
                f"target_words for {name!r} has {len(ws)} words but the set has {k} vectors"
            )
        set_col += [name] * k
        word_col += [str(w) for w in ws]
    return set_col, word_col


# --------------------------------------------------------------------------- core


def _split(n: int, holdout: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Shuffled train / held-out row indices of one attribute set."""
    order = rng.permutation(n)
    n_test = int(math.floor(holdout * n + 0.5))
    return order[n_test:], order[:n_test]


def _runs(
    targets: np.ndarray, A1: np.ndarray, A2: np.ndarray, n_runs: int, holdout: float, rs: object
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit ``n_runs`` classifiers; return seeds, accuracies and P(A2) (runs x target words)."""
    for name, arr in (("A1", A1), ("A2", A2)):
        n_test = int(math.floor(holdout * len(arr) + 0.5))
        if n_test >= len(arr):
            raise ValueError(
                f"holdout={holdout} leaves no training word in {name} ({len(arr)} words); "
                "use a smaller holdout or more attribute words"
            )
    if holdout > 0 and all(int(math.floor(holdout * len(a) + 0.5)) == 0 for a in (A1, A2)):
        raise ValueError(
            f"holdout={holdout} holds out no attribute word ({len(A1)} and {len(A2)} words); "
            "use a larger holdout or holdout=0"
        )
    X = np.vstack([A1, A2])
    y = np.concatenate([np.ones(len(A1)), -np.ones(len(A2))])
    idx1, idx2 = np.arange(len(A1)), len(A1) + np.arange(len(A2))
    seeds = _rng(rs).integers(0, 2**31 - 1, size=n_runs)
    probs = np.empty((n_runs, len(targets)))
    accuracy = np.empty(n_runs)
    for r, seed in enumerate(seeds):
        rng = np.random.default_rng(int(seed))
        tr1, te1 = _split(len(A1), holdout, rng)
        tr2, te2 = _split(len(A2), holdout, rng)
        train = rng.permutation(np.concatenate([idx1[tr1], idx2[tr2]]))
        test = np.concatenate([idx1[te1], idx2[te2]]) if holdout > 0 else train
        clf = LogisticRegression(solver="liblinear", max_iter=10000, random_state=int(seed))
        clf.fit(X[train], y[train])
        accuracy[r] = clf.score(X[test], y[test])
        col = int(np.flatnonzero(clf.classes_ == -1)[0])
        probs[r] = clf.predict_proba(targets)[:, col]
    return seeds, accuracy, probs


def _kl_uniform(p: np.ndarray, what: str) -> float:
    total = float(p.sum())
    if not total > 0:
        raise ValueError(
            f"every {what} has P(A2) = 0 (the classifier saturates), so the distribution is "
            "undefined; rescale or normalise the vectors"
        )
    q = p / total
    return max(float(rel_entr(q, np.full(len(q), 1.0 / len(q))).sum()), 0.0)


def _result(
    variant: str,
    scores: np.ndarray,
    seeds: np.ndarray,
    accuracy: np.ndarray,
    probs: np.ndarray,
    set_col: list[str],
    word_col: list[str],
    extra: dict[str, np.ndarray] | None = None,
) -> RNSBResult:
    n = len(scores)
    runs = pd.DataFrame(
        {"run": np.arange(n), "seed": seeds, "score": scores, "accuracy": accuracy} | (extra or {})
    )
    probabilities = pd.DataFrame(
        {
            "target_set": set_col,
            "word": word_col,
            "p_a2": probs.mean(axis=0),
            "p_a2_std": probs.std(axis=0, ddof=1) if n > 1 else np.zeros(probs.shape[1]),
        }
    )
    std = float(scores.std(ddof=1)) if n > 1 else 0.0
    return RNSBResult(variant, float(scores.mean()), std, runs, probabilities)


def rnsb_kl(
    targets: np.ndarray | Sequence[np.ndarray],
    A1: np.ndarray,
    A2: np.ndarray,
    *,
    n_runs: int,
    random_state: RandomState,
    holdout: float = 0.0,
    per_set: bool = False,
    target_words: Sequence[Sequence[str]] | None = None,
    target_names: Sequence[str] | None = None,
) -> RNSBResult:
    r"""Original RNSB: KL divergence of the normalised :math:`P(A_2)` from uniform.

    Parameters
    ----------
    targets : ndarray or sequence of ndarray
        One 2-D array (all target words, one row each) or a list of target sets, each a 2-D
        array or a single 1-D vector (one identity term, as in Sweeney & Najafian).
    A1, A2 : ndarray
        Attribute vectors (rows); ``A1`` is labelled ``+1``, ``A2`` (the "negative" set) ``-1``.
    n_runs : int
        Number of classifier fits; the score is the mean of the per-run KL values (the intrinsic
        chapter's ``rnsb_runs``).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Draws one seed per run (liblinear seed, training-row order, hold-out split).
    holdout : float, default 0.0
        Fraction of each attribute set held out from training per run (WEFE uses 0.2).
    per_set : bool, default False
        If True, the distribution is over target *sets* (mean probability per set; needs at
        least two sets) instead of over target words.
    target_words, target_names : optional
        Labels for the rows of ``probabilities`` (default ``T1``, ``T2``, … and ``T1[0]``, …).

    Returns
    -------
    RNSBResult
        ``variant`` ``"kl"`` (or ``"kl_sets"``); ``score >= 0``, at most :math:`\ln N`.

    Examples
    --------
    >>> import numpy as np
    >>> A1, A2 = np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])
    >>> same = rnsb_kl(np.array([[0.0, 1.0], [0.0, 2.0]]), A1, A2, n_runs=2, random_state=0)
    >>> round(same.score, 12)
    0.0
    >>> apart = rnsb_kl(np.array([[2.0, 0.0], [-2.0, 0.0]]), A1, A2, n_runs=2, random_state=0)
    >>> apart.score > 0.1
    True
    """
    if isinstance(targets, np.ndarray):
        sets = [_matrix(targets, "targets")]
    elif isinstance(targets, Sequence) and not isinstance(targets, str):
        if len(targets) == 0:
            raise ValueError("targets is empty; give at least two target word vectors")
        sets = [
            _matrix(np.atleast_2d(np.asarray(t, dtype=float)), f"targets[{i}]")
            for i, t in enumerate(targets)
        ]
    else:
        raise TypeError(
            f"targets must be a 2-D array or a list of arrays; got {type(targets).__name__}"
        )
    A1, A2 = _matrix(A1, "A1"), _matrix(A2, "A2")
    _same_dim({f"targets[{i}]": s for i, s in enumerate(sets)} | {"A1": A1, "A2": A2})
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    holdout = check_fraction(holdout, "holdout", allow_zero=True)
    sizes = [len(s) for s in sets]
    if per_set and len(sets) < 2:
        raise ValueError(f"per_set=True needs at least two target sets; got {len(sets)}")
    if sum(sizes) < 2:
        raise ValueError("the KL score needs at least two target words; got one")
    set_col, word_col = _labels(sizes, target_words, target_names)
    seeds, accuracy, probs = _runs(np.vstack(sets), A1, A2, n_runs, holdout, random_state)
    bounds = np.cumsum([0, *sizes])
    scores = np.empty(n_runs)
    for r, p in enumerate(probs):
        if per_set:
            means = np.array([p[a:b].mean() for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
            scores[r] = _kl_uniform(means, "target set")
        else:
            scores[r] = _kl_uniform(p, "target word")
    variant = "kl_sets" if per_set else "kl"
    return _result(variant, scores, seeds, accuracy, probs, set_col, word_col)


def rnsb_signed(
    T1: np.ndarray,
    T2: np.ndarray,
    A1: np.ndarray,
    A2: np.ndarray,
    *,
    n_runs: int,
    random_state: RandomState,
    holdout: float = 0.0,
    target_words: Sequence[Sequence[str]] | None = None,
    target_names: Sequence[str] | None = None,
) -> RNSBResult:
    r"""Signed two-set RNSB of seed 001.

    The score is :math:`(\bar p(T_2) - \bar p(T_1)) / (\bar p(T_1) + \bar p(T_2))` with
    :math:`\bar p(T_i)` the mean :math:`P(A_2)` over :math:`T_i`, averaged over runs.

    Parameters
    ----------
    T1, T2 : ndarray
        Target vectors (rows) of the two target sets.
    A1, A2 : ndarray
        Attribute vectors; the classifier gives :math:`P(A_2)` for every target word.
    n_runs : int
        Number of classifier fits; the score is the mean of the per-run scores (the intrinsic
        chapter's ``rnsb_runs``).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Draws one seed per run (liblinear seed, training-row order, hold-out split).
    holdout : float, default 0.0
        Fraction of each attribute set held out per run (seed 001 uses none).
    target_words, target_names : optional
        Labels for the rows of ``probabilities`` (default ``T1``/``T2`` and ``T1[0]``, …).

    Returns
    -------
    RNSBResult
        ``variant="signed"``; positive when :math:`T_2` leans to :math:`A_2` more than
        :math:`T_1` does; ``runs`` has ``p_t1`` and ``p_t2``.

    Examples
    --------
    >>> import numpy as np
    >>> A1, A2 = np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])
    >>> res = rnsb_signed(A1, A2, A1, A2, n_runs=3, random_state=0)
    >>> bool(res.score > 0), res.runs.shape[0]
    (True, 3)
    """
    T1, T2 = _matrix(T1, "T1"), _matrix(T2, "T2")
    A1, A2 = _matrix(A1, "A1"), _matrix(A2, "A2")
    _same_dim({"T1": T1, "T2": T2, "A1": A1, "A2": A2})
    n_runs = check_int(n_runs, "n_runs", minimum=1)
    holdout = check_fraction(holdout, "holdout", allow_zero=True)
    set_col, word_col = _labels([len(T1), len(T2)], target_words, target_names)
    seeds, accuracy, probs = _runs(np.vstack([T1, T2]), A1, A2, n_runs, holdout, random_state)
    p1, p2 = probs[:, : len(T1)].mean(axis=1), probs[:, len(T1) :].mean(axis=1)
    if np.any(p1 + p2 <= 0):
        raise ValueError(
            "P(A2) is 0 for every target word in some run (the classifier saturates), so the "
            "signed score is undefined; rescale or normalise the vectors"
        )
    scores = (p2 - p1) / (p1 + p2)
    extra = {"p_t1": p1, "p_t2": p2}
    return _result("signed", scores, seeds, accuracy, probs, set_col, word_col, extra)


# --------------------------------------------------------------------------- queries


def rnsb(
    query: Query,
    embedding: object,
    *,
    variant: Variant = "signed",
    n_runs: int,
    holdout: float = 0.0,
    oov: Literal["drop", "raise"] = "drop",
    max_missing: float,
    lowercase: bool = False,
    random_state: RandomState,
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
    >>> res = rnsb(q, emb, n_runs=2, max_missing=0.2, random_state=0)
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
    >>> rnsb_table([q], emb, progress=False, n_runs=2, max_missing=0.2, random_state=0)[
    ...     "score"
    ... ].gt(0).tolist()
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
