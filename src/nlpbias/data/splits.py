"""Splitting a labelled frame into train and test sets."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["stratified_split"]


def stratified_split(df: pd.DataFrame, test_fraction: float, gen: np.random.Generator):
    """Split ``df`` at random into (train, test), stratified by the ``toxic`` label."""
    test_idx = []
    for _, group in df.groupby("toxic"):
        k = int(round(len(group) * test_fraction))
        test_idx.extend(gen.choice(group.index.to_numpy(), size=k, replace=False).tolist())
    test = df.loc[sorted(test_idx)]
    return df.drop(index=test.index), test
