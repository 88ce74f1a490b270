"""Vocabulary, documents as word ids, and GloVe's co-occurrence matrix built per document.

- Vocabulary (:func:`build_vocabulary`): the words with at least ``min_count`` occurrences
  (optionally only the ``max_size`` most frequent), ordered by count (descending), ties by the
  word.
- Corpus (:func:`encode_corpus`): the documents as word ids. Out-of-vocabulary tokens are
  **removed before windowing**, so distances count in-vocabulary words only (as the reference
  ``cooccur.c`` does).
- Co-occurrence (:func:`cooccurrence`): symmetric, window 8, each pair of tokens ``d ≤ window``
  positions apart adds ``1/d`` to ``X[a, b]`` and to ``X[b, a]``. Windows never cross a document
  boundary, so ``X = Σ_k X^(k)`` holds exactly over the documents ``k``; :func:`document_rows`
  recomputes every document's contribution to chosen rows in one vectorised pass (what
  :mod:`nlpbias.studies.perturbation.influence` needs).
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from nlpbias.core.checks import check_choice, check_int
from nlpbias.core.progress import progress
from nlpbias.studies.perturbation import kernels

__all__ = [
    "Corpus",
    "Vocabulary",
    "build_vocabulary",
    "cooccurrence",
    "document_rows",
    "encode_corpus",
]

logger = logging.getLogger(__name__)

#: Tokens per chunk when the co-occurrence matrix is accumulated (bounds the memory used).
_CHUNK_TOKENS = 1_000_000


# --------------------------------------------------------------------------- vocabulary


@dataclass(frozen=True)
class Vocabulary:
    """Words and their corpus counts, most frequent first (see the module docstring).

    Examples
    --------
    >>> v = build_vocabulary([["a", "b", "a"], ["c", "a", "b"]], min_count=2, max_size=None)
    >>> v.words, v.counts.tolist(), v.ids(["b", "z", "a"]).tolist()
    (('a', 'b'), [3, 2], [1, -1, 0])
    """

    words: tuple[str, ...]
    counts: np.ndarray
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {w: i for i, w in enumerate(self.words)})

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def ids(self, tokens: Sequence[str]) -> np.ndarray:
        """Ids of ``tokens`` (int64), ``-1`` for a token not in the vocabulary."""
        get = self.index.get
        return np.fromiter((get(t, -1) for t in tokens), dtype=np.int64, count=len(tokens))


def _check_documents(documents: Iterable[Sequence[str]]) -> list[Sequence[str]]:
    docs = list(documents)
    for k, doc in enumerate(docs):
        if isinstance(doc, str) or not isinstance(doc, Sequence):
            raise TypeError(
                f"document {k} must be a list of tokens, got {type(doc).__name__}; "
                "tokenise it first, e.g. with nlpbias.core.text.tokenize"
            )
    return docs


def build_vocabulary(
    documents: Iterable[Sequence[str]], *, min_count: int, max_size: int | None
) -> Vocabulary:
    """Count the tokens of tokenised documents and keep the frequent ones.

    Parameters
    ----------
    documents : iterable of lists of str
        Tokenised documents.
    min_count : int
        Keep words occurring at least this often.
    max_size : int or None
        Keep at most this many words (the most frequent; None: all).

    Returns
    -------
    Vocabulary

    Raises
    ------
    ValueError
        No word reaches ``min_count``.

    Examples
    --------
    >>> build_vocabulary([["x", "y", "x"]], min_count=1, max_size=None).words
    ('x', 'y')
    """
    min_count = check_int(min_count, "min_count", minimum=1)
    if max_size is not None:
        max_size = check_int(max_size, "max_size", minimum=1)
    counts: Counter[str] = Counter()
    for doc in _check_documents(documents):
        counts.update(doc)
    kept = sorted(
        ((w, c) for w, c in counts.items() if c >= min_count), key=lambda t: (-t[1], t[0])
    )
    if max_size is not None:
        kept = kept[:max_size]
    if not kept:
        raise ValueError(
            f"no word occurs at least min_count={min_count} times in {sum(counts.values())} "
            "tokens; lower min_count or use a larger corpus"
        )
    return Vocabulary(tuple(w for w, _ in kept), np.array([c for _, c in kept], dtype=np.int64))


# --------------------------------------------------------------------------- corpus


@dataclass(frozen=True)
class Corpus:
    """Tokenised documents as word ids (OOV tokens removed), concatenated.

    Attributes
    ----------
    vocab : Vocabulary
    ids : numpy.ndarray of int32
        The in-vocabulary tokens of all documents, in order.
    offsets : numpy.ndarray of int64, shape (n_documents + 1,)
        Document ``k`` is ``ids[offsets[k]:offsets[k + 1]]``.
    """

    vocab: Vocabulary
    ids: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_tokens(self) -> int:
        """In-vocabulary tokens in all documents."""
        return int(self.offsets[-1])

    def document(self, k: int) -> np.ndarray:
        """Word ids of document ``k``."""
        return self.ids[self.offsets[k] : self.offsets[k + 1]]

    def lengths(self) -> np.ndarray:
        """In-vocabulary tokens per document."""
        return np.diff(self.offsets)

    def token_documents(self) -> np.ndarray:
        """The document of every token of ``ids`` (int64)."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.lengths())

    def subset(self, documents: Sequence[int] | np.ndarray) -> Corpus:
        """The corpus restricted to ``documents`` (indices, kept in the given order)."""
        docs = _doc_indices(documents, len(self))
        parts = [self.document(int(k)) for k in docs]
        offsets = np.zeros(len(docs) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(p) for p in parts])
        ids = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
        return Corpus(self.vocab, ids.astype(np.int32, copy=False), offsets)


def _doc_indices(documents: Sequence[int] | np.ndarray, n: int) -> np.ndarray:
    docs = np.asarray(documents, dtype=np.int64).reshape(-1)
    if docs.size and (docs.min() < 0 or docs.max() >= n):
        raise IndexError(f"document indices must lie in [0, {n}); got {docs.min()}..{docs.max()}")
    return docs


def encode_corpus(documents: Iterable[Sequence[str]], vocab: Vocabulary) -> Corpus:
    """Map tokenised documents to word ids, dropping out-of-vocabulary tokens.

    Examples
    --------
    >>> v = build_vocabulary([["a", "b", "a"]], min_count=2, max_size=None)
    >>> c = encode_corpus([["a", "b", "a"], ["b"]], v)
    >>> c.ids.tolist(), c.offsets.tolist()
    ([0, 0], [0, 2, 2])
    """
    parts = []
    for doc in _check_documents(documents):
        ids = vocab.ids(doc)
        parts.append(ids[ids >= 0].astype(np.int32))
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(p) for p in parts])
    ids = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    return Corpus(vocab, ids, offsets)


# --------------------------------------------------------------------------- co-occurrence


def cooccurrence(
    corpus: Corpus,
    *,
    window: int,
    documents: Sequence[int] | np.ndarray | None = None,
    engine: str = "auto",
    show_progress: bool = True,
) -> sp.csr_matrix:
    """The symmetric, distance-weighted co-occurrence matrix ``X`` (V × V, float64, CSR).

    Parameters
    ----------
    corpus : Corpus
    window : int
        Largest distance between two co-occurring tokens (the chapter's ``window``; Brunet et
        al. use 8).
    documents : sequence of int, optional
        Use only these documents (default all). ``X − cooccurrence(c, window=w, documents=S)``
        is the matrix of the corpus without ``S``.
    engine : {"auto", "numba", "numpy"}, default "auto"
        ``"numba"``: one compiled pass, row by row
        (:func:`nlpbias.studies.perturbation.kernels.cooccurrence_csr`); ``"numpy"``: sparse
        matrices of token pairs, summed chunk by chunk. Both sum integer multiples of
        ``1 / lcm(1, …, window)`` exactly, so they give the same bits: every entry is the
        correctly rounded ``Σ 1/d`` (see ``_pair_weights``). ``"auto"``: numba where it is
        installed.
    show_progress : bool, default True
        A progress bar over the chunks (numpy engine).

    Returns
    -------
    scipy.sparse.csr_matrix
        ``X[a, b] = Σ 1/d`` over token pairs ``(a, b)`` ``d ≤ window`` apart in one document,
        counted in both directions; duplicates summed, indices sorted.

    Examples
    --------
    >>> v = build_vocabulary([["a", "b", "c"]], min_count=1, max_size=None)
    >>> X = cooccurrence(encode_corpus([["a", "b", "c"]], v), window=2, show_progress=False)
    >>> X.toarray().tolist()
    [[0.0, 1.0, 0.5], [1.0, 0.0, 1.0], [0.5, 1.0, 0.0]]
    """
    window = check_int(window, "window", minimum=1)
    check_choice(engine, "engine", ("auto", "numba", "numpy"))
    if engine == "numba" and not kernels.AVAILABLE:
        raise ImportError("engine='numba' needs numba (pip install -r requirements.txt)")
    if documents is not None:
        corpus = corpus.subset(documents)
    V = len(corpus.vocab)
    doc_of = corpus.token_documents()
    weight, scale = _pair_weights(window, corpus.n_tokens)
    if engine != "numpy" and kernels.AVAILABLE:
        indptr, indices, data = kernels.cooccurrence_csr(corpus.ids, doc_of, V, weight)
        X = sp.csr_matrix((data, indices, indptr), shape=(V, V))
        X.has_sorted_indices = True
    else:
        X = _cooccurrence_numpy(corpus, doc_of, weight, show_progress)
    if scale != 1.0:
        X.data /= scale
    return X


def _pair_weights(window: int, n_tokens: int) -> tuple[np.ndarray, float]:
    """Weights ``w[d]`` of a pair ``d`` apart, and the scale that divides the sums.

    With ``L = lcm(1, …, window)``, ``w[d] = L / d`` are integers, so every sum of them is exact
    in float64 (while below 2**53) whatever the order of the terms, and ``sum / L`` is the
    correctly rounded ``Σ 1/d``: both engines give the same bits. Where the sums could exceed
    2**53 (windows above about 20 on large corpora), ``w[d] = 1/d`` and the scale is 1 (the
    sums then depend on the order of the terms in their last bits).
    """
    lcm = math.lcm(*range(1, window + 1))
    d = np.arange(1, window + 1, dtype=np.float64)
    # each token adds at most 2 * Σ_d L/d < 2 * L * (1 + ln window) to the sums of its row
    if 2 * lcm * (1 + math.log(window)) * max(n_tokens, 1) < 2.0**53:
        return np.r_[0.0, lcm / d], float(lcm)
    return np.r_[0.0, 1.0 / d], 1.0


def _cooccurrence_numpy(
    corpus: Corpus, doc_of: np.ndarray, weight: np.ndarray, show_progress: bool
) -> sp.csr_matrix:
    """The co-occurrence sums by sparse matrices of token pairs, chunk by chunk (numpy engine)."""
    V = len(corpus.vocab)
    X = sp.csr_matrix((V, V), dtype=np.float64)
    # chunk boundaries at document boundaries, about _CHUNK_TOKENS tokens each
    cuts = np.searchsorted(corpus.offsets, np.arange(0, corpus.n_tokens, _CHUNK_TOKENS))
    bounds = np.unique(np.r_[corpus.offsets[np.clip(cuts, 0, len(corpus))], corpus.n_tokens])
    chunks = list(zip(bounds[:-1], bounds[1:], strict=True))
    for lo, hi in progress(chunks, enabled=show_progress, desc="co-occurrence", unit="chunk"):
        ids, doc = corpus.ids[lo:hi].astype(np.int64), doc_of[lo:hi]
        rows, cols, vals = [], [], []
        for d in range(1, weight.size):
            same = doc[:-d] == doc[d:]
            a, b = ids[:-d][same], ids[d:][same]
            w = np.full(a.size, weight[d])
            rows += [a, b]
            cols += [b, a]
            vals += [w, w]
        if rows:
            part = sp.coo_matrix(
                (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(V, V)
            ).tocsr()
            X = X + part
    X.sum_duplicates()
    X.sort_indices()
    return X


def document_rows(
    corpus: Corpus,
    rows: Sequence[int] | np.ndarray,
    *,
    window: int,
    groups: Sequence[int] | np.ndarray | None = None,
) -> sp.csr_matrix:
    """Each document's contribution ``X^(k)`` to some rows of the co-occurrence matrix.

    Parameters
    ----------
    corpus : Corpus
    rows : sequence of int
        Word ids ``i`` whose rows are wanted (e.g. the WEAT words), ``R`` of them.
    window : int
        As in :func:`cooccurrence`.
    groups : sequence of int, optional
        A group per document (``-1``: leave the document out); contributions of the documents
        of one group are summed. Default: every document its own group.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n_groups * R, V)
        Row ``g * R + r`` is group ``g``'s contribution to ``X[rows[r], :]``.
        Summed over the groups it equals ``X[rows, :]`` of :func:`cooccurrence`.

    Examples
    --------
    >>> v = build_vocabulary([["a", "b"]], min_count=1, max_size=None)
    >>> c = encode_corpus([["a", "b"], ["a", "a"]], v)
    >>> document_rows(c, [0], window=1).toarray().tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    window = check_int(window, "window", minimum=1)
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    V = len(corpus.vocab)
    if rows.size and (rows.min() < 0 or rows.max() >= V):
        raise IndexError(f"rows must be word ids in [0, {V}), got {rows.min()}..{rows.max()}")
    if len(np.unique(rows)) != rows.size:
        raise ValueError("rows must not repeat a word id; pass each word once")
    R = rows.size
    slot = np.full(V, -1, dtype=np.int64)
    slot[rows] = np.arange(R)
    if groups is None:
        group_of_doc = np.arange(len(corpus), dtype=np.int64)
    else:
        group_of_doc = np.asarray(groups, dtype=np.int64).reshape(-1)
        if group_of_doc.size != len(corpus):
            raise ValueError(
                f"groups has {group_of_doc.size} entries for {len(corpus)} documents; "
                "give one group per document"
            )
    n_groups = int(group_of_doc.max()) + 1 if group_of_doc.size else 0
    doc_of = corpus.token_documents()
    ids = corpus.ids.astype(np.int64)
    centre = np.flatnonzero(slot[ids] >= 0)  # positions of the wanted words
    out_r, out_c, out_v = [], [], []
    for d in range(1, window + 1):
        for step in (d, -d):
            nb = centre + step
            ok = (nb >= 0) & (nb < ids.size)
            p, q = centre[ok], nb[ok]
            same = doc_of[p] == doc_of[q]
            p, q = p[same], q[same]
            g = group_of_doc[doc_of[p]]
            keep = g >= 0
            p, q, g = p[keep], q[keep], g[keep]
            out_r.append(g * R + slot[ids[p]])
            out_c.append(ids[q])
            out_v.append(np.full(p.size, 1.0 / d))
    out = sp.coo_matrix(
        (np.concatenate(out_v), (np.concatenate(out_r), np.concatenate(out_c))),
        shape=(n_groups * R, V),
    ).tocsr()
    out.sum_duplicates()
    out.sort_indices()
    return out
