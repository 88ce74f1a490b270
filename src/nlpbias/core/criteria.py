"""The stated criteria behind the words a chapter prints about its own run.

A chapter that writes "the mitigation *separates* from its control", "aligned WEAT *tracks* the
downstream gap *better*" or "the shifted group is *found*" makes a claim about numbers. Each such
word is chosen here, by a rule that is stated with it, from the numbers of the run — never typed
by hand in the prose, where it would stay true on one profile and false on the next.

Each criterion returns an :class:`Outcome`: whether it holds, the word to print, the rule in
words and the numbers it used. ``str(outcome)`` is the word followed by the rule and the numbers,
ready for a sentence.

Examples
--------
>>> a, b = Interval(0.40, 0.35, 0.45), Interval(1.24, 1.10, 1.38)
>>> str(separates(a, b))
'separates from (the two 95 % intervals do not overlap: 0.4 [0.35, 0.45] vs 1.24 [1.1, 1.38])'
>>> separates(Interval(0.2, 0.1, 0.3), Interval(0.4, 0.3, 0.5)).holds  # touching is overlap
False
>>> exceeds(0.894, 0.887, margin=0.02, yes="found", no="not found").word
'not found'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

__all__ = [
    "Interval",
    "Outcome",
    "differs",
    "exceeds",
    "paired_bootstrap_difference",
    "separates",
]


def _finite(value: float, name: str) -> float:
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(
            f"{name} must be a finite number, got {value!r}; a criterion cannot be judged on a "
            "missing number — report the row as undefined instead"
        )
    return x


def _g(x: float, digits: int) -> str:
    """A number with `digits` significant digits, floating noise (|x| < 1e-12) shown as 0."""
    return "0" if abs(x) < 1e-12 else f"{x:.{digits}g}"


class Interval(NamedTuple):
    """An estimate with its 95 % interval.

    Examples
    --------
    >>> Interval(0.404, 0.352, 0.451).text()
    '0.404 [0.352, 0.451]'
    >>> Interval(8.5e-17, -0.1, 0.1).text(2)
    '0 [-0.1, 0.1]'
    """

    estimate: float
    low: float
    high: float

    def text(self, digits: int = 3) -> str:
        """The estimate and its interval, e.g. ``"0.404 [0.352, 0.451]"``."""
        est, lo, hi = (_g(float(v), digits) for v in self)
        return f"{est} [{lo}, {hi}]"

    def checked(self, name: str) -> Interval:
        """The interval, after checking it is finite and ordered (a clear error otherwise)."""
        est, lo, hi = (_finite(v, f"{name}.{f}") for v, f in zip(self, self._fields, strict=True))
        if lo > hi:
            raise ValueError(f"{name}: low {lo} is above high {hi}")
        return Interval(est, lo, hi)


@dataclass(frozen=True)
class Outcome:
    """The outcome of a criterion: the word to print, and the rule and numbers behind it."""

    holds: bool
    word: str
    criterion: str
    detail: str

    def __str__(self) -> str:
        return f"{self.word} ({self.criterion}: {self.detail})"

    def __bool__(self) -> bool:
        return self.holds


def separates(
    a: Interval,
    b: Interval,
    *,
    yes: str = "separates from",
    no: str = "does not separate from",
    digits: int = 3,
) -> Outcome:
    """Whether two estimates separate: their 95 % intervals do not overlap (touching overlaps).

    Non-overlap of two 95 % intervals is a conservative test of a difference; use it for words
    such as "separates", "lower than", "differ".
    """
    a, b = a.checked("a"), b.checked("b")
    holds = a.high < b.low or b.high < a.low
    return Outcome(
        holds=holds,
        word=yes if holds else no,
        criterion="the two 95 % intervals do not overlap",
        detail=f"{a.text(digits)} vs {b.text(digits)}",
    )


def exceeds(
    a: float,
    b: float,
    *,
    margin: float,
    margin_name: str = "the margin",
    yes: str = "exceeds",
    no: str = "does not exceed",
    digits: int = 3,
) -> Outcome:
    """Whether ``a`` exceeds ``b`` by more than a stated ``margin`` (``a - b > margin``).

    The margin is a yardstick the chapter names (``margin_name``): an interval's width, the
    seed-to-seed spread, the retraining noise. Use it for "found", "moved as planted", "much
    more".

    Examples
    --------
    >>> str(exceeds(1.0, 0.4, margin=0.25, margin_name="the seed spread"))
    'exceeds (the difference is larger than the seed spread, 0.25: 1 − 0.4 = 0.6)'
    """
    a, b = _finite(a, "a"), _finite(b, "b")
    margin = _finite(margin, "margin")
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    diff = a - b
    holds = diff > margin
    return Outcome(
        holds=holds,
        word=yes if holds else no,
        criterion=f"the difference is larger than {margin_name}, {_g(margin, digits)}",
        detail=f"{_g(a, digits)} − {_g(b, digits)} = {_g(diff, digits)}",
    )


def paired_bootstrap_difference(
    x: np.ndarray,
    y: np.ndarray,
    *,
    statistic: Callable[[np.ndarray], float],
    n_bootstrap: int,
    random_state: int,
    level: float = 0.95,
) -> Interval:
    """The difference ``statistic(x) - statistic(y)`` with a paired percentile bootstrap.

    ``x`` and ``y`` have the same rows (units: embeddings, models, documents) along their first
    axis; each bootstrap draw resamples the *same* rows for both, so what the two statistics
    share (the units) cancels and only their difference varies. ``statistic`` takes the
    resampled array (rows along the first axis) and returns a number, e.g. a Spearman
    correlation between its two columns. Draws where either statistic is undefined (NaN, e.g.
    a constant resample) are dropped; an error is raised if more than half are.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = rng.normal(size=40)
    >>> x = np.c_[t + rng.normal(scale=0.1, size=40), t]  # tracks t closely
    >>> y = np.c_[rng.normal(size=40), t]  # unrelated to t
    >>> r = lambda m: float(np.corrcoef(m[:, 0], m[:, 1])[0, 1])
    >>> d = paired_bootstrap_difference(x, y, statistic=r, n_bootstrap=500, random_state=0)
    >>> d.low > 0
    True
    """
    x, y = np.asarray(x), np.asarray(y)
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same rows (paired), got {len(x)} and {len(y)}")
    if len(x) < 3:
        raise ValueError(f"a paired bootstrap needs at least 3 rows, got {len(x)}")
    if n_bootstrap < 1:
        raise ValueError(f"n_bootstrap must be >= 1, got {n_bootstrap}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    estimate = statistic(x) - statistic(y)
    if not math.isfinite(estimate):
        raise ValueError(
            "the statistic is undefined on the full data (NaN): a constant column? "
            "A difference cannot be bootstrapped from it"
        )
    rng = np.random.default_rng(random_state)
    draws = np.empty(n_bootstrap)
    for i in range(n_bootstrap):
        rows = rng.integers(0, len(x), len(x))
        draws[i] = statistic(x[rows]) - statistic(y[rows])
    ok = np.isfinite(draws)
    if ok.sum() < n_bootstrap / 2:
        raise ValueError(
            f"{n_bootstrap - ok.sum()} of {n_bootstrap} bootstrap draws are undefined (NaN): "
            "too few distinct rows for this statistic"
        )
    alpha = (1 - level) / 2
    lo, hi = np.quantile(draws[ok], [alpha, 1 - alpha])
    return Interval(float(estimate), float(lo), float(hi))


def differs(
    diff: Interval,
    *,
    yes: str = "differs",
    no: str = "does not differ",
    digits: int = 3,
) -> Outcome:
    """Whether a difference is established: its 95 % interval excludes 0.

    Use with :func:`paired_bootstrap_difference` for "tracks ... better", "much less".
    """
    diff = diff.checked("diff")
    holds = diff.low > 0 or diff.high < 0
    return Outcome(
        holds=holds,
        word=yes if holds else no,
        criterion="the 95 % interval of the difference excludes 0",
        detail=f"difference {diff.text(digits)}",
    )
