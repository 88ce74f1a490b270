"""A planted *local* group bias for LOGAN (Zhao & Chang, 2020): small overall, large in one region.

LOGAN's claim is that a classifier whose accuracy hardly differs between two groups overall can
still treat them very differently inside one region of the input space. This generator builds
exactly that situation with a known answer, so that a clustering method can be checked: it must
put the planted region in a cluster of its own and report a gap close to ``local_gap`` there.
Nothing here is real data.

Generative story of :func:`make_local_bias_data` (the ground truth)
--------------------------------------------------------------------
Sign convention: a *gap* is accuracy of group A minus accuracy of group B.

1. **Regions.** ``n_regions`` centres in ``R^dim``: the first ``n_regions`` rows of a random
   orthogonal matrix, scaled so that **every two centres are exactly** ``separation`` apart.
   Each instance picks a region uniformly at random and its features are
   ``X = centre[region] + N(0, I_dim)``.
2. **Groups.** Each instance is in group ``B`` with probability ``group_share`` and in ``A``
   otherwise, independently of its region.
3. **True labels.** Each region gets a positive rate drawn uniformly from [0.3, 0.7];
   ``y_true ~ Bernoulli(rate[region])``.
4. **Simulated classifier.** Inside each (region, group) cell a target accuracy ``a`` is fixed and
   **exactly** ``round(a * cell size)`` instances, chosen at random, are predicted correctly
   (``y_pred = y_true``); the others get the wrong label. So realised accuracies equal the targets
   up to rounding to whole instances, with no Bernoulli noise on top. The targets:

   - biased region: ``A = base_accuracy + local_gap / 2``, ``B = base_accuracy - local_gap / 2``
     (gap ``+local_gap``);
   - every other region: ``A = base_accuracy - delta / 2``, ``B = base_accuracy + delta / 2``
     (gap ``-delta``), where ``delta >= 0`` is the **smallest** compensation for which the
     global gap is at most ``global_gap_max``. With the realised shares ``w_A``, ``w_B`` of each
     group that fall in the biased region, the global gap is
     ``local_gap (w_A + w_B) / 2 - delta ((1 - w_A) + (1 - w_B)) / 2``, which gives
     ``delta = max(0, local_gap (w_A + w_B) / 2 - global_gap_max) * 2 / (2 - w_A - w_B)``.

   With the defaults (6 regions, ``local_gap=0.3``, ``global_gap_max=0.02``) the biased region
   holds about a sixth of each group, so it alone would make a global gap of 0.05; the other
   regions get a reverse gap ``delta`` of about 0.036 (under the 5-point threshold LOGAN uses
   to call a cluster biased) and the global gap is 0.02.
5. **Scores.** ``y_score`` is uniform on [0.5, 1) where ``y_pred == 1`` and on [0, 0.5)
   elsewhere: consistent with ``y_pred`` at the threshold 0.5, and carrying no other
   information (for the subgroup-AUC variant of LOGAN).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.repro import rng

__all__ = ["GROUPS", "make_local_bias_data"]

#: The two group labels.
GROUPS = ("A", "B")

_RATE_RANGE = (0.3, 0.7)


def _compensation(local_gap: float, global_gap_max: float, w_a: float, w_b: float) -> float:
    """Smallest reverse gap outside the biased region that caps the global gap (see story)."""
    excess = local_gap * (w_a + w_b) / 2 - global_gap_max
    rest = (1 - w_a) + (1 - w_b)
    return max(0.0, excess) * 2 / rest if rest > 0 else 0.0


def make_local_bias_data(
    n: int,
    *,
    dim: int = 16,
    n_regions: int = 6,
    biased_region: int = 0,
    local_gap: float = 0.3,
    global_gap_max: float = 0.02,
    base_accuracy: float = 0.8,
    separation: float = 6.0,
    group_share: float = 0.5,
    random_state: None | int | np.random.Generator,
) -> dict:
    """Features, labels and predictions with a planted local accuracy gap between two groups.

    See the module docstring for the generative story. Deterministic for a fixed int
    ``random_state``.

    Parameters
    ----------
    n : int
        Number of instances.
    dim : int, default 16
        Feature dimension (at least ``n_regions``: the centres are orthogonal directions).
    n_regions : int, default 6
        Number of Gaussian regions (at least 2).
    biased_region : int, default 0
        The region where group B's accuracy is lower by ``local_gap``.
    local_gap : float, default 0.3
        Accuracy of A minus accuracy of B inside ``biased_region``.
    global_gap_max : float, default 0.02
        Largest global gap (A minus B) allowed; the other regions get the smallest reverse gap
        that keeps the global gap at or below it.
    base_accuracy : float, default 0.8
        Mean of the two groups' target accuracies in every region.
    separation : float, default 6.0
        Distance between any two region centres (the noise has unit variance per dimension).
    group_share : float, default 0.5
        Probability that an instance is in group B.
    random_state : None, int or numpy Generator

    Returns
    -------
    dict
        ``X`` (n, dim) float64; ``y_true``, ``y_pred`` (n,) int 0/1; ``y_score`` (n,) float;
        ``group`` (n,) str ``'A'``/``'B'``; ``region`` (n,) int (ground truth);
        ``centres`` (n_regions, dim); ``truth``: a DataFrame with one row per (region, group) and
        columns ``region``, ``group``, ``n``, ``target_accuracy``, ``accuracy`` (realised),
        ``biased`` (bool); ``global_gap`` (realised accuracy of A minus B, float) and
        ``compensation_gap`` (``delta``, float).

    Examples
    --------
    >>> data = make_local_bias_data(2000, random_state=0)
    >>> data["X"].shape, np.unique(data["group"]).tolist()
    ((2000, 16), ['A', 'B'])
    >>> t = data["truth"].set_index(["region", "group"])["accuracy"]
    >>> round(float(t[0, "A"] - t[0, "B"]), 2)
    0.3
    """
    n = check_int(n, "n", minimum=1)
    dim = check_int(dim, "dim", minimum=1)
    n_regions = check_int(n_regions, "n_regions", minimum=2)
    if n_regions > dim:
        raise ValueError(
            f"n_regions={n_regions} exceeds dim={dim}; the centres are orthogonal directions, "
            "so use dim >= n_regions"
        )
    check_int(biased_region, "biased_region", minimum=0, maximum=n_regions - 1)
    base = check_number(base_accuracy, "base_accuracy", low=0.0, high=1.0)
    local_gap = check_number(local_gap, "local_gap", low=0.0, high=1.0)
    global_gap_max = check_number(global_gap_max, "global_gap_max", low=0.0, high=1.0)
    separation = check_number(separation, "separation", low=0.0, high=math.inf, high_open=True)
    group_share = check_number(group_share, "group_share", low=0.0, high=1.0)
    if not 0 < group_share < 1:
        raise ValueError(f"group_share must lie strictly between 0 and 1, got {group_share}")
    if not (0 <= base - local_gap / 2 and base + local_gap / 2 <= 1):
        raise ValueError(
            f"base_accuracy={base} +/- local_gap/2={local_gap / 2} leaves [0, 1]; "
            "lower local_gap or move base_accuracy towards 0.5"
        )

    gen = rng(random_state)
    q, _ = np.linalg.qr(gen.normal(size=(dim, dim)))
    centres = q[:n_regions] * (separation / math.sqrt(2))
    region = gen.integers(0, n_regions, size=n)
    X = centres[region] + gen.normal(size=(n, dim))
    group = np.where(gen.random(n) < group_share, "B", "A")
    rates = gen.uniform(*_RATE_RANGE, size=n_regions)
    y_true = (gen.random(n) < rates[region]).astype(np.int64)

    counts = pd.crosstab(region, group).reindex(
        index=range(n_regions), columns=list(GROUPS), fill_value=0
    )
    if (counts.to_numpy() == 0).any():
        raise ValueError(
            f"n={n} is too small for n_regions={n_regions}: some region lacks one of the groups; "
            "raise n or lower n_regions"
        )
    in_biased = counts.loc[biased_region] / counts.sum()
    delta = _compensation(local_gap, global_gap_max, float(in_biased["A"]), float(in_biased["B"]))
    if not (0 <= base - delta / 2 and base + delta / 2 <= 1):
        raise ValueError(
            f"the compensating gap {delta:.3f} outside the biased region does not fit around "
            f"base_accuracy={base}; raise global_gap_max or lower local_gap"
        )

    correct = np.zeros(n, dtype=bool)
    rows = []
    for r in range(n_regions):
        for g in GROUPS:
            half = (local_gap if r == biased_region else -delta) / 2
            target = base + half if g == "A" else base - half
            cell = np.flatnonzero((region == r) & (group == g))
            k = int(round(target * len(cell)))
            correct[gen.permutation(cell)[:k]] = True
            rows.append((r, g, len(cell), target, k / len(cell), r == biased_region))
    y_pred = np.where(correct, y_true, 1 - y_true)
    u = gen.random(n)
    y_score = np.where(y_pred == 1, 0.5 + 0.5 * u, 0.5 * u)
    truth = pd.DataFrame(
        rows, columns=["region", "group", "n", "target_accuracy", "accuracy", "biased"]
    )
    acc = {g: float(correct[group == g].mean()) for g in GROUPS}
    return {
        "X": X,
        "y_true": y_true,
        "y_pred": y_pred,
        "y_score": y_score,
        "group": group,
        "region": region,
        "centres": centres,
        "truth": truth,
        "global_gap": acc["A"] - acc["B"],
        "compensation_gap": delta,
    }
