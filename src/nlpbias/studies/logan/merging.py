"""Merging LOGAN's small clusters into their nearest neighbours after the fit.

While some cluster has fewer than ``min_group_size`` members of either group and more than
``min_clusters`` clusters remain, the cluster with the fewest members of its rarer group (ties:
fewer members, then lower id) is merged into the **nearest** other centre (Euclidean; the original
code picks the least similar one, a bug) and the mean is recomputed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["merge_clusters"]


def merge_clusters(
    X: np.ndarray,
    labels: np.ndarray,
    centers: np.ndarray,
    gcode: np.ndarray,
    min_group_size: int,
    min_clusters: int,
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """Merge small clusters: ``(labels, centers, merges)`` with ids renumbered 0 .. k' - 1.

    ``merges`` has one row per merge: ``step, source, target, source_n_a1, source_n_a2,
    distance`` (cluster ids before merging). Clusters left empty by the assignment are dropped.
    """
    k = len(centers)
    labels, centers = labels.copy(), centers.astype(np.float64, copy=True)
    sizes = np.bincount(2 * labels + gcode, minlength=2 * k).reshape(k, 2)
    # a cluster left empty by the assignment (possible when lam dwarfs the distances) is dropped:
    # it has no mean to merge, and merging two empty clusters would average no rows (NaN)
    active = [c for c in range(k) if sizes[c].sum() > 0]
    rows = []
    while len(active) > min_clusters:
        small = [c for c in active if sizes[c].min() < min_group_size]
        if not small:
            break
        src = min(small, key=lambda c: (sizes[c].min(), sizes[c].sum(), c))
        others = np.array([c for c in active if c != src])
        dist = np.sqrt(((centers[others] - centers[src]) ** 2).sum(axis=1))
        dst = int(others[np.argmin(dist)])
        rows.append((len(rows), src, dst, *sizes[src], float(dist.min())))
        labels[labels == src] = dst
        sizes[dst] += sizes[src]
        centers[dst] = X[labels == dst].mean(axis=0)
        active.remove(src)
    remap = np.full(k, -1)
    remap[active] = np.arange(len(active))
    merges = pd.DataFrame(
        rows, columns=["step", "source", "target", "source_n_a1", "source_n_a2", "distance"]
    )
    return remap[labels], centers[active].astype(X.dtype), merges
