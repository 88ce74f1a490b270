"""Which documents make an embedding biased: Brunet et al.'s (2019) differential bias.

For a GloVe model fitted to a co-occurrence matrix ``X``
(:mod:`nlpbias.studies.perturbation.glove`) and a WEAT query with targets ``S, T`` and attributes
``A, B``:

1. Document ``k`` contributes ``X^(k)`` (windows never cross documents, so ``X = Σ_k X^(k)``).
   Removing it leaves ``X̃ = X − X^(k)``.
2. With the context vectors ``U`` and the biases fixed, only the WEAT words ``i`` that occur in
   ``k`` change, by one Newton step on the perturbed loss with the unperturbed Hessian:
   ``w̃_i = w_i − H_i⁻¹ (∇_{w_i} L(X̃) − ∇_{w_i} L(X))``, ``H_i = 2 Σ_j f(X_ij) u_j u_jᵀ``.
   ``H_i`` is computed and Cholesky-factorised once per word; the gradient difference involves
   only the entries ``j`` of row ``i`` that ``k`` touches (an entry that drops to zero leaves
   the loss). Seed 004's Algorithm 1 prints an extra factor ``1/V`` in front of ``H⁻¹``; it
   rescales every prediction by the same constant (so rankings and correlations do not depend
   on it) and is left out here, because without it the step is exact for a quadratic row loss
   — the retraining validation (:func:`retrain_removals`) checks the scale.
3. The differential bias of ``k`` is ``ΔB_k = B(w) − B(w̃)`` with ``B`` the WEAT effect size on
   normalised vectors with the sample standard deviation (as Brunet et al.'s code). ``ΔB_k > 0``:
   removing ``k`` lowers the bias, i.e. ``k`` is *bias-increasing*.

Everything is vectorised over documents: one sparse pass collects every document's
contribution to the WEAT rows (:func:`nlpbias.studies.perturbation.glove.document_rows`), one
sparse product gives all gradient differences, one triangular solve per word all updates, and the
effect sizes of thousands of perturbed embeddings are computed as one batched tensor expression.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse as sp

from nlpbias.core.progress import progress
from nlpbias.studies.perturbation.cooccurrence import _doc_of_token
from nlpbias.studies.perturbation.glove import (
    Corpus,
    GloVe,
    cooccurrence,
    document_rows,
    glove_weight,
)

__all__ = [
    "WeatIndex",
    "concentration",
    "cumulative_share",
    "differential_bias",
    "effect_sizes",
    "predict_removals",
    "retrain_removals",
    "weat_index",
]

logger = logging.getLogger(__name__)

#: An entry of ``X̃`` at or below this is treated as removed (contributions are multiples of 1/8
#: and larger, so only round-off lies below it).
_ZERO = 1e-9


@dataclass(frozen=True)
class WeatIndex:
    """A WEAT query resolved to word ids of one vocabulary.

    Attributes
    ----------
    name : str
    rows : numpy.ndarray of int64
        The distinct word ids of all four sets (the rows of ``X`` that matter).
    sets : tuple of 4 numpy.ndarray
        For ``S, T, A, B``: positions into ``rows``.
    words : dict[str, tuple[str, ...]]
        The words used per set (set names from the query).
    dropped : dict[str, tuple[str, ...]]
        Words dropped per set (not in the vocabulary, or dropped to balance the targets).
    """

    name: str
    rows: np.ndarray
    sets: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    words: dict[str, tuple[str, ...]]
    dropped: dict[str, tuple[str, ...]]


def weat_index(
    wordset: Any,
    vocab: Any,
    *,
    lowercase: bool = True,
    max_missing: float = 0.2,
    random_state: int = 0,
) -> WeatIndex:
    """Resolve a word set (name, ``WordSet`` or ``Query``) to the ids of a GloVe vocabulary.

    Out-of-vocabulary words are dropped under the rules of
    :meth:`nlpbias.metrics.query.Query.vectors` (at most ``max_missing`` of a set; targets
    balanced by dropping words at random with ``random_state``).

    Raises
    ------
    nlpbias.metrics.query.OutOfVocabularyError
        Too many words of a set are missing (the message lists them).

    Examples
    --------
    >>> from nlpbias.studies.perturbation.glove import build_vocabulary
    >>> v = build_vocabulary([["he", "she", "art", "math"]], min_count=1)
    >>> q = {"targets": {"m": ["math"], "a": ["art"]}, "attributes": {"x": ["he"], "y": ["she"]}}
    >>> from nlpbias.metrics.query import Query
    >>> weat_index(Query(**q), v).rows.tolist()
    [2, 0, 1, 3]
    """
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import as_query

    ws = load_wordset(wordset) if isinstance(wordset, str) else wordset
    query = as_query(ws)
    lookup = {w: np.zeros(1) + 1.0 for w in vocab.words}  # presence only
    qv = query.vectors(
        lookup, lowercase=lowercase, max_missing=max_missing, random_state=random_state
    )
    ids = [
        [vocab.index[w.lower() if lowercase else w] for w in qv.words[name]] for name in qv.names
    ]
    rows = np.array(list(dict.fromkeys(i for s in ids for i in s)), dtype=np.int64)
    pos = {int(r): n for n, r in enumerate(rows)}
    sets = tuple(np.array([pos[i] for i in s], dtype=np.int64) for s in ids)
    return WeatIndex(query.name, rows, sets, dict(qv.words), dict(qv.dropped))  # type: ignore[arg-type]


def effect_sizes(E: np.ndarray, index: WeatIndex) -> np.ndarray:
    """WEAT effect size of one or many embeddings of the WEAT words (normalised, ddof 1).

    Parameters
    ----------
    E : numpy.ndarray, shape (R, d) or (G, R, d)
        Vectors of ``index.rows`` (in that order), for one embedding or ``G`` of them.
    index : WeatIndex

    Returns
    -------
    float or numpy.ndarray of shape (G,)

    Examples
    --------
    >>> idx = WeatIndex("t", np.arange(4), tuple(np.array([i]) for i in range(4)), {}, {})
    >>> E = np.array([[1, 0.1], [0.1, 1], [1, 0], [0, 1]])
    >>> round(float(effect_sizes(E, idx)), 3)  # the largest possible for one word per set
    1.414
    """
    E = np.asarray(E, dtype=np.float64)
    single = E.ndim == 2
    if single:
        E = E[None]
    norms = np.linalg.norm(E, axis=2, keepdims=True)
    if (norms == 0).any():
        raise ValueError("a WEAT word has a zero vector; its cosine is undefined")
    E = E / norms
    S, T, A, B = index.sets
    targets = np.concatenate([S, T])
    cos_a = np.einsum("gtd,gad->gta", E[:, targets], E[:, A]).mean(axis=2)
    cos_b = np.einsum("gtd,gad->gta", E[:, targets], E[:, B]).mean(axis=2)
    s = cos_a - cos_b  # (G, |S| + |T|)
    sd = s.std(axis=1, ddof=1)
    if (sd == 0).any():
        raise ValueError(
            "the target words' associations have zero spread; the effect size is undefined"
        )
    out = (s[:, : S.size].mean(axis=1) - s[:, S.size :].mean(axis=1)) / sd
    return float(out[0]) if single else out


def _check_model(model: GloVe, X: Any, corpus: Corpus) -> sp.csr_matrix:
    if not isinstance(model, GloVe) or not hasattr(model, "W_"):
        raise TypeError(
            "model must be a fitted nlpbias.studies.perturbation.glove.GloVe; call fit(X) first"
        )
    X = model._check_fitted(X)
    if len(corpus.vocab) != X.shape[0]:
        raise ValueError(
            f"corpus has {len(corpus.vocab)} words but X {X.shape[0]}; "
            "pass the corpus X was built from"
        )
    return X


def _factorise(model: GloVe, X: sp.csr_matrix, index: WeatIndex, damping: float) -> list:
    H = model.row_hessian(X, index.rows)
    out = []
    for n, i in enumerate(index.rows):
        Hi = H[n] + damping * np.eye(H.shape[1])
        try:
            out.append(scipy.linalg.cho_factor(Hi, lower=True))
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the Hessian of word id {int(i)} is singular (it co-occurs with "
                f"{X[int(i)].nnz} words for {H.shape[1]} dimensions); pass damping > 0, "
                "lower vector_size or raise min_count"
            ) from None
    return out


def _weight(model: GloVe, x: np.ndarray) -> np.ndarray:
    return glove_weight(x, x_max=model.x_max, alpha=model.alpha)


def _deltas(
    model: GloVe,
    X: sp.csr_matrix,
    contrib: sp.csr_matrix,
    index: WeatIndex,
    chol: list,
) -> tuple[np.ndarray, np.ndarray]:
    """Changes of the WEAT vectors: (non-empty rows of ``contrib``, their Δw)."""
    R, V = index.rows.size, X.shape[0]
    coo = contrib.tocoo()
    slot = coo.row % R
    i = index.rows[slot]
    j = coo.col.astype(np.int64)
    Xr = X[index.rows].tocoo()  # row-major, so its keys are sorted
    keys = Xr.row.astype(np.int64) * V + Xr.col
    at = np.searchsorted(keys, slot * V + j)
    x = Xr.data[at]
    x_new = x - coo.data
    x_new[x_new <= _ZERO] = 0.0
    W, U = model.W_.astype(np.float64), model.U_.astype(np.float64)
    score = np.einsum("nd,nd->n", W[i], U[j]) + model.b_[i] + model.c_[j]
    with np.errstate(divide="ignore"):
        e_new = np.where(x_new > 0, score - np.log(np.where(x_new > 0, x_new, 1.0)), 0.0)
    coef = 2.0 * (_weight(model, x_new) * e_new - _weight(model, x) * (score - np.log(x)))
    grad = sp.csr_matrix((coef, (coo.row, j)), shape=contrib.shape)
    nz = np.flatnonzero(np.diff(contrib.indptr))
    dgrad = np.asarray(grad[nz] @ U)
    delta = np.empty_like(dgrad)
    slots = nz % R
    for r in np.unique(slots):
        sel = slots == r
        delta[sel] = -scipy.linalg.cho_solve(chol[r], dgrad[sel].T).T
    return nz, delta


def _bias_changes(
    model: GloVe,
    index: WeatIndex,
    nz: np.ndarray,
    delta: np.ndarray,
    n_groups: int,
    *,
    batch_size: int,
    show_progress: bool,
) -> tuple[float, np.ndarray]:
    R = index.rows.size
    E0 = model.W_.astype(np.float64)[index.rows]
    B0 = effect_sizes(E0, index)
    out = np.zeros(n_groups)
    groups = nz // R
    touched = np.unique(groups)
    chunks = [touched[s : s + batch_size] for s in range(0, touched.size, batch_size)]
    for chunk in progress(chunks, enabled=show_progress, desc="ΔB", unit="batch"):
        E = np.broadcast_to(E0, (chunk.size, *E0.shape)).copy()
        sel = np.isin(groups, chunk)
        E[np.searchsorted(chunk, groups[sel]), nz[sel] % R] += delta[sel]
        out[chunk] = B0 - effect_sizes(E, index)
    return B0, out


def differential_bias(
    model: GloVe,
    X: Any,
    corpus: Corpus,
    wordset: Any,
    *,
    window: int = 8,
    groups: Sequence[int] | np.ndarray | None = None,
    damping: float = 0.0,
    lowercase: bool = True,
    max_missing: float = 0.2,
    batch_size: int = 2048,
    show_progress: bool = True,
) -> pd.DataFrame:
    """Predicted change of the WEAT effect size when each document is removed.

    Parameters
    ----------
    model : GloVe
        Fitted to ``X``.
    X : scipy.sparse matrix
        The co-occurrence matrix of ``corpus`` (same ``window``).
    corpus : Corpus
        The documents ``X`` was built from.
    wordset : str, WordSet or Query
        The WEAT test (resolved with :func:`weat_index`).
    window : int, default 8
    groups : sequence of int, optional
        Score groups of documents removed together (one group id per document, ``-1`` to
        leave a document out); default: each document alone.
    damping : float, default 0
        Added to the diagonal of every ``H_i`` (only needed for words with fewer
        co-occurring words than dimensions).
    lowercase : bool, default True
        Lowercase the word set (for a lowercased corpus).
    max_missing : float, default 0.2
        Largest fraction of a word set that may be out of the vocabulary (see
        :func:`weat_index`).
    batch_size : int, default 2048
        Perturbed embeddings per batched effect-size computation.
    show_progress : bool, default True

    Returns
    -------
    pandas.DataFrame
        One row per document (or group), index ``document`` (``group``): ``delta_b``
        (``B − B̃``), ``delta_b_pct`` (``100 ΔB / B``), ``weat_tokens`` (occurrences of WEAT
        words), ``n_words`` (distinct WEAT words changed). ``attrs`` hold ``B`` (the baseline
        effect size), ``wordset``, ``words``, ``dropped`` and ``seconds``.

    Examples
    --------
    >>> table = differential_bias(model, X, corpus, "science_arts")  # doctest: +SKIP
    >>> table.nlargest(10, "delta_b")  # the most bias-increasing documents  # doctest: +SKIP
    """
    start = time.perf_counter()
    X = _check_model(model, X, corpus)
    if isinstance(damping, bool) or not isinstance(damping, int | float) or damping < 0:
        raise ValueError(f"damping must be a number >= 0, got {damping!r}")
    index = weat_index(wordset, corpus.vocab, lowercase=lowercase, max_missing=max_missing)
    chol = _factorise(model, X, index, float(damping))
    contrib = document_rows(corpus, index.rows, window=window, groups=groups)
    R = index.rows.size
    n_groups = contrib.shape[0] // R
    nz, delta = _deltas(model, X, contrib, index, chol)
    B0, dB = _bias_changes(
        model, index, nz, delta, n_groups, batch_size=batch_size, show_progress=show_progress
    )
    counts = np.bincount(nz // R, minlength=n_groups)
    label = "document" if groups is None else "group"
    occ = _weat_tokens(corpus, index, groups)
    out = pd.DataFrame(
        {"delta_b": dB, "delta_b_pct": 100.0 * dB / B0, "weat_tokens": occ, "n_words": counts},
        index=pd.RangeIndex(n_groups, name=label),
    )
    out.attrs.update(
        B=B0,
        wordset=index.name,
        words=index.words,
        dropped=index.dropped,
        seconds=time.perf_counter() - start,
    )
    logger.info(
        "differential bias of %d %ss for %s in %.1f s (B = %.3f)",
        n_groups, label, index.name, out.attrs["seconds"], B0,
    )  # fmt: skip
    return out


def _weat_tokens(corpus: Corpus, index: WeatIndex, groups: Any) -> np.ndarray:
    is_weat = np.zeros(len(corpus.vocab), dtype=bool)
    is_weat[index.rows] = True
    doc_of = _doc_of_token(corpus)
    per_doc = np.bincount(doc_of[is_weat[corpus.ids]], minlength=len(corpus))
    if groups is None:
        return per_doc
    g = np.asarray(groups, dtype=np.int64)
    keep = g >= 0
    return np.bincount(g[keep], weights=per_doc[keep], minlength=int(g.max()) + 1).astype(int)


def predict_removals(
    model: GloVe,
    X: Any,
    corpus: Corpus,
    wordset: Any,
    sets: Mapping[str, Sequence[int]],
    *,
    window: int = 8,
    damping: float = 0.0,
    lowercase: bool = True,
    max_missing: float = 0.2,
) -> pd.Series:
    """Predicted ``ΔB`` for removing each named set of documents at once.

    Examples
    --------
    >>> predict_removals(model, X, corpus, "science_arts", {"top 10": top10})  # doctest: +SKIP
    """
    out = {}
    for name, docs in sets.items():
        g = np.full(len(corpus), -1, dtype=np.int64)
        g[np.asarray(docs, dtype=np.int64)] = 0
        table = differential_bias(
            model, X, corpus, wordset, window=window, groups=g, damping=damping,
            lowercase=lowercase, max_missing=max_missing, show_progress=False,
        )  # fmt: skip
        out[name] = float(table["delta_b"].iloc[0])
    return pd.Series(out, name="predicted", dtype=float).rename_axis("removed")


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
    keep = np.arange(len(corpus))
    if removed is not None:
        keep = np.setdiff1d(keep, np.asarray(removed, dtype=np.int64))
    X = cooccurrence(corpus, window=window, documents=keep, show_progress=False)
    model = GloVe(random_state=int(random_state), **params).fit(X)
    index = WeatIndex("", rows, sets, {}, {})
    return effect_sizes(model.W_[rows], index), model.fit_time_


def retrain_removals(
    corpus: Corpus,
    wordset: Any,
    sets: Mapping[str, Sequence[int]],
    *,
    glove: Mapping[str, Any] | None = None,
    seeds: Sequence[int] = (0,),
    window: int = 8,
    lowercase: bool = True,
    max_missing: float = 0.2,
    executor: str | Any = "serial",
    n_jobs: int | None = None,
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
    glove : mapping, optional
        Keyword arguments of :class:`GloVe` (``random_state`` comes from ``seeds``).
    seeds : sequence of int, default (0,)
    window : int, default 8
    lowercase : bool, default True
    max_missing : float, default 0.2
    executor : {"serial", "process", "dask"} or executor object, default "serial"
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
    >>> retrain_removals(corpus, "science_arts", {"top 10": top10}, seeds=[0, 1])  # doctest: +SKIP
    """
    from nlpbias.core.sweep import run_sweep

    params = dict(glove or {})
    params.pop("random_state", None)
    params["show_progress"] = False
    index = weat_index(wordset, corpus.vocab, lowercase=lowercase, max_missing=max_missing)
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


def cumulative_share(delta_b: Any) -> pd.DataFrame:
    """Cumulative share of the total ``|ΔB|`` held by the top documents.

    Documents are sorted by ``|ΔB|`` (largest first); row ``n`` gives the share of
    ``Σ|ΔB|`` held by the top ``n + 1`` documents and their percentile rank.

    Returns
    -------
    pandas.DataFrame
        Columns ``top_fraction`` (documents in the top, as a fraction of all), ``share``.

    Raises
    ------
    ValueError
        Empty input, a non-finite value, or ``ΔB = 0`` everywhere (no WEAT word occurs).

    Examples
    --------
    >>> cumulative_share([4.0, -3.0, 1.0, 0.0])["share"].tolist()
    [0.5, 0.875, 1.0, 1.0]
    """
    d = np.abs(np.asarray(delta_b, dtype=np.float64).reshape(-1))
    if d.size == 0 or not np.isfinite(d).all():
        raise ValueError("delta_b must be a non-empty array of finite values")
    total = d.sum()
    if total == 0:
        raise ValueError("every ΔB is zero: no document contains a WEAT word; check the word set")
    d = np.sort(d)[::-1]
    n = np.arange(1, d.size + 1)
    return pd.DataFrame({"top_fraction": n / d.size, "share": np.cumsum(d) / total})


def concentration(delta_b: Any, *, tops: Sequence[float] = (0.01, 0.1)) -> pd.Series:
    """Share of the total ``|ΔB|`` held by the top ``tops`` fractions of documents.

    Seed 004 reports 48.8 % for the top 1 % and 92.2 % for the top 10 %.

    Examples
    --------
    >>> concentration(np.r_[10.0, np.ones(99)], tops=[0.01]).round(3).tolist()
    [0.092]
    """
    cum = cumulative_share(delta_b)
    n = len(cum)
    out = {}
    for t in tops:
        if not 0 < t <= 1:
            raise ValueError(f"each of tops must lie in (0, 1], got {t}")
        k = max(1, int(np.floor(t * n)))
        out[f"top {100 * t:g}%"] = float(cum["share"].iloc[k - 1])
    return pd.Series(out, name="share")
