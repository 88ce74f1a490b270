"""Intersectional bias beside its single-axis components (seed 004's second question).

Seed 004 asks how the bias metric changes "when considering intersectional bias". An
intersectional test compares the names of two groups that differ on two axes at once (e.g.
African-American women's names vs European-American men's names, Guo & Caliskan 2021) on
attributes tied to the intersection. Its **components** keep the same attributes and collapse
one axis: the race component compares both genders' names of one race with both genders' of
the other; the gender component compares women's names of both races with men's. The word-set
file of an intersectional test names its components (field ``components`` of
``data/wordsets/*.yaml``).

:func:`intersectional_effects` measures the test and its components on the same embedding
(effect size, one-sided permutation p-value and a bootstrap interval over the words, from
:func:`nlpbias.metrics.weat.weat`); a test or component whose lists lose more than
``max_missing`` of their words to the vocabulary is reported as *not testable here* with the
missing words, never dropped. :func:`intersectional_summary` puts each test beside its
components and states whether the intersectional effect exceeds both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["AXES", "intersectional_effects", "intersectional_sentence", "intersectional_summary"]

#: The rows of each intersectional test: itself, then its components.
AXES = ("intersectional", "race", "gender")


def _components(name: str, folder: Any) -> dict[str, str]:
    from nlpbias.data.wordsets import load_wordset

    comps = load_wordset(name, folder=folder).components
    if not comps:
        raise ValueError(
            f"word set {name!r} has no components; an intersectional test names its race and "
            "gender components (field 'components' of its file in data/wordsets/)"
        )
    missing = [axis for axis in AXES[1:] if axis not in comps]
    if missing:
        raise ValueError(f"word set {name!r} lacks component(s) {missing} (field 'components')")
    return dict(comps)


def intersectional_effects(
    embedding: Any,
    tests: Sequence[str],
    *,
    max_missing: float,
    n_permutations: int,
    n_bootstrap: int,
    random_state: int,
    lowercase: bool = True,
    folder: str | Path | None = None,
) -> pd.DataFrame:
    """Effect size, p-value and interval of each intersectional test and of its components.

    Parameters
    ----------
    embedding : gensim KeyedVectors or Mapping[str, array-like]
        One embedding; every row is measured on it.
    tests : sequence of str
        Intersectional word sets (with ``components``).
    max_missing : float
        Largest share of a list that may be out of the vocabulary (else: not testable here).
    n_permutations, n_bootstrap : int
        Permutations of the one-sided p-value; bootstrap resamples of the interval over words.
    random_state : int
    lowercase : bool, default True
        Look words up lowercased (for an uncased embedding).
    folder : str or Path, optional
        Folder of the word-set files (default: the project's ``data/wordsets/``).

    Returns
    -------
    pandas.DataFrame
        One row per (test, axis), index ``(test, axis)``: ``wordset``, ``testable``,
        ``effect_size``, ``ci_low``, ``ci_high``, ``p_value``, ``words`` (used, all four
        lists), ``missing`` (out of the vocabulary, by list), ``reason`` (why not testable).

    Raises
    ------
    ValueError
        No tests, or a test without components.
    """
    from nlpbias.studies.perturbation.effects import measure_tests

    if not tests:
        raise ValueError("no intersectional tests given; pass word sets with 'components'")
    frames = []
    for test in tests:
        names = {"intersectional": test, **_components(test, folder)}
        rows = measure_tests(
            embedding, [names[axis] for axis in AXES], max_missing=max_missing,
            n_permutations=n_permutations, n_bootstrap=n_bootstrap, random_state=random_state,
            lowercase=lowercase, folder=folder,
        )  # fmt: skip
        rows = rows.reset_index()
        rows.insert(0, "axis", list(AXES))
        rows.insert(0, "test", test)
        frames.append(rows)
    return pd.concat(frames, ignore_index=True).set_index(["test", "axis"])


def intersectional_summary(effects: pd.DataFrame) -> pd.DataFrame:
    """Each intersectional test beside its components, and whether it exceeds both.

    Returns
    -------
    pandas.DataFrame
        One row per test: the effect size per axis (``intersectional``, ``race``, ``gender``),
        ``exceeds_both`` (True/False; missing when a row is not testable), and
        ``beyond_intervals``: the intersectional interval lies above both components' intervals
        (a difference the word sample cannot explain) — True/False, missing when not testable.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_product([["t"], ["intersectional", "race", "gender"]])
    >>> e = pd.DataFrame({"testable": True, "effect_size": [1.2, 0.5, 0.9],
    ...                   "ci_low": [1.0, 0.2, 0.6], "ci_high": [1.4, 0.8, 1.1]}, index=idx)
    >>> intersectional_summary(e)[["exceeds_both", "beyond_intervals"]].iloc[0].tolist()
    [True, False]
    """
    out = []
    for test, rows in effects.groupby(level=0, sort=False):
        rows = rows.droplevel(0)
        rec: dict[str, Any] = {"test": test}
        rec.update({axis: rows.loc[axis, "effect_size"] for axis in AXES})
        if bool(rows["testable"].all()):
            comps = rows.loc[list(AXES[1:])]
            es = rows.loc["intersectional"]
            rec["exceeds_both"] = bool((es["effect_size"] > comps["effect_size"]).all())
            rec["beyond_intervals"] = bool((es["ci_low"] > comps["ci_high"]).all())
        else:
            rec["exceeds_both"] = pd.NA
            rec["beyond_intervals"] = pd.NA
        out.append(rec)
    return pd.DataFrame(out).set_index("test")


def intersectional_sentence(
    summary: pd.DataFrame, *, labels: Mapping[str, str] | None = None
) -> str:
    """Seed 004's second question answered in one paragraph from :func:`intersectional_summary`.

    Examples
    --------
    >>> s = pd.DataFrame({"intersectional": [1.2], "race": [0.5], "gender": [0.9],
    ...                   "exceeds_both": [True], "beyond_intervals": [False]}, index=["t"])
    >>> intersectional_sentence(s)  # doctest: +NORMALIZE_WHITESPACE
    'Of 1 intersectional test testable here, 1 has a larger effect size than both of its
    single-axis components (t: 1.20 vs race 0.50, gender 0.90), 0 beyond the bootstrap intervals.'
    """
    labels = dict(labels or {})
    testable = summary[summary["exceeds_both"].notna()]
    lost = [labels.get(t, t) for t in summary.index if t not in testable.index]
    n = len(testable)
    if n == 0:
        return (
            "No intersectional test is testable here: every one loses too many words to the "
            f"vocabulary ({', '.join(lost)}); the question cannot be answered on this embedding."
        )
    exceed = testable[testable["exceeds_both"].astype(bool)]
    beyond = int(testable["beyond_intervals"].astype(bool).sum())
    detail = "; ".join(
        f"{labels.get(t, t)}: {r['intersectional']:.2f} vs race {r['race']:.2f}, "
        f"gender {r['gender']:.2f}"
        for t, r in testable.iterrows()
    )
    plural = "test" if n == 1 else "tests"
    out = (
        f"Of {n} intersectional {plural} testable here, {len(exceed)} "
        f"{'has' if len(exceed) == 1 else 'have'} a larger effect size than both of its "
        f"single-axis components ({detail}), {beyond} beyond the bootstrap intervals."
    )
    if lost:
        out += f" Not testable here (too many words missing): {', '.join(lost)}."
    return out
