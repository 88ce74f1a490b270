"""LOGAN's Lloyd iteration: the assignment with the bias reward, the mean update and the loop.

Two assignment rules (see the conventions in :mod:`nlpbias.studies.logan.estimator`), both a
batch step on the previous assignment's counts:

- ``"paper"`` puts ``x_i`` in the cluster minimising ``||x_i - mu_k||^2 - lam * gap_k^2``, with
  ``gap_k`` the gap of cluster ``k`` if ``x_i`` joined it: the *level* of a cluster's gap is the
  reward, so points are drawn toward the already most-biased cluster;
- ``"exact"`` minimises the change a move makes to the objective: staying in its cluster ``a``
  costs ``||x_i - mu_a||^2``; moving to ``k`` costs ``||x_i - mu_k||^2 - lam * (gap_k(+x_i)^2 -
  gap_k^2 + gap_a(-x_i)^2 - gap_a^2)``, the change in ``sum_k gap_k^2`` from taking ``x_i`` out
  of ``a`` and into ``k``. For one point moved against fixed centres this is the exact change
  of the objective (accuracy only: an AUC gap has no O(1) update).

The update recomputes the means and re-seeds empty clusters with the points farthest from their
centres.
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

__all__ = [
    "RULES",
    "Penalty",
    "assign",
    "candidate_gaps",
    "lloyd",
    "penalty",
    "sq_dist_to",
]

#: Assignment rules of :func:`lloyd`.
RULES = ("paper", "exact")

log = logging.getLogger(__name__)

_CHUNK_ELEMENTS = 2**22  # entries of one (rows x clusters) cost block


def _gap_table(
    labels: np.ndarray, data: GroupData, k: int, step: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate accuracy gaps, table (4, k) by code 2 * group + correct, and current gaps (k,).

    ``table[2 * g + c, j]`` is the gap of cluster ``j`` if a point of group ``g`` and correctness
    ``c`` from another cluster joined it (``step=1``) or, with ``step=-1``, if such a point of
    ``j`` left it; a point already in ``j`` leaves it at ``current[j]``.
    """
    correct, total = group_counts(labels, data, k)
    table = np.empty((4, k))
    for g in (0, 1):
        for c in (0, 1):
            t, r = total.copy(), correct.copy()
            t[:, g] += step
            r[:, g] += step * c
            table[2 * g + c] = gap_from_counts(r, np.maximum(t, 0), 0.0)
    return table, gap_from_counts(correct, total, 0.0)


def candidate_gaps(labels: np.ndarray, data: GroupData, k: int) -> np.ndarray:
    """(n, k) accuracy gap of cluster j if point i joined it, counts from ``labels``."""
    table, current = _gap_table(labels, data, k)
    cand = table[2 * data.gcode + data.correct.astype(np.int64)]
    cand[np.arange(len(labels)), labels] = current[labels]
    return cand


class Penalty(NamedTuple):
    """The reward subtracted from the squared distances of the assignment step.

    ``table`` (4, k) by code or (1, k) per cluster is subtracted from every cluster's cost;
    ``own`` (4, k), where given, from the cost of the point's own cluster on top; ``leave``
    (4, k), where given, is the reward of leaving the own cluster, subtracted from the cost of
    every *other* cluster (the exact rule).
    """

    table: np.ndarray
    own: np.ndarray | None
    code: np.ndarray
    labels: np.ndarray
    leave: np.ndarray | None = None


def penalty(
    labels: np.ndarray | None, data: GroupData, k: int, lam: float, rule: str = "paper"
) -> Penalty | None:
    """The bias term of the assignment cost from the previous labels; None when it vanishes."""
    if labels is None or lam == 0:
        return None
    if data.metric == "auc":
        if rule == "exact":
            raise ValueError(
                "rule='exact' needs metric='accuracy' (an AUC gap has no O(1) update per point); "
                "use rule='paper' for AUC"
            )
        table = lam * current_gaps(labels, data, k)[None, :] ** 2
        return Penalty(table, None, np.zeros(len(labels), dtype=np.int64), labels)
    code = 2 * data.gcode + data.correct.astype(np.int64)
    join, current = _gap_table(labels, data, k)
    if rule == "paper":
        table = lam * join**2
        own = lam * current[None, :] ** 2 - table
        return Penalty(table, own, code, labels)
    # exact: reward of joining k (the change of gap_k^2) and of leaving the own cluster a
    table = lam * (join**2 - current[None, :] ** 2)
    leave, _ = _gap_table(labels, data, k, step=-1)
    leave = lam * (leave**2 - current[None, :] ** 2)
    own = -table - leave  # staying costs the squared distance alone
    return Penalty(table, own, code, labels, leave)


def assign(X: np.ndarray, centers: np.ndarray, pen: Penalty | None) -> np.ndarray:
    """argmin_k of the squared distance minus the penalty's reward (||x||^2 dropped)."""
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
            prev = pen.labels[s : s + chunk]
            if pen.leave is not None:
                cost -= pen.leave[code, prev][:, None]
            if pen.own is not None:
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
    X: np.ndarray,
    init: np.ndarray,
    data: GroupData,
    lam: float,
    max_iter: int,
    tol: float,
    rule: str = "paper",
) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Iterate from the centres ``init`` (``X`` centred): ``(labels, centers, n_iter, converged)``.

    Stops when no label changes or the summed squared centre shift is at most ``tol`` (absolute
    here; the estimator scales it by the mean variance of ``X``); ``converged`` is False when it
    stopped at ``max_iter`` instead.
    """
    centers = np.array(init, dtype=X.dtype, copy=True)
    k = len(centers)
    labels: np.ndarray | None = None
    strict = converged = False
    for it in range(max_iter):  # noqa: B007 -- n_iter is it + 1, read after the loop
        new = assign(X, centers, penalty(labels, data, k, lam, rule))
        new_centers, new = _update(X, new, centers, k)
        shift = float(((new_centers - centers) ** 2).sum())
        centers = new_centers
        if labels is not None and np.array_equal(new, labels):
            strict = converged = True
            break
        labels = new
        if shift <= tol:
            converged = True
            break
    if not strict:  # labels that match the final centres, as scikit-learn does
        labels = assign(X, centers, penalty(labels, data, k, lam, rule))
    return labels, centers, it + 1, converged
