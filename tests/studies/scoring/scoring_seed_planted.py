"""Planted per-seed biases of two people, shared by the scoring chapter's seed tests."""

from __future__ import annotations

import itertools

import pandas as pd

PEOPLE = ["Trump", "Clinton"]
CONCEPTS = ["career", "family", "average"]
BASE = {"career": -0.1, "family": 0.4, "average": 0.05}
#: planted differences per person and concept, one per seed (0, 1, 2)
DIFF = {
    ("Trump", "career"): [-0.30, -0.36, -0.33],  # counts
    ("Trump", "family"): [0.10, -0.05, 0.02],  # signs disagree
    ("Trump", "average"): [-0.20, -0.22, -0.21],  # counts
    ("Clinton", "career"): [0.10, 0.40, 0.25],  # mean < range
    ("Clinton", "family"): [0.30, 0.32, 0.31],  # counts
    ("Clinton", "average"): [0.00, 0.01, -0.01],
}


def planted_long(seeds=(0, 1, 2)) -> pd.DataFrame:
    rows = [
        {"person": p, "seed": s, "concept": c, "bias": BASE[c] + DIFF[p, c][s], "base": BASE[c],
         "difference": DIFF[p, c][s]}
        for p, s, c in itertools.product(PEOPLE, seeds, CONCEPTS)
    ]  # fmt: skip
    return pd.DataFrame(rows)
