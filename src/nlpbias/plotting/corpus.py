"""Figures of identity terms in labelled corpora that more than one chapter draws.

:func:`term_frequency_figure` is the analogue of Dixon et al.'s (2018) Table 1: the share of
toxic texts and of all texts that contain each identity term (the data chapter and the pinned-AUC
chapter draw it).
"""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from nlpbias.plotting.bars import paired_barh
from nlpbias.plotting.style import facet_frames, require_columns

__all__ = ["term_frequency_figure"]


def term_frequency_figure(
    freq: pd.DataFrame, *, by: str | None = "dataset", top: int = 12, min_count: int = 5
) -> Figure:
    """Share of toxic texts vs of all texts containing each term (Dixon et al. 2018, Table 1).

    Shows, per panel, the ``top`` terms with the highest ``ratio`` among those contained in at
    least ``min_count`` texts, as paired bars. The title says "top N" only where a panel had more
    terms than that; otherwise it shows every such term and says so.

    Parameters
    ----------
    freq : DataFrame
        Output of :func:`nlpbias.data.describe.identity_term_frequencies`.

    Examples
    --------
    >>> freq = pd.DataFrame({"term": ["a", "b"], "n_overall": [5, 9], "share_overall": [.1, .2],
    ...                      "share_toxic": [.3, .1], "ratio": [3.0, 0.5]})
    >>> sum(len(bars) for bars in term_frequency_figure(freq, top=1).axes[0].containers)
    2
    """
    require_columns(
        freq,
        ["term", "n_overall", "share_toxic", "share_overall", "ratio"],
        "term_frequency_figure",
    )
    keep, cut = [], False
    for _, sub in facet_frames(freq, by):
        sub = sub[sub["n_overall"] >= min_count]
        cut = cut or len(sub) > top
        keep.append(sub.sort_values(["ratio", "term"], ascending=[False, True]).head(top))
    shown = pd.concat(keep, ignore_index=True) if keep else freq.iloc[:0]
    fig = paired_barh(
        shown,
        y="term",
        x=["share_toxic", "share_overall"],
        labels=["of toxic texts", "of all texts"],
        by=by,
        xlabel="share of texts containing the term",
    )
    which = f"top {top} by ratio" if cut else "every term, by ratio"  # "top 12" only if cut
    fig.suptitle(f"Identity terms in toxic texts vs overall ({which}, ≥ {min_count} texts)")
    return fig
