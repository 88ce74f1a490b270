"""LOGAN's Lloyd iteration: the assignment with the bias reward, the mean update and the loop.

The assignment puts ``x_i`` in the cluster minimising ``||x_i - mu_k||^2 - lam * gap_k^2``, with
``gap_k`` the gap of cluster ``k`` if ``x_i`` joined it, computed from the previous assignment's
counts (a batch step; see the conventions in :mod:`nlpbias.studies.logan.estimator`). The update
recomputes the means and re-seeds empty clusters with the points farthest from their centres.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

import numpy as np

from nlpbias.studies.logan.group_metrics import (
    GroupData,
    current_gaps,
    gap_from_counts,
    group_counts,
)

__all__ = ["Penalty", "assign", "candidate_gaps", "lloyd", "penalty", "sq_dist_to"]

log = logging.getLogger(__name__)

_CHUNK_ELEMENTS = 2**22  # entries of one (rows x clusters) cost block


def _gap_table(labels: np.ndarray, data: GroupData, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Candidate accuracy gaps, table (4, k) by code 2 * group + correct, and current gaps (k,).

    ``table[2 * g + c, j]`` is the gap of cluster ``j`` if a point of group ``g`` and correctness
    ``c`` from another cluster joined it; a point already in ``j`` leaves it at ``current[j]``.
    """
    correct, total = group_counts(labels, data, k)
    table = np.empty((4, k))
    for g in (0, 1):
        for c in (0, 1):
            t, r = total.copy(), correct.copy()
            t[:, g] += 1
            r[:, g] += c
            table[2 * g + c] = gap_from_counts(r, t, 0.0)
    return table, gap_from_counts(correct, total, 0.0)


def candidate_gaps(labels: np.ndarray, data: GroupData, k: int) -> np.ndarray:
    """(n, k) accuracy gap of cluster j if point i joined it, counts from ``labels``."""
    table, current = _gap_table(labels, data, k)
    cand = table[2 * data.gcode + data.correct.astype(np.int64)]
    cand[np.arange(len(labels)), labels] = current[labels]
    return cand


class Penalty(NamedTuple):
    """lam * gap^2 by code (4, k) or per cluster (1, k); own-cluster correction for accuracy."""

    table: np.ndarray
    own: np.ndarray | None  # (4, k): lam * (current^2 - table^2), added where j = label
    code: np.ndarray
    labels: np.ndarray


def penalty(labels: np.ndarray | None, data: GroupData, k: int, lam: float) -> Penalty | None:
    """The bias term of the assignment cost from the previous labels; None when it vanishes."""
    if labels is None or lam == 0:
        return None
    if data.metric == "auc":
        table = lam * current_gaps(labels, data, k)[None, :] ** 2
        return Penalty(table, None, np.zeros(len(labels), dtype=np.int64), labels)
    table, current = _gap_table(labels, data, k)
    table = lam * table**2
    own = lam * current[None, :] ** 2 - table
    return Penalty(table, own, 2 * data.gcode + data.correct.astype(np.int64), labels)


def assign(X: np.ndarray, centers: np.ndarray, pen: Penalty | None) -> np.ndarray:
    """argmin_k ||x - mu_k||^2 - lam * gap_k(x joins k)^2 (||x||^2 dropped: same for all k)."""
    k = len(centers)
    labels = np.empty(len(X), dtype=np.int64)
    c_sq = np.einsum("ij,ij->i", centers, centers)
    chunk = max(1, _CHUNK_ELEMENTS // k)
    if pen is not None:
        table = pen.table.astype(X.dtype)
    for s in range(0, len(X), chunk):
        cost = X[s : s + chunk] @ centers.T
        cost *= -2
        cost += c_sq
        if pen is not None:
            code = pen.code[s : s + chunk]
            cost -= table[code]
            if pen.own is not None:
                prev = pen.labels[s : s + chunk]
                cost[np.arange(len(code)), prev] -= pen.own[code, prev]
        labels[s : s + chunk] = np.argmin(cost, axis=1)
    return labels


def sq_dist_to(X: np.ndarray, centers: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Squared distance of each row of ``X`` to the centre of its cluster."""
    out = np.empty(len(X))
    chunk = max(1, _CHUNK_ELEMENTS // X.shape[1])
    for s in range(0, len(X), chunk):
        diff = X[s : s + chunk] - centers[labels[s : s + chunk]]
        out[s : s + chunk] = np.einsum("ij,ij->i", diff, diff)
    return out


def _means(X: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    onehot = np.zeros((len(X), k), dtype=X.dtype)
    onehot[np.arange(len(X)), labels] = 1
    sums = (X.T @ onehot).T  # BLAS gemm; onehot.T @ X takes a slow non-BLAS path
    counts = np.bincount(labels, minlength=k)
    return sums / np.maximum(counts, 1)[:, None].astype(X.dtype), counts


def _update(
    X: np.ndarray, labels: np.ndarray, old: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """New centres; empty clusters take the points farthest from their centres (labels edited)."""
    centers, counts = _means(X, labels, k)
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        log.debug("re-seeding %d empty cluster(s)", empty.size)
        far = np.argsort(sq_dist_to(X, old, labels))[::-1][: empty.size]
        labels[far] = empty
        centers, _ = _means(X, labels, k)
    return centers, labels


def lloyd(
    X: np.ndarray, init: np.ndarray, data: GroupData, lam: float, max_iter: int, tol: float
) -> tuple[np.ndarray, np.ndarray, int]:
    """Iterate from the centres ``init`` (``X`` centred): ``(labels, centers, n_iter)``.

    Stops when no label changes or the summed squared centre shift is at most ``tol`` (absolute
    here; the estimator scales it by the mean variance of ``X``).
    """
    centers = np.array(init, dtype=X.dtype, copy=True)
    k = len(centers)
    labels: np.ndarray | None = None
    strict = False
    for it in range(max_iter):  # noqa: B007 -- n_iter is it + 1, read after the loop
        new = assign(X, centers, penalty(labels, data, k, lam))
        new_centers, new = _update(X, new, centers, k)
        shift = float(((new_centers - centers) ** 2).sum())
        centers = new_centers
        if labels is not None and np.array_equal(new, labels):
            strict = True
            break
        labels = new
        if shift <= tol:
            break
    if not strict:  # labels that match the final centres, as scikit-learn does
        labels = assign(X, centers, penalty(labels, data, k, lam))
    return labels, centers, it + 1
