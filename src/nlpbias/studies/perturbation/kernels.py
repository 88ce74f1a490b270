"""Compiled inner loops of the perturbation study (numba): the reference's arithmetic.

GloVe. :class:`~nlpbias.studies.perturbation.glove.GloVe` has two engines. ``"numpy"`` is the
reference: each mini-batch is a handful of vectorised numpy expressions and sparse products
(``GloVe._step``). ``"numba"`` runs the same mini-batch AdaGrad with the loops below, and
produces **bit-identical** parameters and losses (a test checks it), because

- the entries' dot products ``w_iᵀu_j``, the only sums whose rounding depends on how they are
  vectorised, are still computed by ``numpy.einsum`` on the gathered rows, and the batch's loss
  by ``numpy.dot``, exactly as in the reference;
- everything else is elementwise float32 arithmetic in the same order (residual, clip, scale by
  the learning rate, ``θ −= Σg / √G``, ``G += Σg²``), and the per-row sums ``Σg`` and ``Σg²``
  add a row's entries one after the other in the order of the batch, as the reference's sparse
  product does (compiled with ``error_model="numpy"`` and without ``fastmath``: no
  reassociation, no fused multiply-add);
- the batches are the same: every entry has a distinct 64-bit sort key (a bijective hash of its
  distinct identity), so the rank of each key, hence its batch, is unique, and within a batch
  the entries are in ascending order as the reference sorts them (:func:`epoch_records`).

What makes it faster (4.7x per epoch on the ``paper`` matrix, ``benchmarks/glove_engines.py``):
one pass over each side of a batch, each row's sums kept in a small buffer and applied once,
instead of a dozen batch-sized temporaries, two sparse matrices built per batch and fancy-index
writes; the entries stored as 16-byte records written into batch order once per epoch (three
streaming passes over the records instead of an ``argsort`` of 17.9M keys and one scattered read
per entry and array in every batch).

Co-occurrences. :func:`cooccurrence_csr` builds the matrix row by row with a dense scratch row
(3.8x faster than the sparse-matrix sums of the numpy engine); both engines add integer
multiples of ``1 / lcm(1, …, window)``, exactly, so they give the same bits.

numba is a pinned dependency; without it :data:`AVAILABLE` is false and ``GloVe`` falls back to
the numpy engine (same numbers, slower).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - numba is pinned in requirements.txt
    numba = None

__all__ = [
    "AVAILABLE",
    "adagrad_batch",
    "cooccurrence_csr",
    "epoch_records",
    "gather_rows",
    "pack_entries",
]

#: Whether the compiled loops can run (numba importable).
AVAILABLE = numba is not None


def _jit(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Compile with numba (cached on disk, IEEE division semantics) when it is installed."""
    if numba is None:  # pragma: no cover
        return fn
    return numba.njit(cache=True, error_model="numpy")(fn)


@_jit
def _splitmix64(x: Any) -> Any:
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@_jit
def _entry_key(records: np.ndarray, t: int, V: int, salt: Any) -> Any:
    """The sort key of entry ``t``: ``splitmix64((i * V + j) ^ salt)``."""
    entry = np.int64(records[t, 0]) * V + np.int64(records[t, 1])
    return _splitmix64(np.uint64(entry) ^ salt)


@_jit
def epoch_records(records: np.ndarray, V: int, salt: Any, batch_size: int, out: np.ndarray) -> None:
    """Write an epoch's mini-batches into ``out``: the records ordered by hash, each batch sorted.

    Batch ``q`` holds the entries whose key ranks ``q * batch_size`` to ``(q + 1) * batch_size
    − 1`` among all keys ``splitmix64((i * V + j) ^ salt)``, in ascending entry order: the
    numpy engine's ``argsort`` of the keys followed by sorting each batch (the keys are
    distinct, so the ranks are unique). Three passes over the records, no comparison sort of
    all keys: (1) a histogram of the top 16 bits of the keys gives every bucket's first rank;
    (2) only the buckets that a batch boundary cuts keep their keys, sorted, for exact ranks;
    (3) the records, in ascending order, go to the cursor of their batch.

    Parameters
    ----------
    records : numpy.ndarray of int32, shape (nnz, 4)
        :func:`pack_entries` records, in ascending entry order.
    V : int
    salt : numpy.uint64
        ``splitmix64(seed * 1_000_003 + epoch)``.
    batch_size : int
    out : numpy.ndarray of int32, shape (nnz, 4)
        Filled with the records, batch after batch.
    """
    n = records.shape[0]
    n_buckets = 1 << 16
    shift = np.uint64(48)
    hist = np.zeros(n_buckets, np.int64)
    for t in range(n):
        hist[_entry_key(records, t, V, salt) >> shift] += 1
    first = np.zeros(n_buckets + 1, np.int64)  # rank of each bucket's smallest key
    for u in range(n_buckets):
        first[u + 1] = first[u] + hist[u]
    # buckets with a batch boundary inside them, and room for their keys
    cut = np.zeros(n_buckets, np.bool_)
    offset = np.zeros(n_buckets + 1, np.int64)
    for u in range(n_buckets):
        size = hist[u]
        if size > 0 and first[u] // batch_size != (first[u + 1] - 1) // batch_size:
            cut[u] = True
        offset[u + 1] = offset[u] + (size if cut[u] else 0)
    keys = np.empty(offset[n_buckets], np.uint64)
    fill = offset[:-1].copy()
    for t in range(n):
        k = _entry_key(records, t, V, salt)
        u = k >> shift
        if cut[u]:
            keys[fill[u]] = k
            fill[u] += 1
    for u in range(n_buckets):
        if cut[u]:
            keys[offset[u] : offset[u + 1]] = np.sort(keys[offset[u] : offset[u + 1]])
    n_batches = (n + batch_size - 1) // batch_size
    cursor = np.empty(n_batches, np.int64)
    for q in range(n_batches):
        cursor[q] = q * batch_size
    for t in range(n):
        k = _entry_key(records, t, V, salt)
        u = k >> shift
        rank = first[u]
        if cut[u]:
            rank += np.searchsorted(keys[offset[u] : offset[u + 1]], k)
        q = rank // batch_size
        p = cursor[q]
        cursor[q] = p + 1
        for f in range(4):
            out[p, f] = records[t, f]


def pack_entries(
    rows: np.ndarray, cols: np.ndarray, logx: np.ndarray, fx: np.ndarray
) -> np.ndarray:
    """The entries as 16-byte records ``(i, j, log x, f(x))``, int32 ``(nnz, 4)``.

    Columns 2 and 3 hold float32 values: read them through ``records.view(numpy.float32)``.
    """
    records = np.empty((rows.size, 4), np.int32)
    records[:, 0], records[:, 1] = rows, cols
    as_float = records.view(np.float32)
    as_float[:, 2], as_float[:, 3] = logx, fx
    return records


@_jit
def gather_rows(
    batch: np.ndarray,
    batch_float: np.ndarray,
    W: np.ndarray,
    U: np.ndarray,
    bi: np.ndarray,
    bj: np.ndarray,
    lx: np.ndarray,
    fw: np.ndarray,
    wi: np.ndarray,
    uj: np.ndarray,
) -> None:
    """Fill the batch's ``bi, bj, log x, f(x)`` (from its records, int32 and float32 views of
    the same rows of :func:`epoch_records`' output) and its rows ``wi = W[bi]``,
    ``uj = U[bj]``."""
    d = W.shape[1]
    for e in range(batch.shape[0]):
        bi[e] = batch[e, 0]
        bj[e] = batch[e, 1]
        lx[e] = batch_float[e, 2]
        fw[e] = batch_float[e, 3]
    for e in range(batch.shape[0]):
        i = bi[e]
        j = bj[e]
        for k in range(d):
            wi[e, k] = W[i, k]
            uj[e, k] = U[j, k]


@_jit
def _clip(x: Any, lo: Any, hi: Any) -> Any:
    """``numpy.clip`` of a finite float32 (a NaN, which ends the fit anyway, becomes ``lo``)."""
    y = x if x > lo else lo
    return y if y < hi else hi


@_jit
def adagrad_batch(
    W: np.ndarray,
    U: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    GW: np.ndarray,
    GU: np.ndarray,
    Gb: np.ndarray,
    Gc: np.ndarray,
    bi: np.ndarray,
    bj: np.ndarray,
    wi: np.ndarray,
    uj: np.ndarray,
    dot: np.ndarray,
    lx: np.ndarray,
    fw: np.ndarray,
    lr: Any,
    diff: np.ndarray,
    fdiff: np.ndarray,
    count: np.ndarray,
    order: np.ndarray,
) -> None:
    """One AdaGrad step on a batch whose dot products ``dot = w_iᵀu_j`` are given.

    Writes the residuals ``diff`` and ``fdiff = f · diff`` (the loss is ``fdiff · diff``) and
    updates the parameters and their accumulators in place. The batch (from
    :func:`gather_rows`) must be in ascending entry order, so that ``bi`` is sorted; ``wi``,
    ``uj`` are the rows at the start of the batch, ``lx``, ``fw`` the entries' ``log x`` and
    ``f(x)``; ``count`` is ``V + 1`` zeros (left zeroed) and ``order`` a scratch array of the
    batch's length. Each row's sums are collected in a small buffer and applied once, at the
    end of the row's run of entries.
    """
    n = bi.size
    d = W.shape[1]
    for e in range(n):
        r = dot[e] + b[bi[e]]
        r = r + c[bj[e]]
        r = r - lx[e]
        diff[e] = r
        fdiff[e] = fw[e] * r
    acc = np.zeros(d, np.float32)
    sq = np.zeros(d, np.float32)
    # context side: the entries grouped by column, in batch order within a column (a stable
    # counting sort), reading only wi (the word vectors at the start of the batch)
    for e in range(n):
        count[bj[e] + 1] += 1
    for v in range(count.size - 1):
        count[v + 1] += count[v]
    for e in range(n):
        j = bj[e]
        order[count[j]] = e
        count[j] += 1
    count[:] = 0
    _grouped_update(order, bj, wi, fdiff, U, GU, c, Gc, lr, acc, sq)
    # word side: the entries are grouped by row already (idx ascending), reading only uj
    for e in range(n):
        order[e] = e
    _grouped_update(order, bi, uj, fdiff, W, GW, b, Gb, lr, acc, sq)


@_jit
def _grouped_update(
    order: np.ndarray,
    rows: np.ndarray,
    other: np.ndarray,
    fdiff: np.ndarray,
    P: np.ndarray,
    GP: np.ndarray,
    p: np.ndarray,
    Gp: np.ndarray,
    lr: Any,
    acc: np.ndarray,
    sq: np.ndarray,
) -> None:
    """AdaGrad on one side (vectors ``P``, biases ``p``) of a batch, one row at a time.

    ``order`` lists the batch's entries so that those of one row (``rows[e]``) are adjacent, in
    batch order; each entry's gradient is ``fdiff[e]`` times ``other[e]`` (the other side's
    vector), clipped to [-100, 100] and scaled by ``lr``. A row's sums ``Σg`` and ``Σg²`` are
    added entry after entry into ``acc``, ``sq`` and applied once: ``θ −= Σg / √G``, then
    ``G += Σg²``.
    """
    n = order.size
    d = P.shape[1]
    lo = np.float32(-100.0)
    hi = np.float32(100.0)
    zero = np.float32(0.0)
    s = 0
    while s < n:
        j = rows[order[s]]
        acc[:] = zero
        sq[:] = zero
        a1 = zero
        s1 = zero
        t = s
        while t < n and rows[order[t]] == j:
            e = order[t]
            f = fdiff[e]
            for k in range(d):
                g = _clip(f * other[e, k], lo, hi) * lr
                acc[k] += g
                sq[k] += g * g
            g = _clip(f, lo, hi) * lr
            a1 += g
            s1 += g * g
            t += 1
        for k in range(d):
            P[j, k] -= acc[k] / np.sqrt(GP[j, k])
            GP[j, k] += sq[k]
        p[j] -= a1 / np.sqrt(Gp[j])
        Gp[j] += s1
        s = t


# --------------------------------------------------------------------------- co-occurrence


@_jit
def cooccurrence_csr(ids: np.ndarray, doc_of: np.ndarray, V: int, weight: np.ndarray) -> tuple:
    """Co-occurrence sums as CSR arrays, one row at a time.

    Every pair of tokens ``d < weight.size`` apart in one document adds ``weight[d]`` to
    ``X[a, b]`` and to ``X[b, a]`` (see
    :func:`nlpbias.studies.perturbation.cooccurrence.cooccurrence`). Row ``a`` collects, for
    every position of word ``a``, its neighbours on both sides in a dense scratch row, then
    emits the non-zeros in column order.

    Parameters
    ----------
    ids : numpy.ndarray of int32
        The corpus' tokens (word ids), documents one after the other.
    doc_of : numpy.ndarray of int64
        The document of every token.
    V : int
    weight : numpy.ndarray of float64, shape (window + 1,)
        ``weight[d]`` for ``d = 1 … window`` (``weight[0]`` unused).

    Returns
    -------
    (indptr, indices, data)
        int64, int32 and float64 arrays of a canonical CSR matrix (sorted, no duplicates).
    """
    n = ids.size
    window = weight.size - 1
    # the positions of every word (a counting sort of the tokens by word)
    start = np.zeros(V + 1, np.int64)
    for t in range(n):
        start[ids[t] + 1] += 1
    for a in range(V):
        start[a + 1] += start[a]
    cursor = start[:-1].copy()
    pos = np.empty(n, np.int64)
    for t in range(n):
        a = ids[t]
        pos[cursor[a]] = t
        cursor[a] += 1
    row = np.zeros(V, np.float64)
    seen = np.zeros(V, np.bool_)
    touched = np.empty(V, np.int64)
    indptr = np.zeros(V + 1, np.int64)
    cap = max(1024, n)
    indices = np.empty(cap, np.int32)
    data = np.empty(cap, np.float64)
    nnz = 0
    for a in range(V):
        m = 0
        for q in range(start[a], start[a + 1]):
            p = pos[q]
            dp = doc_of[p]
            for d in range(1, window + 1):
                if p - d < 0 or doc_of[p - d] != dp:
                    break
                b = ids[p - d]
                if not seen[b]:
                    seen[b] = True
                    touched[m] = b
                    m += 1
                row[b] += weight[d]
            for d in range(1, window + 1):
                if p + d >= n or doc_of[p + d] != dp:
                    break
                b = ids[p + d]
                if not seen[b]:
                    seen[b] = True
                    touched[m] = b
                    m += 1
                row[b] += weight[d]
        cols = np.sort(touched[:m])
        if nnz + m > cap:
            cap = max(2 * cap, nnz + m)
            grown_i = np.empty(cap, np.int32)
            grown_i[:nnz] = indices[:nnz]
            indices = grown_i
            grown_d = np.empty(cap, np.float64)
            grown_d[:nnz] = data[:nnz]
            data = grown_d
        for t in range(m):
            b = cols[t]
            indices[nnz] = b
            data[nnz] = row[b]
            row[b] = 0.0
            seen[b] = False
            nnz += 1
        indptr[a + 1] = nnz
    return indptr, indices[:nnz].copy(), data[:nnz].copy()
