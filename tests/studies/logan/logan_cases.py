"""Small LOGAN cases shared by the tests of tests/studies/logan (imported as ``logan_cases``)."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_blobs


def blobs(n: int = 600, centers: int = 5, seed: int = 0):
    """Mixture features, labels, predictions right 80 % of the time, and a random 0/1 group."""
    X, comp = make_blobs(
        n_samples=n, centers=centers, n_features=4, cluster_std=2.5, random_state=seed
    )
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    group = rng.integers(0, 2, n)
    return X, y, y_pred, group


def fit(est, X, y, y_pred, group):
    """``est`` fitted on the case."""
    return est.fit(X, y_true=y, y_pred_or_score=y_pred, group=group)


def merge_case(jitter_seed: int = 0):
    """Three clusters A, S, B: S (3 + 3 members) is nearest to A and farthest from B."""
    rng = np.random.default_rng(jitter_seed)
    a = np.c_[np.full(60, 6.0), np.zeros(60)]  # A: nearest to S (distance 1)
    s = np.c_[np.full(6, 5.0), np.zeros(6)]  # S: 3 + 3 members, below min_group_size
    b = np.c_[np.full(60, -5.0), np.zeros(60)]  # B: farthest (distance 10), least similar
    X = np.r_[a, s, b] + rng.normal(0, 0.05, (126, 2))
    group = np.r_[np.tile([0, 1], 30), np.tile([0, 1], 3), np.tile([0, 1], 30)]
    y = rng.integers(0, 2, 126)
    init = np.array([[6.0, 0.0], [5.0, 0.0], [-5.0, 0.0]])
    return X, y, group, init


# toy texts for the MiniLM classifiers: 25 toxic and 25 nice, each phrase with five names
TOXIC = ["you are an idiot", "shut up you stupid troll", "what a moron", "go to hell loser",
         "you dumb fool"]  # fmt: skip
NICE = ["have a nice day", "thanks for the help", "lovely weather today", "great work on this",
        "see you at lunch"]  # fmt: skip
NAMES = ["alex", "sam", "kim", "lee", "max"]
TEXTS = [f"{t} {n}" for n in NAMES for t in TOXIC] + [f"{t} {n}" for n in NAMES for t in NICE]
LABELS = np.array([1] * 25 + [0] * 25)
