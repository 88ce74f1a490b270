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
   — the retraining validation
   (:func:`nlpbias.studies.perturbation.retraining.retrain_removals`) checks the scale.
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
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse as sp

from nlpbias.core.checks import check_number
from nlpbias.core.progress import progress
from nlpbias.studies.perturbation.glove import (
    Corpus,
    GloVe,
    document_rows,
    glove_weight,
)

__all__ = [
    "WeatIndex",
    "differential_bias",
    "effect_sizes",
    "predict_removals",
    "weat_index",
]

logger = logging.getLogger(__name__)

#: The effect size's std is the sample one over T1 ∪ T2 (ddof 1), as in Brunet et al.'s code:
#: part of the method (the influence function differentiates this formula), not a parameter.
DDOF = 1

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
    max_missing: float,
    random_state: int,
) -> WeatIndex:
    """Resolve a word set (name, ``WordSet`` or ``Query``) to the ids of a GloVe vocabulary.

    Out-of-vocabulary words are dropped under the rules of
    :meth:`nlpbias.metrics.query.Query.vectors` (at most ``max_missing`` of a set; targets
    balanced by dropping words at random with ``random_state``). Every view of a word set (the
    baseline table, the influence scores, the retraining) passes the chapter's ``random_state``,
    so they all drop the same words.

    Raises
    ------
    nlpbias.metrics.query.OutOfVocabularyError
        Too many words of a set are missing (the message lists them).

    Examples
    --------
    >>> from nlpbias.studies.perturbation.glove import build_vocabulary
    >>> v = build_vocabulary([["he", "she", "art", "math"]], min_count=1, max_size=None)
    >>> q = {"targets": {"m": ["math"], "a": ["art"]}, "attributes": {"x": ["he"], "y": ["she"]}}
    >>> from nlpbias.metrics.query import Query
    >>> weat_index(Query(**q), v, max_missing=0.2, random_state=0).rows.tolist()
    [2, 0, 1, 3]
    """
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import as_query

    ws = load_wordset(wordset) if isinstance(wordset, str) else wordset
    query = as_query(ws)
    multi = {
        name: tuple(w for w in words if len(re.split(r"[\s_]+", w.strip())) > 1)
        for name, words in zip(
            (*query.target_names, *query.attribute_names),
            (*query.targets, *query.attributes),
            strict=True,
        )
    }
    if any(multi.values()):
        from nlpbias.metrics.query import OutOfVocabularyError

        raise OutOfVocabularyError(
            f"word set {query.name!r} has multi-word entries "
            f"({'; '.join(f'{k}: {chr(44).join(v)}' for k, v in multi.items() if v)}): the "
            "influence approximation moves the vectors of single words, so this test cannot be "
            "scored by document; use a test of single words",
            missing={k: v for k, v in multi.items() if v},
        )
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
    sd = s.std(axis=1, ddof=DDOF)
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
    X = model.check_matrix(X)
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
    window: int,
    groups: Sequence[int] | np.ndarray | None = None,
    damping: float = 0.0,
    lowercase: bool = True,
    max_missing: float,
    random_state: int,
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
    window : int
        Co-occurrence window of ``X`` (the chapter's ``window``).
    groups : sequence of int, optional
        Score groups of documents removed together (one group id per document, ``-1`` to
        leave a document out); default: each document alone.
    damping : float, default 0
        Added to the diagonal of every ``H_i`` (only needed for words with fewer
        co-occurring words than dimensions).
    lowercase : bool, default True
        Lowercase the word set (for a lowercased corpus).
    max_missing : float
        Largest fraction of a word set that may be out of the vocabulary (see
        :func:`weat_index`).
    random_state : int
        Seed that drops words to balance the word set's targets (see :func:`weat_index`).
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
    >>> table = differential_bias(
    ...     model, X, corpus, "science_arts", window=8, max_missing=0.2, random_state=0
    ... )  # doctest: +SKIP
    >>> table.nlargest(10, "delta_b")  # the most bias-increasing documents  # doctest: +SKIP
    """
    start = time.perf_counter()
    X = _check_model(model, X, corpus)
    check_number(damping, "damping", low=0.0)
    index = weat_index(
        wordset, corpus.vocab, lowercase=lowercase, max_missing=max_missing,
        random_state=random_state,
    )  # fmt: skip
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
    doc_of = corpus.token_documents()
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
    window: int,
    damping: float = 0.0,
    lowercase: bool = True,
    max_missing: float,
    random_state: int,
) -> pd.Series:
    """Predicted ``ΔB`` for removing each named set of documents at once (keywords as in
    :func:`differential_bias`).

    Examples
    --------
    >>> predict_removals(
    ...     model, X, corpus, "science_arts", {"top 10": top10}, window=8, max_missing=0.2,
    ...     random_state=0,
    ... )  # doctest: +SKIP
    """
    out = {}
    for name, docs in sets.items():
        g = np.full(len(corpus), -1, dtype=np.int64)
        g[np.asarray(docs, dtype=np.int64)] = 0
        table = differential_bias(
            model, X, corpus, wordset, window=window, groups=g, damping=damping,
            lowercase=lowercase, max_missing=max_missing, random_state=random_state,
            show_progress=False,
        )  # fmt: skip
        out[name] = float(table["delta_b"].iloc[0])
    return pd.Series(out, name="predicted", dtype=float).rename_axis("removed")
