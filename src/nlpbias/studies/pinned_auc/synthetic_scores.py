"""Classifier scores for groups whose score distributions are shifted: Dixon et al.'s Figure 2.

Dixon et al. (2018, Figure 2 and Table 3) imagine three groups of comments ("tall", "average",
"short") scored by one model that separates toxic from non-toxic equally well *within* each group,
but gives one group systematically higher scores. Every per-group AUC is then the same, and the
bias is invisible to it; the pinned AUC, which mixes a group with a sample of all comments, shows
the shifted group.

Generative model (for each group g with shift δ_g): the label is Bernoulli(``positive_rate``);
the score is ``sigmoid(separation · (2y − 1) + δ_g + ε)`` with ε ~ Normal(0, ``noise``). Within a
group the ranking of positives over negatives does not depend on δ_g, so the per-group AUCs agree
(up to sampling); across groups a shifted group's negatives outrank other groups' positives.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_fraction, check_int
from nlpbias.core.repro import rng as _rng

__all__ = ["DIXON_FIGURE2_SHIFTS", "make_shifted_groups"]

#: Groups and shifts of the thought experiment: "short" comments are scored higher.
DIXON_FIGURE2_SHIFTS: dict[str, float] = {"tall": 0.0, "average": 0.0, "short": 1.5}
# separation 1.05 gives per-group AUCs of about 0.93 as in the paper's Table 3: AUC = Φ(√2·sep)


def make_shifted_groups(
    n_per_group: int = 2000,
    *,
    shifts: Mapping[str, float] = DIXON_FIGURE2_SHIFTS,
    separation: float = 1.05,
    noise: float = 1.0,
    positive_rate: float = 0.5,
    random_state: None | int | np.random.Generator,
) -> pd.DataFrame:
    """Labels and scores for groups with shifted score distributions (see the module docstring).

    Returns
    -------
    pandas.DataFrame
        ``group`` (categorical, in the order of ``shifts``), ``y`` (bool), ``score`` in (0, 1),
        ``shift``. Synthetic: a thought experiment, not data.

    Examples
    --------
    >>> df = make_shifted_groups(100, random_state=0)
    >>> df.groupby("group", observed=True).size().tolist()
    [100, 100, 100]
    """
    check_int(n_per_group, "n_per_group", minimum=2)
    if not shifts:
        raise ValueError("shifts is empty; give at least one group, e.g. {'a': 0.0, 'b': 1.0}")
    check_fraction(positive_rate, "positive_rate")
    if separation < 0 or noise <= 0:
        raise ValueError(f"need separation >= 0 and noise > 0, got {separation!r}, {noise!r}")
    gen = _rng(random_state)
    frames = []
    for group, shift in shifts.items():
        y = gen.random(n_per_group) < positive_rate
        logit = separation * (2 * y - 1) + float(shift) + gen.normal(0, noise, n_per_group)
        frames.append(
            pd.DataFrame(
                {"group": group, "y": y, "score": 1 / (1 + np.exp(-logit)), "shift": float(shift)}
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out["group"] = pd.Categorical(out["group"], categories=list(shifts))
    return out
