"""The figure of the seed-to-seed spread: is a person's difference from the base model larger?

:func:`seed_spread_figure` draws, per person and concept, the difference person − base of each
fine-tuning seed, the range over the seeds and the rule of
:func:`nlpbias.studies.scoring.seeds.exceeds_seed_spread` (the band mean ± range, coloured where
it stays clear of zero). Built without pyplot, like every figure of the book.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from nlpbias.plotting import PALETTE, legend_below, new_figure
from nlpbias.plotting import require_columns as _need
from nlpbias.studies.scoring.seeds import exceeds_seed_spread

__all__ = ["COUNTS_COLOUR", "DELTA_XLABEL", "SEED_MARKERS", "seed_spread_figure"]

#: Axis label of the difference axis: left = the person's model is more pro-male than the base.
DELTA_XLABEL = "bias: person − base model\n← more pro-male     more pro-female →"
#: Marker of each seed, in the order of the sorted seeds (repeated beyond eight seeds).
SEED_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Colour of the band mean ± range where the effect counts; grey where it does not.
COUNTS_COLOUR = PALETTE[0]
_GREY = "#8C8C8C"
_INK = "#262626"  # marks of a row whose effect does not count
_BAND = 0.42  # height of the band, in rows


def _rule(d: np.ndarray) -> bool | None:
    return exceeds_seed_spread(d) if d.size >= 2 else None


def seed_spread_figure(biases: pd.DataFrame) -> Figure:
    """Per person (panels) and concept (rows): each seed's difference from the base model.

    Parameters
    ----------
    biases : pandas.DataFrame
        :func:`nlpbias.studies.scoring.seeds.seed_biases` output: ``person``, ``seed``,
        ``concept``, ``difference`` (bias − base; positive = more pro-female than the base).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per person (two a row, one shared x axis symmetric around 0). In each row a
        marker per seed (:data:`SEED_MARKERS`), a line from the smallest to the largest
        difference (the range over seeds), a short vertical tick at their mean and, behind
        them, the band mean ± range. Where the band does not reach 0 (the effect counts) the
        band and the marks are in :data:`COUNTS_COLOUR`; elsewhere (or where one seed gives no
        range) the band is grey and the marks dark. A vertical line marks 0; one legend below
        the panels.

    Examples
    --------
    >>> b = pd.DataFrame({"person": ["Trump"] * 2, "seed": [0, 1],
    ...                   "concept": ["career"] * 2, "difference": [-0.3, -0.36]})
    >>> ax = seed_spread_figure(b).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['career']
    """
    what = "seed_spread_figure"
    _need(biases, ["person", "seed", "concept", "difference"], what)
    if biases.empty:
        raise ValueError(f"{what} got an empty frame; pass seed_biases' output")
    d_all = pd.to_numeric(biases["difference"], errors="coerce").to_numpy(float)
    if not np.isfinite(d_all).all():
        raise ValueError(f"{what}: column 'difference' has missing or non-numeric values")
    if biases.duplicated(["person", "seed", "concept"]).any():
        raise ValueError(f"{what}: a (person, seed, concept) occurs more than once; keep one")
    people = list(dict.fromkeys(biases["person"].astype(str)))
    concepts = list(dict.fromkeys(biases["concept"].astype(str)))
    seeds = sorted(biases["seed"].unique().tolist())
    marker = {s: SEED_MARKERS[i % len(SEED_MARKERS)] for i, s in enumerate(seeds)}
    fig, axes = new_figure(
        len(people),
        ncols=2,
        width=4.25 if len(people) > 1 else 6.0,
        height=1.4 + 0.42 * len(concepts),
        sharex=True,
    )
    reach = [float(np.abs(d_all).max())]
    for ax, person in zip(axes, people, strict=True):
        sub = biases[biases["person"].astype(str) == person]
        for y, concept in enumerate(concepts):
            rows = sub[sub["concept"].astype(str) == concept]
            if rows.empty:
                continue
            d = rows["difference"].to_numpy(float)
            mean, spread = float(d.mean()), float(d.max() - d.min())
            counts = _rule(d)
            ink = COUNTS_COLOUR if counts else _INK
            ax.barh(
                y, 2 * spread, left=mean - spread, height=_BAND, zorder=1, linewidth=0,
                color=COUNTS_COLOUR if counts else _GREY, alpha=0.3,
            )  # fmt: skip
            reach.append(abs(mean) + spread)
            ax.hlines(y, d.min(), d.max(), color=ink, linewidth=1.2, zorder=2)
            ax.vlines(mean, y - _BAND / 2, y + _BAND / 2, color=ink, linewidth=1.6, zorder=2)
            for seed, value in zip(rows["seed"], d, strict=True):
                ax.scatter(
                    [value], [y], marker=marker[seed], s=30, zorder=3,
                    facecolors="white", edgecolors=ink, linewidths=1.2,
                )  # fmt: skip
        ax.axvline(0, color="0.15", linewidth=1.2, linestyle="--", zorder=1.5)
        for i in range(1, len(concepts)):
            heavy = concepts[i] == "average"
            ax.axhline(i - 0.5, color="0.5" if heavy else "0.88", linewidth=0.8, zorder=0)
        ax.set_yticks(range(len(concepts)), concepts)
        ax.set_ylim(len(concepts) - 0.5, -0.5)
        ax.grid(axis="y", visible=False)
        ax.set_title(person)
        ax.set_xlabel(DELTA_XLABEL)
    lim = 1.1 * max(reach) or 1.0
    axes[0].set_xlim(-lim, lim)  # shared by every panel
    grey = (
        "mean ± range reaches 0: does not count"
        if len(seeds) >= 2
        else "one seed: no range, nothing counts"
    )
    handles = [
        Line2D([], [], linestyle="", marker=marker[s], markerfacecolor="white",
               markeredgecolor=_INK, label=f"seed {s}")
        for s in seeds
    ]  # fmt: skip
    handles += [
        Line2D([], [], color=_INK, linewidth=1.2, label="range over seeds, | at the mean"),
        Patch(color=COUNTS_COLOUR, alpha=0.3, label="mean ± range clear of 0: counts"),
        Patch(color=_GREY, alpha=0.3, label=grey),
        Line2D([], [], color="0.15", linewidth=1.2, linestyle="--", label="no difference (0)"),
    ]
    legend_below(fig, handles, [h.get_label() for h in handles])
    fig.suptitle(f"Person − base model, per fine-tuning seed ({len(seeds)} seeds)")
    return fig
