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
    freq: pd.DataFrame,
    *,
    by: str | None = "dataset",
    top: int = 12,
    min_count: int = 5,
    order_by: str | None = None,
) -> Figure:
    """Share of toxic texts vs of all texts containing each term (Dixon et al. 2018, Table 1).

    Shows, per panel, the ``top`` terms with the highest ``ratio`` among those contained in at
    least ``min_count`` texts, as paired bars. The title says "top N" only where a panel had more
    terms than that; otherwise it shows every such term and says so.

    With ``order_by`` (a panel, i.e. a value of the ``by`` column), every panel shows the same
    terms in the same order — that panel's top terms — so a term's bars can be compared across
    panels (before and after balancing, say); the title then states how many terms are shown.

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
    >>> two = pd.concat([freq.assign(s="before"), freq.assign(s="after", ratio=[0.5, 3.0])])
    >>> fig = term_frequency_figure(two, by="s", order_by="before")
    >>> [[t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes]
    [['a', 'b'], ['a', 'b']]
    """
    require_columns(
        freq,
        ["term", "n_overall", "share_toxic", "share_overall", "ratio"],
        "term_frequency_figure",
    )
    if order_by is None:
        keep, cut = [], False
        for _, sub in facet_frames(freq, by):
            sub = sub[sub["n_overall"] >= min_count]
            cut = cut or len(sub) > top
            keep.append(sub.sort_values(["ratio", "term"], ascending=[False, True]).head(top))
        shown = pd.concat(keep, ignore_index=True) if keep else freq.iloc[:0]
        which = f"top {top} by ratio" if cut else "every term, by ratio"  # "top 12" only if cut
    else:
        shown, which = _in_one_order(freq, by=by, panel=order_by, top=top, min_count=min_count)
    fig = paired_barh(
        shown,
        y="term",
        x=["share_toxic", "share_overall"],
        labels=["of toxic texts", "of all texts"],
        by=by,
        xlabel="share of texts containing the term",
    )
    fig.suptitle(f"Identity terms in toxic texts vs overall ({which}, ≥ {min_count} texts)")
    return fig


def _in_one_order(
    freq: pd.DataFrame, *, by: str | None, panel: str, top: int, min_count: int
) -> tuple[pd.DataFrame, str]:
    """Every panel's rows for ``panel``'s top terms, in its order; and the title's words."""
    if by is None or panel not in set(freq[by]):
        raise ValueError(
            f"term_frequency_figure: order_by={panel!r} is not a panel of by={by!r}; "
            f"panels: {sorted(set(freq[by])) if by else []}"
        )
    head = freq[(freq[by] == panel) & (freq["n_overall"] >= min_count)]
    order = list(head.sort_values(["ratio", "term"], ascending=[False, True])["term"].head(top))
    rank = {t: i for i, t in enumerate(order)}
    panels = {p: i for i, p in enumerate(dict.fromkeys(freq[by]))}
    shown = freq[freq["term"].isin(order)]
    shown = shown.iloc[
        sorted(
            range(len(shown)),
            key=lambda i: (panels[shown[by].iloc[i]], rank[shown["term"].iloc[i]]),
        )
    ]
    which = (
        f"the {len(order)} with the highest ratio {panel}"
        if len(order) < head["term"].nunique()
        else f"all {len(order)} terms, highest ratio {panel} first"
    )
    return shown, which
