"""From Kurita scores to bias: Dong's bias, Kurita's effect size and bootstrap intervals.

All three read the table of :func:`nlpbias.studies.scoring.kurita.kurita_scores` (one row per
template × target × attribute):

- :func:`dong_bias` — per attribute (or attribute group), the mean score over female targets
  minus the mean over male targets, over templates (positive = pro-female);
- :func:`kurita_effect_size` — Kurita's WEAT-like effect size over targets, with a permutation
  test;
- :func:`bootstrap_bias_ci` — Dong's bias with percentile bootstrap intervals over templates and
  attributes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int
from nlpbias.core.repro import rng as _rng
from nlpbias.metrics.stats import bootstrap_ci, check_alternative, permutation_pvalue
from nlpbias.studies.scoring.kurita import check_words

__all__ = ["bootstrap_bias_ci", "dong_bias", "kurita_effect_size"]


def _check_scores(scores: object, column: str) -> pd.DataFrame:
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(
            f"scores must be a DataFrame from kurita_scores, got {type(scores).__name__}"
        )
    missing = [c for c in ("template", "target", "attribute", column) if c not in scores.columns]
    if missing:
        raise ValueError(f"scores lacks columns {missing}; pass the output of kurita_scores")
    if not np.all(np.isfinite(pd.to_numeric(scores[column], errors="coerce"))):
        raise ValueError(f"scores[{column!r}] has NaN or non-numeric values; drop those rows")
    return scores


def _groups(
    scores: pd.DataFrame, attribute_groups: Mapping[str, Sequence[str]] | None
) -> dict[str, list[str]]:
    present = set(scores["attribute"])
    if attribute_groups is None:
        return {a: [a] for a in pd.unique(scores["attribute"])}
    out = {}
    for name, attrs in attribute_groups.items():
        attrs = check_words(attrs, f"attribute_groups[{name!r}]")
        absent = [a for a in attrs if a not in present]
        if absent:
            raise ValueError(f"attributes {absent} of group {name!r} are not in scores")
        out[str(name)] = attrs
    if not out:
        raise ValueError("attribute_groups is empty; pass e.g. {'career': [...]}")
    return out


def _check_sides(
    scores: pd.DataFrame, x: object, y: object, nx: str, ny: str, column: str = "target"
) -> tuple:
    """Two disjoint word lists, all present in ``scores[column]`` (targets or attributes)."""
    xs, ys = check_words(x, nx), check_words(y, ny)
    both = sorted(set(xs) & set(ys))
    if both:
        raise ValueError(f"{both} are in both {nx} and {ny}; each word belongs to one side")
    present = set(scores[column])
    absent = [t for t in xs + ys if t not in present]
    if absent:
        raise ValueError(f"{column}s {absent} are not in scores; score them or drop them")
    return xs, ys


def _grid(scores: pd.DataFrame, targets: list[str], attrs: list[str], column: str) -> np.ndarray:
    """Array (target, template, attribute) of scores; raises on missing or duplicate cells."""
    sub = scores[scores["target"].isin(targets) & scores["attribute"].isin(attrs)]
    if sub.duplicated(["template", "target", "attribute"]).any():
        raise ValueError("scores has duplicate (template, target, attribute) rows; dedupe them")
    tpls = list(pd.unique(scores["template"]))
    idx = pd.MultiIndex.from_product([targets, tpls, attrs])
    s = sub.set_index(["target", "template", "attribute"])[column].reindex(idx)
    if s.isna().any():
        raise ValueError("scores lacks some template × target × attribute cells; score them all")
    return s.to_numpy(dtype=np.float64).reshape(len(targets), len(tpls), len(attrs))


def dong_bias(
    scores: pd.DataFrame,
    *,
    female: Sequence[str],
    male: Sequence[str],
    attribute_groups: Mapping[str, Sequence[str]] | None = None,
    column: str = "score",
) -> pd.Series:
    """Dong's bias: mean score over female targets minus mean over male targets.

    Parameters
    ----------
    scores : pandas.DataFrame
        Output of :func:`kurita_scores`.
    female, male : sequence of str
        Female and male targets (disjoint, all in ``scores``).
    attribute_groups : mapping of str to list of str, optional
        Attribute concepts (e.g. ``{"career": [...], "family": [...]}``); the bias is then per
        concept, averaging over its attributes and the templates. Default: per attribute word.
    column : str, default "score"
        Score column to average.

    Returns
    -------
    pandas.Series
        Named ``bias``, indexed by attribute (or group); positive = pro-female.

    Examples
    --------
    >>> df = pd.DataFrame({"template": ["t"] * 2, "target": ["she", "he"],
    ...                    "attribute": ["nurse"] * 2, "score": [0.5, -0.25]})
    >>> float(dong_bias(df, female=["she"], male=["he"])["nurse"])
    0.75
    """
    scores = _check_scores(scores, column)
    female, male = _check_sides(scores, female, male, "female", "male")
    out = {}
    for name, attrs in _groups(scores, attribute_groups).items():
        sub = scores[scores["attribute"].isin(attrs)]
        f = sub.loc[sub["target"].isin(female), column]
        m = sub.loc[sub["target"].isin(male), column]
        out[name] = float(f.mean() - m.mean())
    res = pd.Series(out, name="bias", dtype=np.float64)
    res.index.name = "attribute" if attribute_groups is None else "group"
    return res


def kurita_effect_size(
    scores: pd.DataFrame,
    targets_x: Sequence[str],
    targets_y: Sequence[str],
    attributes_a: Sequence[str],
    attributes_b: Sequence[str],
    *,
    n_permutations: int,
    alternative: str = "two-sided",
    ddof: int = 1,
    column: str = "score",
    random_state: None | int | np.random.Generator,
) -> pd.Series:
    """Kurita's WEAT-like effect size on MLM scores, with a permutation test over targets.

    Per target ``t``: ``s(t) = mean(score | t, A) - mean(score | t, B)`` over templates ×
    attributes; ``d = (mean_X s - mean_Y s) / std_{X ∪ Y} s`` (``ddof`` as in WEAT). The p-value
    permutes which targets are in X: every split when there are at most ``n_permutations`` of
    them (exact, ``k / N``), else ``n_permutations`` random ones (``(k + 1) / (n + 1)``); the
    statistic is ``mean_X s - mean_Y s`` (equivalent to ``d``: the std is permutation-invariant).

    Returns
    -------
    pandas.Series
        ``effect_size, p_value, statistic, n_x, n_y, n_permutations, exact``.

    Examples
    --------
    >>> df = pd.DataFrame({"template": ["t"] * 4, "target": ["she", "she", "he", "he"],
    ...                    "attribute": ["home", "work"] * 2, "score": [1.0, 0.0, 0.0, 1.0]})
    >>> r = kurita_effect_size(df, ["she"], ["he"], ["home"], ["work"], ddof=0,
    ...                        n_permutations=9999, random_state=0)
    >>> float(r["effect_size"]), float(r["p_value"])
    (2.0, 1.0)
    """
    scores = _check_scores(scores, column)
    xs, ys = _check_sides(scores, targets_x, targets_y, "targets_x", "targets_y")
    a_s, b_s = _check_sides(
        scores, attributes_a, attributes_b, "attributes_a", "attributes_b", "attribute"
    )
    alternative = check_alternative(alternative)
    n_permutations = check_int(n_permutations, "n_permutations", minimum=1)
    targets = xs + ys
    n = len(targets)
    ddof = check_int(ddof, "ddof", minimum=0, maximum=n - 1)
    s = _grid(scores, targets, a_s, column).mean(axis=(1, 2)) - _grid(
        scores, targets, b_s, column
    ).mean(axis=(1, 2))
    nx = len(xs)
    sd = float(s.std(ddof=ddof))
    if not sd > 1e-12 * max(1.0, float(np.abs(s).max())):
        raise ValueError("all targets have the same score difference, so d is undefined")
    stat = float(s[:nx].mean() - s[nx:].mean())
    total = s.sum()
    n_splits = math.comb(n, nx)
    exact = n_splits <= n_permutations
    if exact:
        sums = np.array([s[list(c)].sum() for c in itertools.combinations(range(n), nx)])
    else:
        gen = _rng(random_state)
        order = np.argsort(gen.random((n_permutations, n)), axis=1)[:, :nx]
        sums = s[order].sum(axis=1)
    null = sums / nx - (total - sums) / (n - nx)
    p = permutation_pvalue(stat, null, alternative=alternative, exact=exact)
    return pd.Series(
        {
            "effect_size": stat / sd,
            "p_value": p,
            "statistic": stat,
            "n_x": nx,
            "n_y": n - nx,
            "n_permutations": n_splits if exact else n_permutations,
            "exact": exact,
        },
        name="kurita_effect_size",
        dtype=object,
    )


def bootstrap_bias_ci(
    scores: pd.DataFrame,
    *,
    female: Sequence[str],
    male: Sequence[str],
    attribute_groups: Mapping[str, Sequence[str]] | None = None,
    n_bootstrap: int,
    confidence_level: float = 0.95,
    column: str = "score",
    random_state: None | int | np.random.Generator,
) -> pd.DataFrame:
    """Dong's bias with percentile bootstrap CIs, resampling templates and attributes.

    For each attribute group, templates and the group's attributes are resampled with
    replacement, independently (targets are fixed: they define the two sides); each replicate
    is the bias over the resampled template × attribute cells. With ``attribute_groups=None``
    each attribute is its own group, so only templates vary. Needs every template × target ×
    attribute cell. Uses :func:`nlpbias.metrics.stats.bootstrap_ci`.

    Returns
    -------
    pandas.DataFrame
        Indexed by attribute (or group); columns ``bias, ci_low, ci_high``.

    Examples
    --------
    >>> df = pd.DataFrame({"template": ["t", "t", "u", "u"], "target": ["she", "he"] * 2,
    ...                    "attribute": ["nurse"] * 4, "score": [1.0, 0.0, 2.0, 0.0]})
    >>> ci = bootstrap_bias_ci(df, female=["she"], male=["he"], n_bootstrap=9999,
    ...                        random_state=0)
    >>> float(ci.loc["nurse", "bias"]), float(ci.loc["nurse", "ci_low"])
    (1.5, 1.0)
    """
    scores = _check_scores(scores, column)
    female, male = _check_sides(scores, female, male, "female", "male")
    gen = _rng(random_state)
    rows = {}
    for name, attrs in _groups(scores, attribute_groups).items():
        diff = _grid(scores, female, attrs, column).mean(axis=0) - _grid(
            scores, male, attrs, column
        ).mean(axis=0)  # (template, attribute)

        def stat(ti: np.ndarray, ai: np.ndarray, d: np.ndarray = diff) -> np.ndarray:
            per_attr = d[ti].mean(axis=1)  # (B, n_attributes)
            return np.take_along_axis(per_attr, ai, axis=1).mean(axis=1)

        low, high = bootstrap_ci(
            (np.arange(diff.shape[0]), np.arange(diff.shape[1])),
            stat,
            n_resamples=n_bootstrap,
            confidence_level=confidence_level,
            random_state=gen,
            vectorized=True,
        )
        rows[name] = (float(diff.mean()), low, high)
    out = pd.DataFrame.from_dict(rows, orient="index", columns=["bias", "ci_low", "ci_high"])
    out.index.name = "attribute" if attribute_groups is None else "group"
    return out
