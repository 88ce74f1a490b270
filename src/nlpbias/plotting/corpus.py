"""Figures of identity terms in labelled corpora that more than one chapter draws.

:func:`term_frequency_figure` is the analogue of Dixon et al.'s (2018) Table 1: the share of
toxic texts and of all texts that contain each identity term; :func:`toxicity_by_length_figure`
the analogue of their Figure 1: the toxic share per length bucket, of all texts and of the texts
with each term. The data chapter and the pinned-AUC chapter draw both.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import PercentFormatter

from nlpbias.plotting.bars import paired_barh
from nlpbias.plotting.style import (
    PALETTE,
    facet_frames,
    legend_below,
    mark_empty,
    new_figure,
    require_columns,
)

__all__ = ["term_frequency_figure", "toxicity_by_length_figure"]


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


def toxicity_by_length_figure(tbl: pd.DataFrame, *, by: str | None = "dataset") -> Figure:
    """Toxic share per length bucket, all texts and per term (Dixon et al. 2018, Figure 1).

    Parameters
    ----------
    tbl : DataFrame
        Output of :func:`nlpbias.data.describe.toxicity_by_length`. A subset's line has a gap
        at a bucket where the table has no cell for it (left out by ``min_count``).

    Examples
    --------
    >>> tbl = pd.DataFrame({"subset": ["all texts"] * 2, "bucket": [1, 2],
    ...                     "bucket_label": ["1–5", "6–9"], "toxic_share": [0.5, 0.25]})
    >>> len(toxicity_by_length_figure(tbl, by=None).axes[0].lines)
    1
    """
    require_columns(
        tbl, ["subset", "bucket", "bucket_label", "toxic_share"], "toxicity_by_length_figure"
    )
    facets = facet_frames(tbl, by)
    fig, axes = new_figure(len(facets), height=3.8)
    # one colour per term across all panels, so a term looks the same in every facet
    terms = [s for s in dict.fromkeys(tbl["subset"]) if s != "all texts"]
    colour = {t: PALETTE[i % (len(PALETTE) - 1)] for i, t in enumerate(terms)}
    for ax, (key, sub) in zip(axes, facets, strict=True):
        if sub.empty:
            mark_empty(ax, "length buckets")
            continue
        buckets = np.sort(sub["bucket"].unique())
        for name in ["all texts", *terms]:
            rows = sub[sub["subset"] == name]
            if rows.empty:
                continue
            style = (
                {"color": "black", "linestyle": "--", "linewidth": 2.5}
                if name == "all texts"
                else {"color": colour[name], "linewidth": 1.5}
            )
            # a bucket without a cell (too few texts) is a gap, not a line across it
            share = rows.set_index("bucket")["toxic_share"].reindex(buckets)
            ax.plot(buckets, share.to_numpy(dtype=float), marker="o", label=name, **style)
        ticks = sub.drop_duplicates("bucket").sort_values("bucket")
        names = ticks["bucket_label"].astype(str).tolist()
        if max(map(len, names), default=0) > 7:  # '394–852' beside '854–5000' run together
            names = [n.replace("–", "–\n", 1) for n in names]
        ax.set_xticks(ticks["bucket"].to_numpy(), names)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set(
            title=str(key) if key is not None else "",
            xlabel="length bucket (shortest to longest)",
            ylabel="share labelled toxic",
            ylim=(-0.02, 1.02),
        )
    handles = [Line2D([], [], color="black", linestyle="--", linewidth=2.5, marker="o")]
    handles += [Line2D([], [], color=colour[t], linewidth=1.5, marker="o") for t in terms]
    legend_below(fig, handles, ["all texts", *terms])
    return fig
