"""How well the influence prediction agrees with retraining, judged by rules stated in advance.

The validation of :func:`~nlpbias.studies.perturbation.study.validate` gives, for each removal set
(the ``n`` most bias-increasing documents, the ``n`` most bias-decreasing ones, random sets), the
predicted and the actual (retrained) change of the effect size. Few sets, often one seed: a
correlation over them is a description, and its uncertainty must come from what was run.

- :func:`agreement_interval` — Pearson's r with a percentile bootstrap over the removal sets and,
  where there are several, over the retraining seeds (the interval the chapter can afford: no
  extra fits).
- :func:`agreement_table` — that interval with Spearman's r, as a one-row table for the chapter.
- :func:`retraining_noise` — the standard deviation over seeds of a set's retrained change,
  pooled over the sets: how much retraining moves ``B`` by chance (unmeasured with one seed).
- :func:`random_check` — the rule behind "random documents change the effect size little": every
  random set's ``|actual ΔB|`` lies below the smallest ``|actual ΔB|`` of the influence-selected
  sets by more than the retraining noise (:func:`nlpbias.core.criteria.exceeds`).
- :func:`random_sentence` — that rule's outcome, and the random sets' deviation from prediction,
  as a sentence for the chapter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.repro import rng as _rng

__all__ = [
    "agreement_interval",
    "agreement_table",
    "random_check",
    "random_sentence",
    "retraining_noise",
]

#: Fewest removal sets for a bootstrap of r: with fewer, most draws repeat a set and hold two or
#: three distinct points, whose r is ±1 or the full sample's by construction.
MIN_SETS = 5
#: The words of :func:`random_check`'s outcome.
LITTLE = "change the effect size little"
NOT_LITTLE = "do not change the effect size clearly less than influence-selected documents"
#: Kinds of removal set chosen by the influence function (the others are random).
TARGETED = ("increasing", "decreasing")


def _need(validation: Any, columns: list[str], what: str) -> pd.DataFrame:
    if not isinstance(validation, pd.DataFrame):
        raise TypeError(f"{what} needs validate()'s frame, got {type(validation).__name__}")
    missing = [c for c in columns if c not in validation.columns]
    if missing:
        raise KeyError(f"{what} needs the columns {missing} of validate()'s frame")
    return validation


def _runs(validation: pd.DataFrame) -> pd.DataFrame:
    """The retraining runs (set × seed) behind ``validation``; one run per set if not attached."""
    runs = validation.attrs.get("runs")
    if isinstance(runs, pd.DataFrame) and {"removed", "seed", "actual"} <= set(runs.columns):
        return runs
    return pd.DataFrame(
        {"removed": validation.index, "seed": 0, "actual": validation["actual"].to_numpy(float)}
    )


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r along the last axis; NaN where either side has no spread."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    den = np.sqrt((xc**2).sum(axis=-1) * (yc**2).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 1e-12 * (1 + np.abs(den)), (xc * yc).sum(axis=-1) / den, np.nan)


def agreement_interval(
    validation: pd.DataFrame,
    *,
    n_resamples: int,
    confidence_level: float = 0.95,
    random_state: int,
) -> pd.Series:
    """Pearson's r between predicted and actual ΔB, with a bootstrap over sets and seeds.

    Each draw resamples the removal sets with replacement and, where the validation ran several
    seeds, the seeds with replacement (a set's actual change is then the mean over the drawn
    seeds). A draw with fewer than three distinct sets is dropped (over two points r is ±1 by
    construction), and so is one in which the predicted or the actual changes have no spread.
    With fewer than :data:`MIN_SETS` removal sets there is no interval: too few distinct draws
    are possible. With one seed the interval holds the spread over removal sets only, not the
    retraining noise (:func:`retraining_noise`).

    Parameters
    ----------
    validation : pandas.DataFrame
        :func:`~nlpbias.studies.perturbation.study.validate` (``predicted``, ``actual``; its
        ``attrs["runs"]`` gives the per-seed changes).
    n_resamples : int
    confidence_level : float, default 0.95
    random_state : int

    Returns
    -------
    pandas.Series
        ``r`` (on all sets and seeds; NaN below 3 sets), ``ci_low``, ``ci_high`` (NaN with
        fewer than :data:`MIN_SETS` sets or fewer than 2 usable draws), ``n_sets``, ``n_seeds``,
        ``draws`` (the usable draws).

    Examples
    --------
    >>> v = pd.DataFrame({"predicted": [1.0, -1.0, 0.1, 2.0, -2.0],
    ...                   "actual": [0.8, -0.9, 0.3, 1.7, -1.5]})
    >>> out = agreement_interval(v, n_resamples=500, random_state=0)
    >>> round(out["r"], 3), bool(out["ci_low"] <= out["r"] <= out["ci_high"])
    (0.996, True)
    """
    _need(validation, ["predicted", "actual"], "agreement_interval")
    n_resamples = check_int(n_resamples, "n_resamples", minimum=2)
    check_number(confidence_level, "confidence_level", low=0.0, high=1.0, low_open=True,
                 high_open=True)  # fmt: skip
    runs = _runs(validation)
    table = runs.pivot_table(index="removed", columns="seed", values="actual", aggfunc="mean")
    ok = validation[["predicted", "actual"]].notna().all(axis=1)
    names = [n for n in validation.index[ok.to_numpy()] if n in table.index]
    pred = validation.loc[names, "predicted"].to_numpy(float)
    per_seed = table.loc[names].to_numpy(float)  # sets x seeds
    n_sets, n_seeds = per_seed.shape
    actual = validation.loc[names, "actual"].to_numpy(float)
    r = float(_pearson(pred, actual)) if n_sets >= 3 else np.nan
    low = high = np.nan
    usable = 0
    if n_sets >= MIN_SETS:
        gen = _rng(random_state)
        sets = gen.integers(0, n_sets, size=(n_resamples, n_sets))
        seeds = gen.integers(0, n_seeds, size=(n_resamples, n_seeds))
        drawn = per_seed[sets[:, :, None], seeds[:, None, :]]  # draws x sets x seeds
        draws = _pearson(pred[sets], np.nanmean(drawn, axis=-1))
        distinct = (np.diff(np.sort(sets, axis=1), axis=1) > 0).sum(axis=1) + 1
        draws = draws[np.isfinite(draws) & (distinct >= 3)]
        usable = int(draws.size)
        if usable >= 2:
            alpha = (1 - confidence_level) / 2
            low, high = (float(q) for q in np.quantile(draws, [alpha, 1 - alpha]))
    return pd.Series(
        {"r": r, "ci_low": low, "ci_high": high, "n_sets": n_sets, "n_seeds": n_seeds,
         "draws": usable},
        name="agreement",
        dtype=object,
    )  # fmt: skip


def agreement_table(
    validation: pd.DataFrame, *, n_resamples: int, random_state: int, label: str = ""
) -> pd.DataFrame:
    """Pearson's r with its bootstrap interval (:func:`agreement_interval`) and Spearman's r.

    Returns
    -------
    pandas.DataFrame
        One row (index ``label``): ``Pearson's r``, ``95 % interval`` (text; "none" without
        one), ``Spearman's r``, ``removal sets``, ``seeds``, ``bootstrap draws`` (integers).

    Examples
    --------
    >>> v = pd.DataFrame({"predicted": [1.0, -1.0, 0.1, 2.0], "actual": [0.8, -0.9, 0.3, 1.7]})
    >>> agreement_table(v, n_resamples=200, random_state=0)["removal sets"].tolist()
    [4]
    """
    from scipy import stats

    out = agreement_interval(validation, n_resamples=n_resamples, random_state=random_state)
    ok = validation[["predicted", "actual"]].dropna()
    rho = (
        float(stats.spearmanr(ok["predicted"], ok["actual"]).statistic) if len(ok) >= 3 else np.nan
    )
    low, high = float(out["ci_low"]), float(out["ci_high"])
    interval = f"[{low:.3f}, {high:.3f}]" if np.isfinite(low) else "none"
    return pd.DataFrame(
        {
            "Pearson's r": [float(out["r"])],
            "95 % interval": [interval],
            "Spearman's r": [rho],
            "removal sets": [int(out["n_sets"])],
            "seeds": [int(out["n_seeds"])],
            "bootstrap draws": [int(out["draws"])],
        },
        index=pd.Index([label]),
    )


def retraining_noise(validation: pd.DataFrame) -> float | None:
    """Standard deviation over seeds of a set's actual ΔB, pooled over the sets (None: one seed).

    The pooled value is the square root of the mean over sets of the per-set variance over seeds
    (ddof 1). It is how much a retrained change moves by chance: the yardstick of
    :func:`random_check`. It needs at least two seeds; a validation with one seed has no measure
    of it and returns None.

    Examples
    --------
    >>> v = pd.DataFrame({"actual": [0.5, 0.0]}, index=["a", "b"])
    >>> v.attrs["runs"] = pd.DataFrame({"removed": ["a", "a", "b", "b"], "seed": [0, 1, 0, 1],
    ...                                 "actual": [0.4, 0.6, 0.1, -0.1]})
    >>> round(retraining_noise(v), 6)
    0.141421
    >>> retraining_noise(pd.DataFrame({"actual": [0.5]})) is None
    True
    """
    _need(validation, ["actual"], "retraining_noise")
    runs = _runs(validation)
    if runs["seed"].nunique() < 2:
        return None
    var = runs.groupby("removed")["actual"].var(ddof=1).dropna()
    return float(np.sqrt(var.mean())) if len(var) else None


def random_check(validation: pd.DataFrame) -> Any:
    """The rule behind "random documents change the effect size little" (an ``Outcome``).

    Holds iff the smallest ``|actual ΔB|`` of the influence-selected sets (``increasing``,
    ``decreasing``, every size) exceeds the largest ``|actual ΔB|`` of the random sets by more
    than the retraining noise (:func:`retraining_noise`; 0 where one seed leaves it unmeasured,
    which the outcome's detail says). Judged by :func:`nlpbias.core.criteria.exceeds`.

    Raises
    ------
    ValueError
        Without a random set or without an influence-selected set.

    Examples
    --------
    >>> v = pd.DataFrame({"kind": ["increasing", "decreasing", "random"],
    ...                   "predicted": [1.0, -1.0, 0.1], "actual": [0.8, -0.9, 0.05]},
    ...                  index=["increasing 10", "decreasing 10", "random 10 #1"])
    >>> random_check(v).holds
    True
    """
    from nlpbias.core.criteria import exceeds

    _need(validation, ["kind", "actual"], "random_check")
    size = validation["actual"].abs()
    kind = validation["kind"].astype(str)
    rand, targeted = size[kind == "random"].dropna(), size[kind.isin(TARGETED)].dropna()
    if rand.empty or targeted.empty:
        raise ValueError(
            "random_check needs at least one random and one influence-selected removal set "
            f"(kinds: {sorted(set(kind))}); set n_random >= 1"
        )
    noise = retraining_noise(validation)
    outcome = exceeds(
        float(targeted.min()),
        float(rand.max()),
        margin=0.0 if noise is None else noise,
        margin_name=(
            "the retraining noise (not measured with one seed: 0)"
            if noise is None
            else "the retraining noise"
        ),
        yes=LITTLE,
        no=NOT_LITTLE,
    )
    return outcome


def random_sentence(validation: pd.DataFrame, *, digits: int = 3) -> str:
    """The random sets in words: their deviation from prediction and whether they change B little.

    Names the random set that moved ``B`` most (its predicted and actual change), the
    influence-selected set that moved it least, the retraining noise (or that one seed leaves it
    unmeasured), and the outcome of :func:`random_check` with its criterion.

    Examples
    --------
    >>> v = pd.DataFrame({"kind": ["increasing", "decreasing", "random"],
    ...                   "predicted": [1.0, -1.0, 0.1], "actual": [0.8, -0.9, 0.05]},
    ...                  index=["increasing 10", "decreasing 10", "random 10 #1"])
    >>> random_sentence(v).startswith("Random documents **change the effect size little**")
    True
    """
    from nlpbias.core.text import fmt_num

    outcome = random_check(validation)
    kind = validation["kind"].astype(str)
    size = validation["actual"].abs()
    rand = validation[kind == "random"]
    worst = size[rand.index].idxmax()
    weakest = size[validation.index[kind.isin(TARGETED).to_numpy()]].idxmin()
    dev = (rand["actual"] - rand["predicted"]).abs()
    noise = retraining_noise(validation)
    if len(dev) == 1:
        deviation = (
            f"The random set deviates from its prediction by {fmt_num(float(dev.iloc[0]), digits)}"
        )
    else:
        deviation = (
            f"The random sets deviate from their prediction by {fmt_num(float(dev.min()), digits)} "
            f"to {fmt_num(float(dev.max()), digits)}"
        )

    def num(x: float) -> str:
        return fmt_num(float(x), digits)

    if noise is None:
        margin = "a margin of 0: with one seed the retraining noise is not measured"
    else:
        n_seeds = int(_runs(validation)["seed"].nunique())
        margin = (
            f"a margin of {num(noise)}, the retraining noise (the standard deviation over "
            f"{n_seeds} seeds of a set's change, pooled over the sets)"
        )
    return (
        f"Random documents **{outcome.word}** (criterion: the smallest |actual ΔB| of an "
        f"influence-selected set exceeds the largest |actual ΔB| of a random set by more than "
        f"the retraining noise; here {outcome.detail}, against {margin}). Removing `{worst}` "
        f"moved B by {num(validation.loc[worst, 'actual'])} against a predicted "
        f"{num(validation.loc[worst, 'predicted'])}; the influence-selected set that moved it "
        f"least, `{weakest}`, moved it by {num(validation.loc[weakest, 'actual'])}. "
        f"{deviation} (|actual − predicted|)."
    )
