"""The perturbation chapter's headline rows for the reproduction scorecard.

- ``top1_share`` and ``top10_share`` (seed 004, ``data/reported/wajdalevie2021.yaml``): the top
  1 % of documents by differential bias hold 48.8 % of the summed ``|ΔB|``, the top 10 % hold
  92.2 %, averaged over the WEAT tests. Ours: the same shares averaged over the usable word sets
  (:func:`~nlpbias.studies.perturbation.bias_concentration.concentration_table`'s ``mean``
  row), with a bootstrap interval over the documents
  (:func:`~nlpbias.studies.perturbation.bias_concentration.concentration_interval`). A share
  cannot be negative, so "no effect" is not 0 but the share expected without concentration
  (:func:`~nlpbias.studies.perturbation.bias_concentration.even_share`: ``|ΔB|`` spread evenly
  over the documents with ΔB ≠ 0), passed as the row's ``null_value``: the interval must lie
  above it.
- ``retraining_agreement`` (Brunet et al., 2019): removing the documents the influence function
  singles out changes the effect size as predicted. The seed gives no number for it, and the
  project has no verified one from Brunet et al., so the claim is the direction only (agreement
  is positive). Ours: Pearson's r between predicted and retrained ΔB over the removal sets,
  with a percentile bootstrap over the removal sets and the retraining seeds
  (:func:`~nlpbias.studies.perturbation.agreement.agreement_interval`: the interval the
  chapter's runs allow, no extra fits); the row's note gives the random sets' largest deviation
  from prediction and says when one seed leaves the retraining noise out of the interval.
- ``within_area_correlation`` and ``across_area_correlation`` (seed 004: "some (greater than
  10 %) correlation between WEAT sets in the same general area of bias ..., and slight (roughly
  5 %) correlation across"): the mean Pearson r of ΔB over the pairs of usable tests within an
  area and across areas, each pair over the documents that touch both, with a bootstrap interval
  that resamples the documents once for all pairs
  (:func:`~nlpbias.studies.perturbation.bias_correlation.area_correlations`). "Greater than
  10 %" is the range [0.10, 1]; "roughly 5 %" the point 0.05. Where the corpus leaves no pair
  of a kind (the race and intersectional tests are name lists that pre-1930 books and
  Wikipedia summaries barely contain), the row has no number and its interval says why.

The documents are real text on every profile (the Wikipedia summaries on ``smoke`` and ``demo``,
Gutenberg blocks on ``paper``), so these rows are tested on every profile. Every step is
deterministic on one machine, and the numbers agree exactly across the machines compared in
issue 27, so the rows keep the default stability.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.scorecard import headline
from nlpbias.studies.perturbation.agreement import (
    MIN_SETS,
    agreement_interval,
    retraining_noise,
)
from nlpbias.studies.perturbation.bias_concentration import concentration_interval

__all__ = ["SECTIONS", "headlines"]

#: Labels (anchors) of the chapter sections that show the numbers.
SECTIONS = {
    "concentration": "perturbation-concentration",
    "validation": "perturbation-validation",
    "relations": "perturbation-relations",
}
_CORPUS = {"wiki": "Wikipedia summaries", "gutenberg": "Gutenberg book blocks"}


def headlines(
    tables: Mapping[str, pd.DataFrame],
    validation: pd.DataFrame,
    *,
    reported: Mapping[str, Any],
    source: str,
    n_resamples: int,
    random_state: int,
    chapter: str = "perturbation",
    correlations: pd.DataFrame | None = None,
    correlation_note: str = "",
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
    n_resamples : int
        Bootstrap draws of the intervals (the chapter's ``n_resamples``).
    correlations : pandas.DataFrame, optional
        :func:`~nlpbias.studies.perturbation.bias_correlation.area_correlations` of the usable
        tests (None: the corpus left no within- and across-area pair; the rows then have no
        number, and ``correlation_note`` says why).
    """
    corpus = _CORPUS.get(source, source)
    rows = []
    conc = concentration_interval(tables, n_resamples=n_resamples, random_state=random_state)
    n_docs = int(conc["n_documents"].iloc[0])
    for top, key in (("top 1%", "top1_share"), ("top 10%", "top10_share")):
        paper = 100 * float(reported["concentration"][top])
        share = conc.loc[top]
        even = 100 * float(share["even"])
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
                null_value=even,
                interval=(
                    f"mean of {len(tables)} word sets; 95 % bootstrap over the {n_docs:,} "
                    f"documents ({corpus})"
                ),
                unit="% of the summed |ΔB|",
                data="real",
                chapter=chapter,
                section=SECTIONS["concentration"],
                note=(
                    f"the no-effect value, {even:.1f} %, is the {top} share without "
                    f"concentration: |ΔB| spread evenly over the "
                    f"{100 * float(share['nonzero']):.1f} % of documents with ΔB ≠ 0"
                    + (
                        f"; the paper's {paper:.1f} % is not above it, so this corpus cannot "
                        "show the paper's concentration"
                        if even >= paper
                        else ""
                    )
                ),
            )
        )
    agree = agreement_interval(validation, n_resamples=n_resamples, random_state=random_state)
    n_sets, n_seeds = int(agree["n_sets"]), int(agree["n_seeds"])
    book = low = high = None
    interval = f"none: {n_sets} removal sets, fewer than 3"
    if n_sets >= 3:
        book = float(agree["r"])
        seeds = "1 retraining seed" if n_seeds == 1 else f"{n_seeds} retraining seeds"
        interval = f"Pearson's r over {n_sets} removal sets and {seeds}; "
        if np.isfinite(agree["ci_low"]):
            low, high = float(agree["ci_low"]), float(agree["ci_high"])
            interval += f"95 % bootstrap over the sets{' and the seeds' if n_seeds > 1 else ''}"
        else:  # no interval the runs allow: r is only known to lie in [-1, 1]
            low, high = -1.0, 1.0
            interval += (
                f"no bootstrap with fewer than {MIN_SETS} sets, so the whole range of r, "
                "[-1, 1], stands in for the interval"
            )
    notes = ["the paper's own correlation is not in the project's sources"]
    if "kind" in validation.columns and (validation["kind"] == "random").any():
        rand = validation[validation["kind"] == "random"]
        dev = (rand["actual"] - rand["predicted"]).abs()
        worst = dev.idxmax()
        notes.append(
            f"the random sets deviate from prediction by up to {dev.max():.3f} (`{worst}`: "
            f"predicted {rand.loc[worst, 'predicted']:.3f}, retrained "
            f"{rand.loc[worst, 'actual']:.3f})"
        )
    if retraining_noise(validation) is None:
        notes.append("one seed: the interval does not hold the retraining noise")
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
            note="; ".join(notes),
        )
    )
    rows.extend(_correlation_rows(correlations, correlation_note, corpus, chapter))
    return rows


def _correlation_rows(
    means: pd.DataFrame | None, why: str, corpus: str, chapter: str
) -> list[dict[str, Any]]:
    """Seed 004's "within-area > 10 %, across-area about 5 %" as two rows (mean Pearson r)."""
    claims = {
        "within_area_correlation": (
            "within area",
            "The differential bias of WEAT tests in the same area of bias (e.g. two gender "
            "tests) correlates across documents by more than 10 % (seed 004).",
            (0.10, 1.0),
        ),
        "across_area_correlation": (
            "across areas",
            "Across areas of bias (gender vs race) the differential bias correlates only "
            "slightly, about 5 % (seed 004): gender and racial bias are not strongly correlated.",
            0.05,
        ),
    }
    rows = []
    for key, (which, claim, paper) in claims.items():
        book = low = high = None
        interval = "none: " + (why or "no pair of tests of this kind")
        note = "r read as Pearson's r over the documents that touch both tests"
        if means is not None and int(means.loc[which, "pairs"]):
            m = means.loc[which]
            book, low, high = float(m["pearson"]), float(m["pearson_low"]), float(m["pearson_high"])
            interval = (
                f"mean of {int(m['pairs'])} test pair(s); 95 % bootstrap over the documents "
                f"({corpus}), all pairs resampled together"
            )
            if int(m.get("pairs_sharing_words", 0)):
                note += (
                    f"; {int(m['pairs_sharing_words'])} of the {int(m['pairs'])} pairs share "
                    "words (e.g. the same gender terms), which builds part of the correlation in"
                )
        rows.append(
            headline(
                study="perturbation",
                key=key,
                claim=claim,
                paper=paper,
                book=book,
                ci_low=low,
                ci_high=high,
                interval=interval,
                unit="Pearson's r of ΔB",
                data="real",
                chapter=chapter,
                section=SECTIONS["relations"],
                note=note,
            )  # fmt: skip
        )
    return rows
