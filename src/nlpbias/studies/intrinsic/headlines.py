"""The intrinsic chapter's headline rows for the reproduction scorecard.

Caliskan et al. (2017, Table 1) found each of the ten IAT associations they tested in GloVe: one
row per WEAT test with a published effect size (the ``reported`` field of its word-set file).
Ours: the effect size on the chapter's base embedding with its 95 % bootstrap interval over the
target and attribute words (:func:`nlpbias.metrics.weat.weat`); the verdict follows that
interval, and the reason also gives the permutation test's p-value (``p_value``,
``p_method``) and says where the two disagree (see
:func:`nlpbias.studies.intrinsic.report.uncertainty_sentence`). The published values were
transcribed and not checked against the paper here; a row says so when its file does.
On ``smoke`` the base embedding is the planted stand-in (synthetic).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from nlpbias.core.scorecard import headline
from nlpbias.data.wordsets import load_wordset

__all__ = ["SECTION", "headlines"]

#: Label (anchor) of the chapter section with WEAT 1-10 beside the paper.
SECTION = "intrinsic-weat-glove"
#: Base embeddings that are synthetic stand-ins.
SYNTHETIC = ("planted",)


def headlines(
    results: pd.DataFrame,
    reported: pd.DataFrame,
    *,
    embedding: str,
    n_bootstrap: int,
    chapter: str = "intrinsic",
) -> list[dict[str, Any]]:
    """One headline row per published WEAT test (see the module docstring).

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`nlpbias.metrics.weat.weat_by_embedding` results on the base embedding
        (``query``, ``effect_size``, ``ci_low``, ``ci_high``, and ``p_value``, ``p_method`` where
        computed); a test missing here (excluded for
        missing words) gets no number.
    reported : pandas.DataFrame
        :func:`nlpbias.data.wordsets.reported_values` (``name`` or ``query``,
        ``reported_effect_size``, ``table``, ``verified``).
    embedding : str
        The base embedding's name (``"planted"`` is synthetic).
    n_bootstrap : int
        Resamples of the intervals (0: none).
    """
    reported = reported.rename(columns={"name": "query"})
    ours = results.set_index("query") if len(results) else pd.DataFrame()
    data = "synthetic" if embedding in SYNTHETIC else "real"
    rows = []
    for rep in reported.itertuples(index=False):
        title = load_wordset(rep.query).title
        test, _, what = title.partition(": ")
        book = ci_low = ci_high = p_value = None
        p_test = ""
        interval = f"none: the test is excluded from {embedding} (missing words)"
        if rep.query in ours.index:
            r = ours.loc[rep.query]
            book = float(r["effect_size"])
            if pd.notna(r.get("p_value")):
                p_value = float(r["p_value"])
                p_test = f"one-sided permutation test over the target words ({r['p_method']})"
            if n_bootstrap and pd.notna(r.get("ci_low")):
                ci_low, ci_high = float(r["ci_low"]), float(r["ci_high"])
                interval = f"95 % bootstrap over the words ({n_bootstrap:,} draws) on {embedding}"
            else:
                interval = f"none: no bootstrap in this run (n_bootstrap = {n_bootstrap})"
        rows.append(
            headline(
                study="intrinsic",
                key=rep.query.removeprefix("caliskan_"),
                claim=(
                    f"{test}, {what}: effect size {rep.reported_effect_size:g} in GloVe "
                    f"({rep.table})."
                ),
                paper=float(rep.reported_effect_size),
                book=book,
                ci_low=ci_low,
                ci_high=ci_high,
                interval=interval,
                unit="WEAT effect size d",
                data=data,
                chapter=chapter,
                section=SECTION,
                note="" if rep.verified else "the paper's value is not verified",
                p_value=p_value,
                test=p_test,
            )
        )
    return rows
