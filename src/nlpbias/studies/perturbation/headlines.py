"""The perturbation chapter's headline rows for the reproduction scorecard.

- ``top1_share`` and ``top10_share`` (seed 004, ``data/reported/wajdalevie2021.yaml``): the top
  1 % of documents by differential bias hold 48.8 % of the summed ``|ΔB|``, the top 10 % hold
  92.2 %, averaged over the WEAT tests. Ours: the same shares averaged over the usable word sets
  (:func:`~nlpbias.studies.perturbation.bias_concentration.concentration_table`'s ``mean``
  row), with a bootstrap interval over the documents
  (:func:`~nlpbias.studies.perturbation.bias_concentration.concentration_interval`).
- ``retraining_agreement`` (Brunet et al., 2019): removing the documents the influence function
  singles out changes the effect size as predicted. The seed gives no number for it, and the
  project has no verified one from Brunet et al., so the claim is the direction only (agreement
  is positive). Ours: Pearson's r between predicted and retrained ΔB over the removal sets, with
  a Fisher-z 95 % interval (none with fewer than 4 sets).

The documents are real text on every profile (the Wikipedia summaries on ``smoke`` and ``demo``,
Gutenberg blocks on ``paper``), so these rows are tested on every profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.scorecard import headline
from nlpbias.studies.perturbation.bias_concentration import concentration_interval

__all__ = ["SECTIONS", "headlines"]

#: Labels (anchors) of the chapter sections that show the numbers.
SECTIONS = {"concentration": "perturbation-concentration", "validation": "perturbation-validation"}
_CORPUS = {"wiki": "Wikipedia summaries", "gutenberg": "Gutenberg book blocks"}


def _fisher_interval(x: np.ndarray, y: np.ndarray) -> tuple[float, float | None, float | None]:
    """Pearson's r and its Fisher-z 95 % interval (None below 4 pairs or for |r| = 1)."""
    from scipy import stats

    res = stats.pearsonr(x, y)
    r = float(res.statistic)
    if len(x) < 4 or not np.isfinite(r) or abs(r) >= 1.0:
        return r, None, None
    ci = res.confidence_interval(confidence_level=0.95)
    return r, float(ci.low), float(ci.high)


def headlines(
    tables: Mapping[str, pd.DataFrame],
    validation: pd.DataFrame,
    *,
    reported: Mapping[str, Any],
    source: str,
    n_resamples: int = 1000,
    random_state: int,
    chapter: str = "perturbation",
) -> list[dict[str, Any]]:
    """Headline rows of the chapter (see the module docstring).

    Parameters
    ----------
    tables : mapping
        Word set → per-document table with ``delta_b`` (:func:`~nlpbias.studies.perturbation.
        study.score_documents`).
    validation : pandas.DataFrame
        :func:`~nlpbias.studies.perturbation.study.validate` (``predicted``, ``actual``).
    reported : mapping
        ``load_reported("wajdalevie2021")``.
    source : {"wiki", "gutenberg"}
        The chapter's corpus (named in the rows).
    """
    corpus = _CORPUS.get(source, source)
    rows = []
    conc = concentration_interval(tables, n_resamples=n_resamples, random_state=random_state)
    n_docs = int(conc["n_documents"].iloc[0])
    for top, key in (("top 1%", "top1_share"), ("top 10%", "top10_share")):
        paper = 100 * float(reported["concentration"][top])
        share = conc.loc[top]
        rows.append(
            headline(
                study="perturbation",
                key=key,
                claim=(
                    f"The differential bias is concentrated: the {top} of documents hold "
                    f"{paper:.1f} % of it (seed 004, mean over its WEAT tests)."
                ),
                paper=paper,
                book=100 * float(share["share"]),
                ci_low=100 * float(share["ci_low"]),
                ci_high=100 * float(share["ci_high"]),
                interval=(
                    f"mean of {len(tables)} word sets; 95 % bootstrap over the {n_docs:,} "
                    f"documents ({corpus})"
                ),
                unit="% of the summed |ΔB|",
                data="real",
                chapter=chapter,
                section=SECTIONS["concentration"],
            )
        )
    pairs = validation[["predicted", "actual"]].dropna().to_numpy(float)
    book = low = high = None
    interval = "none: fewer than 3 removal sets"
    if len(pairs) >= 3:
        book, low, high = _fisher_interval(pairs[:, 0], pairs[:, 1])
        interval = f"Pearson's r over {len(pairs)} removal sets; " + (
            "Fisher-z 95 % interval" if low is not None else "none: too few sets for one"
        )
    rows.append(
        headline(
            study="perturbation",
            key="retraining_agreement",
            claim=(
                "Removing the documents the influence function singles out and retraining "
                "changes the effect size as predicted: predicted and actual changes agree "
                "(Brunet et al.)."
            ),
            paper=None,
            sign=1,
            book=book,
            ci_low=low,
            ci_high=high,
            interval=interval,
            unit="Pearson's r, predicted vs retrained ΔB",
            data="real",
            chapter=chapter,
            section=SECTIONS["validation"],
            note="the paper's own correlation is not in the project's sources",
        )
    )
    return rows
