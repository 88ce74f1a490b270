"""Tests for nlpbias.studies.logan.merging: merging small clusters after the fit."""

from __future__ import annotations

import warnings

import numpy as np

from nlpbias.studies.logan.merging import merge_clusters


def test_merge_drops_empty_clusters_without_nan_or_warning():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.1, (60, 2)), rng.normal(5, 0.1, (60, 2))])
    group = np.tile([0, 1], 60)
    labels = np.repeat([0, 2], 60)  # cluster 1 (and 3) are empty after the assignment
    centers = np.array([[0.0, 0.0], [np.nan, np.nan], [5.0, 5.0], [np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a mean over no rows would warn
        new_labels, new_centers, merges = merge_clusters(X, labels, centers, group, 20, 1)
    assert merges.empty and np.isfinite(new_centers).all()
    assert sorted(set(new_labels.tolist())) == [0, 1] and len(new_centers) == 2
