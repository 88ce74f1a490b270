"""Sentences of the intrinsic chapter computed from its tables, so that its prose follows the run.

- :func:`uncertainty_sentence`: the two uncertainties beside every WEAT effect size (the
  permutation p-value and the bootstrap interval over the words), where they disagree, and which
  one the scorecard's verdict uses and why.
- :func:`rnsb_spread_sentence`: how much the RNSB scores vary over their seeded runs.
- :func:`round_noise`: values below a tolerance (floating-point noise, e.g. ``8.5e-17``) shown
  as 0.
"""

from __future__ import annotations

import pandas as pd

from nlpbias.core.text import NOISE, fmt_num
from nlpbias.data.wordsets import load_wordset

__all__ = ["NOISE", "rnsb_spread_sentence", "round_noise", "short_name", "uncertainty_sentence"]


def round_noise(values: pd.Series | pd.DataFrame, tol: float = NOISE) -> pd.Series | pd.DataFrame:
    """``values`` with every magnitude below ``tol`` set to 0 (NaN kept), for display.

    Examples
    --------
    >>> round_noise(pd.Series([8.5e-17, -1e-13, 0.25, None])).tolist()
    [0.0, 0.0, 0.25, nan]
    """
    return values.mask(values.abs() < tol, 0.0)


def short_name(query: str) -> str:
    """The short name of a word-set test, e.g. ``"WEAT 3"`` for ``caliskan_weat3`` (the part of
    its title before the colon; the query's name where it has no word-set file)."""
    try:
        return load_wordset(query).title.partition(": ")[0]
    except (FileNotFoundError, KeyError, ValueError):
        return query


def _names(queries: list[str]) -> str:
    names = [short_name(q) for q in queries]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _p(p: float) -> str:
    return fmt_num(p, 2)


def uncertainty_sentence(
    results: pd.DataFrame, *, alpha: float = 0.05, n_bootstrap: int, n_resamples: int
) -> str:
    """Which uncertainty the WEAT rows' verdicts use, and where the two the chapter computes
    disagree.

    A test is *significant* when its one-sided permutation p-value is at most ``alpha``; its
    *interval excludes 0* when the 95 % bootstrap interval over the words lies on one side of
    zero. The two answer different questions (see the chapter's method): the permutation test
    takes the word lists as given and asks whether this split of the target words is
    surprising; the bootstrap resamples the words and asks whether the effect survives another
    draw of lists like these. The scorecard's verdict uses the interval, because the paper's
    claim is about the concepts the lists sample, not about the lists.

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`nlpbias.metrics.weat.weat_by_embedding` results (``query``, ``effect_size``,
        ``ci_low``, ``ci_high``, ``p_value``).
    alpha : float
        Level of the permutation test.
    n_bootstrap, n_resamples : int
        The run's bootstrap draws and permutations (named in the sentence).

    Examples
    --------
    >>> r = pd.DataFrame({"query": ["caliskan_weat2", "caliskan_weat3"],
    ...                   "effect_size": [1.5, 0.95], "ci_low": [1.1, -0.27],
    ...                   "ci_high": [1.7, 1.5], "p_value": [1e-4, 1e-4]})
    >>> print(uncertainty_sentence(r, n_bootstrap=1000, n_resamples=10000))  # doctest: +ELLIPSIS
    Each effect size has two uncertainties. ... 1 is significant ... They disagree on 1 test (WEAT 3: p = 0.0001, interval [-0.27, 1.5] includes 0): ...
    """  # noqa: E501
    need = {"query", "effect_size", "ci_low", "ci_high", "p_value"}
    missing = need - set(results.columns)
    if missing:
        raise KeyError(f"uncertainty_sentence: results lack column(s) {sorted(missing)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    lead = (
        "Each effect size has two uncertainties. The one-sided permutation test over the target "
        f"words ({n_resamples:,} permutations, or every split where there are fewer) takes the "
        "word lists as given and asks whether this split of the target words is surprising; "
        f"the 95 % bootstrap interval over the words ({n_bootstrap:,} draws) resamples the "
        "lists and asks whether the effect survives another draw of words like these."
    )
    if results.empty:
        return lead + " This run scored no test."
    with_ci = results.dropna(subset=["ci_low", "ci_high"])
    if with_ci.empty:
        return lead + (
            " This run has no bootstrap intervals (`n_bootstrap` = 0), so the scorecard judges "
            "each effect size on its point."
        )
    significant = with_ci["p_value"] <= alpha
    excludes = (with_ci["ci_low"] > 0) | (with_ci["ci_high"] < 0)
    both = int((significant & excludes).sum())
    p_only = with_ci[significant & ~excludes]
    ci_only = with_ci[~significant & excludes]
    n = len(with_ci)
    verb = "is" if both == 1 else "are"
    text = [
        lead,
        f"Of the {n} tests with both, {both} {verb} significant at p ≤ {alpha:g} with an "
        "interval that excludes 0.",
    ]
    if len(p_only):
        cases = "; ".join(
            f"{short_name(r.query)}: p = {_p(r.p_value)}, interval "
            f"[{fmt_num(r.ci_low)}, {fmt_num(r.ci_high)}] includes 0"
            for r in p_only.itertuples(index=False)
        )
        text.append(
            f"They disagree on {len(p_only)} test{'s' if len(p_only) != 1 else ''} ({cases}): "
            "the association is clear for the lists as printed, but another draw of words "
            "could erase it."
        )
    if len(ci_only):
        text.append(
            f"On {_names(list(ci_only['query']))} the interval excludes 0 but p > {alpha:g}."
        )
    if not len(p_only) and not len(ci_only):
        text.append("The two agree on every test.")
    text.append(
        "The scorecard's verdicts use the bootstrap interval"
        + (", the stricter of the two here" if len(p_only) and not len(ci_only) else "")
        + ": "
        "Caliskan et al.'s claim is about the concepts (flowers, pleasantness, names of a "
        "group), which the word lists only sample, so a test counts as reproduced only where "
        "the effect survives resampling the words. Each row's reason also gives the "
        "permutation p-value."
    )
    return " ".join(text)


def rnsb_spread_sentence(scores: pd.DataFrame, *, n_runs: int, tol: float = NOISE) -> str:
    """How much the RNSB scores vary over their ``n_runs`` seeded runs (the ``std`` column of
    :func:`nlpbias.metrics.rnsb.rnsb_table`); a spread below ``tol`` is floating-point noise.

    Examples
    --------
    >>> s = pd.DataFrame({"name": ["a", "a"], "variant": ["signed", "kl"],
    ...                   "score": [0.3, 0.4], "std": [8.5e-17, 1.5e-16]})
    >>> print(rnsb_spread_sentence(s, n_runs=10))  # doctest: +ELLIPSIS
    Over the 10 runs of each score, the largest standard deviation is 0 up to floating-point rounding (below 1e-12): ...
    >>> s.loc[1, "std"] = 0.02
    >>> print(rnsb_spread_sentence(s, n_runs=10))  # doctest: +ELLIPSIS
    Over the 10 runs of each score, the largest standard deviation is 0.02 (a, kl): ...
    """  # noqa: E501
    need = {"name", "variant", "std"}
    missing = need - set(scores.columns)
    if missing:
        raise KeyError(f"rnsb_spread_sentence: scores lack column(s) {sorted(missing)}")
    if n_runs < 2 or scores["std"].isna().all():
        return (
            f"With {n_runs} run{'s' if n_runs != 1 else ''} of each score there is no spread over "
            "seeds to report."
        )
    worst = scores.loc[scores["std"].abs().idxmax()]
    if abs(worst["std"]) < tol:
        return (
            f"Over the {n_runs} runs of each score, the largest standard deviation is 0 up to "
            f"floating-point rounding (below {tol:g}): with all attribute words used for "
            "training (no hold-out), liblinear's logistic regression is deterministic, so "
            "averaging over seeds, as the paper does, changes nothing here."
        )
    return (
        f"Over the {n_runs} runs of each score, the largest standard deviation is "
        f"{fmt_num(worst['std'], 2)} ({worst['name']}, {worst['variant']}): the seeded runs "
        "differ, and the table shows their mean."
    )
