"""Figures of the masked-language-model chapter (Dong 2019 after Kurita et al. 2019; seed 003).

Every function returns a matplotlib Figure built without pyplot (see :mod:`nlpbias.plotting`) and
checks its input at the boundary: a missing column raises a one-line ``KeyError`` that names it,
an empty frame or a missing value a one-line ``ValueError``.

- :func:`bias_figure` — seed 003's Figure 5: the log-probability bias per attribute and model.
- :func:`topk_figure` — seed 003's Table 3 as a figure: the top-k targets per attribute.
- :func:`accuracy_figure` — masked-token accuracy of each person model before / after tuning.
- :func:`learning_curve_figure` — the base stand-in's accuracy against training time.
- :func:`claims_figure` — the models and concepts of Dong's cross-model claims: our bias with
  its band beside the paper's sign (and value where it printed one).
- :func:`person_curves_figure` — per person, the training and held-out loss and the held-out
  top-1 accuracy of each fine-tuning seed against the step (seed 003's Figures 1–2).
- :func:`ablation_figure` — the fine-tuning ablation (seed 003's Figure 3 choices): each
  choice's bias minus the reference recipe's, per seed and concept, with the seed rule's band.
- :func:`seed_spread_figure` — per person and concept, each fine-tuning seed's difference from
  the base model, the range over the seeds and the rule of
  :func:`nlpbias.studies.scoring.seeds.exceeds_seed_spread` (the band mean ± range, coloured
  where it stays clear of zero).

The sign convention is Dong's: bias = mean(female) − mean(male), so pro-female is to the right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator, PercentFormatter

from nlpbias.plotting import PALETTE, legend_below, legend_beside, new_figure
from nlpbias.plotting import require_columns as _need
from nlpbias.studies.scoring.ablation import paired_differences
from nlpbias.studies.scoring.seeds import exceeds_seed_spread

__all__ = [
    "ABSENT",
    "BIAS_XLABEL",
    "NO_INTERVAL",
    "COUNTS_COLOUR",
    "DELTA_XLABEL",
    "GENDER_COLOURS",
    "SEED_MARKERS",
    "CLAIM_MARKERS",
    "CURVE_COLOURS",
    "ablation_figure",
    "accuracy_figure",
    "bias_figure",
    "claims_figure",
    "learning_curve_figure",
    "person_curves_figure",
    "seed_spread_figure",
    "seeds_title",
    "topk_figure",
]

#: Axis label of every bias axis: left = pro-male, right = pro-female.
BIAS_XLABEL = "← pro-male     bias (female − male)     pro-female →"
#: Colour of each gender of target word.
GENDER_COLOURS: dict[str, str] = {"female": PALETTE[1], "male": PALETTE[0]}

_GREY = "#8C8C8C"
#: Written in a row (or cell) whose series this run does not have, so that a gap is not read as
#: a value of 0 or as a drawing error.
ABSENT = "not in this run"
#: Legend entry of :func:`bias_figure` where some point has no whisker.
NO_INTERVAL = "no whisker: no interval\n(the average of the concepts)"


def _nonempty(df: pd.DataFrame, what: str, rows: str) -> None:
    if df.empty:
        raise ValueError(f"{what} got an empty frame; pass at least one row of {rows}")


def _finite(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    for col in columns:
        values = pd.to_numeric(df[col], errors="coerce").to_numpy(float)
        bad = ~np.isfinite(values)
        if bad.any():
            raise ValueError(
                f"{what}: column {col!r} has {int(bad.sum())} missing or non-numeric value(s) "
                f"(first at row {df.index[bad][0]!r}); drop or fill those rows first"
            )


def _unique(df: pd.DataFrame, keys: Sequence[str], what: str) -> None:
    dup = df.duplicated(list(keys))
    if dup.any():
        first = tuple(df.loc[dup, list(keys)].iloc[0])
        raise ValueError(f"{what}: {list(keys)} {first} occurs more than once; keep one row each")


def _paper_label(model: str, paper_model: str | None) -> str:
    if paper_model is not None:
        return f"paper ({paper_model})"
    return "paper (BERT-base)" if model.lower().startswith("base") else f"paper ({model})"


def bias_figure(table: pd.DataFrame, *, paper_model: str | None = None) -> Figure:
    """Bias per attribute (rows) and model (dodged points with CI whiskers); seed 003, Figure 5.

    Parameters
    ----------
    table : DataFrame
        One row per model and attribute: ``model``, ``attribute``, ``bias`` (female − male mean
        prior-corrected log-probability; positive = pro-female), ``ci_low`` and ``ci_high`` (may
        be NaN, e.g. for the ``"average"`` row: no whisker is drawn), optional ``paper`` (seed
        003's value, NaN where it gives none).
    paper_model : str, optional
        Legend name of the paper's values: all hollow markers are then labelled
        ``"paper (<paper_model>)"``. By default each model's are labelled ``"paper (<model>)"``,
        and those of a model whose name starts with "base" ``"paper (BERT-base)"``.

    Returns
    -------
    matplotlib.figure.Figure
        Attributes top to bottom in order of first appearance, models in order of first
        appearance (one colour each, legend beside the axes), a vertical line at 0 and an x axis
        symmetric around 0 that contains every bias, CI bound and paper value.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["base", "base"], "attribute": ["career", "family"],
    ...                   "bias": [-0.5, 0.2], "ci_low": [-0.8, 0.0], "ci_high": [-0.2, 0.4]})
    >>> ax = bias_figure(t).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['career', 'family']
    """
    what = "bias_figure"
    _need(table, ["model", "attribute", "bias", "ci_low", "ci_high"], what)
    _nonempty(table, what, "(model, attribute, bias)")
    _finite(table, ["bias"], what)
    _unique(table, ["model", "attribute"], what)
    attrs = list(dict.fromkeys(table["attribute"].astype(str)))
    models = list(dict.fromkeys(table["model"].astype(str)))
    ypos = {a: i for i, a in enumerate(attrs)}
    n = len(models)
    step = min(0.8 / n, 0.25)
    offsets = {m: (j - (n - 1) / 2) * step for j, m in enumerate(models)}
    colours = {m: PALETTE[j % len(PALETTE)] for j, m in enumerate(models)}
    fig, (ax,) = new_figure(1, width=8.0, height=1.5 + len(attrs) * (0.3 + 0.1 * n))
    has_paper = "paper" in table.columns
    values = [table["bias"].to_numpy(float)]
    handles: list[object] = []
    paper_handles: dict[str, object] = {}
    no_interval = False
    for model in models:
        sub = table[table["model"].astype(str) == model]
        y = sub["attribute"].astype(str).map(ypos).to_numpy(float) + offsets[model]
        for attr in attrs:  # a series absent for this model: said, not left blank
            if attr not in set(sub["attribute"].astype(str)):
                ax.text(
                    0.5, ypos[attr] + offsets[model], f"{model}: {ABSENT}",
                    transform=ax.get_yaxis_transform(), ha="center", va="center",
                    fontsize="x-small", color=colours[model], style="italic",
                )  # fmt: skip
        lo, hi = sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        no_interval = no_interval or not ok.all()
        if ok.any():
            ax.hlines(y[ok], lo[ok], hi[ok], color=colours[model], linewidth=1.6, zorder=2)
            values += [lo[ok], hi[ok]]
        (line,) = ax.plot(
            sub["bias"].to_numpy(float),
            y,
            "o",
            color=colours[model],
            markersize=6,
            zorder=3,
            label=model,
        )
        handles.append(line)
        if has_paper:
            p = pd.to_numeric(sub["paper"], errors="coerce").to_numpy(float)
            okp = np.isfinite(p)
            if okp.any():
                label = _paper_label(model, paper_model)
                mark = ax.scatter(
                    p[okp],
                    y[okp],
                    marker="D",
                    s=42,
                    facecolors="none",
                    zorder=4,
                    edgecolors=colours[model] if paper_model is None else "0.15",
                    linewidths=1.4,
                    label=label,
                )
                paper_handles.setdefault(label, mark)
                values.append(p[okp])
    allv = np.concatenate(values)
    lim = 1.1 * float(np.abs(allv).max()) or 1.0
    ax.axvline(0, color="0.3", linewidth=0.9, zorder=1)
    for i in range(1, len(attrs)):
        heavy = attrs[i] == "average"
        ax.axhline(i - 0.5, color="0.5" if heavy else "0.85", linewidth=0.8, zorder=0)
    ax.set_yticks(range(len(attrs)), attrs)
    ax.set(xlim=(-lim, lim), ylim=(len(attrs) - 0.5, -0.5), xlabel=BIAS_XLABEL, ylabel="")
    ax.grid(axis="y", visible=False)
    ax.set_title("Gender bias by attribute (Kurita et al. 2019 log-probability score)")
    extra = []
    if no_interval:  # a point without whisker is a number without interval, not a tiny one
        extra.append(Line2D([], [], linestyle="", label=NO_INTERVAL))
    ax.legend(
        handles=handles + list(paper_handles.values()) + extra,
        loc="center left",
        bbox_to_anchor=(1.01, 0.5),
        fontsize="small",
    )
    return fig


def topk_figure(
    scores: pd.DataFrame, *, attributes: Sequence[str] | None = None, k: int = 6
) -> Figure:
    """The ``k`` best-scoring targets per model, one panel per attribute; seed 003, Table 3.

    Parameters
    ----------
    scores : DataFrame
        One row per model, attribute and target: ``model``, ``attribute``, ``target`` and
        ``score`` (mean prior-corrected log-probability over templates); optional ``gender``
        (``"female"`` / ``"male"``) colours the cells with :data:`GENDER_COLOURS`.
    attributes : sequence of str, optional
        Attributes to show (default: the first 3 in order of appearance).
    k : int, default 6
        Targets per model (fewer where a model has fewer).

    Returns
    -------
    matplotlib.figure.Figure
        Per panel a grid with one row per model and one column per rank; each cell holds the
        target and its score (ties broken alphabetically), coloured by gender (grey without it).
        ``k`` is capped at the most targets any model has for a shown attribute, so the title's
        count is the number of columns drawn; a model without scores for an attribute has
        :data:`ABSENT` written in its row.

    Examples
    --------
    >>> s = pd.DataFrame({"model": ["base"] * 2, "attribute": ["career"] * 2,
    ...                   "target": ["he", "she"], "score": [0.1, -0.3]})
    >>> [t.get_text() for t in topk_figure(s, k=2).axes[0].texts]
    ['he\\n0.10', 'she\\n−0.30']
    """
    what = "topk_figure"
    _need(scores, ["model", "attribute", "target", "score"], what)
    _nonempty(scores, what, "(model, attribute, target, score)")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"{what}: k must be a positive integer, got {k!r}")
    _finite(scores, ["score"], what)
    _unique(scores, ["model", "attribute", "target"], what)
    df = scores.assign(
        model=scores["model"].astype(str),
        attribute=scores["attribute"].astype(str),
        target=scores["target"].astype(str),
        score=scores["score"].astype(float),
    )
    present = list(dict.fromkeys(df["attribute"]))
    attrs = present[:3] if attributes is None else [str(a) for a in attributes]
    missing = [a for a in attrs if a not in present]
    if missing or not attrs:
        raise ValueError(f"{what}: attributes {missing or attrs} not in scores (has {present})")
    has_gender = "gender" in df.columns
    if has_gender:
        gender = df["gender"].astype(str).str.lower()
        odd = sorted(set(gender) - set(GENDER_COLOURS))
        if odd:
            raise ValueError(f"{what}: gender must be 'female' or 'male', got {odd}; fix them")
        df = df.assign(gender=gender)
    models = list(dict.fromkeys(df["model"]))
    shown = df[df["attribute"].isin(attrs)]
    k = min(k, int(shown.groupby(["model", "attribute"]).size().max()))  # columns drawn
    fig, axes = new_figure(
        len(attrs), ncols=1, width=1.1 * k + 2.0, height=0.55 * len(models) + 1.1
    )
    for ax, attr in zip(axes, attrs, strict=True):
        sub = df[df["attribute"] == attr]
        for i, model in enumerate(models):
            top = (
                sub[sub["model"] == model]
                .sort_values(["score", "target"], ascending=[False, True])
                .head(k)
            )
            if top.empty:  # this model has no scores for this attribute: said, not blank
                ax.text((k + 1) / 2, i, ABSENT, ha="center", va="center",
                        fontsize="small", color=_GREY, style="italic")  # fmt: skip
            for r, row in enumerate(top.itertuples(index=False)):
                colour = GENDER_COLOURS[row.gender] if has_gender else _GREY
                ax.add_patch(
                    Rectangle(
                        (r + 0.55, i - 0.45),
                        0.9,
                        0.9,
                        facecolor=colour,
                        alpha=0.3,
                        edgecolor=colour,
                        linewidth=1.0,
                    )
                )
                num = f"{round(row.score, 2) + 0.0:.2f}".replace("-", "−")
                ax.text(
                    r + 1,
                    i,
                    f"{row.target}\n{num}",
                    ha="center",
                    va="center",
                    fontsize="small",
                )
        ax.set_xticks(range(1, k + 1), [f"top {r}" for r in range(1, k + 1)])
        ax.set_yticks(range(len(models)), models)
        ax.set(xlim=(0.5, k + 0.5), ylim=(len(models) - 0.5, -0.5), title=attr)
        ax.grid(False)
    if has_gender:
        legend = [
            Patch(facecolor=c, alpha=0.3, edgecolor=c, label=g) for g, c in GENDER_COLOURS.items()
        ]
        axes[0].legend(handles=legend, loc="lower left", bbox_to_anchor=(1.01, 0.0))
    fig.suptitle(f"Top {k} targets by prior-corrected log-probability")
    return fig


def accuracy_figure(table: pd.DataFrame, *, paper: Mapping[str, float] | None = None) -> Figure:
    """Validation masked-token accuracy per person model, before and after fine-tuning.

    Parameters
    ----------
    table : DataFrame
        One row per model: ``model``, ``top-1 before``, ``top-1 after`` and optionally
        ``top-5 before`` and ``top-5 after`` (a second panel), all shares in [0, 1].
    paper : mapping of str to float, optional
        Seed 003's top-1 accuracy after fine-tuning per model (e.g. ``{"Trump": 0.636}``),
        drawn as black diamonds on the "after" bars of the top-1 panel. Models the table does
        not have are ignored (a run without Trump shows no Trump marker).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per accuracy (top-1, top-5): grey "before" and blue "after" bars per model,
        each with its value written above it (so a 0 % bar is seen to be 0, not missing); one
        legend below the panels.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["Trump"], "top-1 before": [0.4], "top-1 after": [0.5]})
    >>> ax = accuracy_figure(t, paper={"Trump": 0.636}).axes[0]
    >>> [float(round(p.get_height(), 2)) for p in ax.patches]
    [0.4, 0.5]
    """
    what = "accuracy_figure"
    _need(table, ["model", "top-1 before", "top-1 after"], what)
    _nonempty(table, what, "model accuracies")
    ks = ["top-1"] + (["top-5"] if {"top-5 before", "top-5 after"} <= set(table.columns) else [])
    cols = [f"{kk} {when}" for kk in ks for when in ("before", "after")]
    _finite(table, cols, what)
    _unique(table, ["model"], what)
    vals = table[cols].to_numpy(float)
    if (vals < 0).any() or (vals > 1).any():
        raise ValueError(f"{what}: accuracies must be shares in [0, 1]; divide percentages by 100")
    models = table["model"].astype(str).tolist()
    paper = {str(m): float(v) for m, v in (paper or {}).items() if str(m) in models}
    x = np.arange(len(models))
    fig, axes = new_figure(len(ks), width=max(4.0, 1.1 * len(models) + 2.0), height=3.8)
    top = max(float(vals.max()), *map(float, paper.values()), 0.05)
    for ax, kk in zip(axes, ks, strict=True):
        for shift, when, colour in ((-0.2, "before", _GREY), (0.2, "after", PALETTE[0])):
            bars = ax.bar(
                x + shift, table[f"{kk} {when}"], 0.4, color=colour, label=f"{when} fine-tuning"
            )
            ax.bar_label(  # the value of every bar, a 0 % bar included
                bars, labels=[f"{100 * v:.1f}%" for v in table[f"{kk} {when}"]],
                padding=2, fontsize="x-small", color="0.25",
            )  # fmt: skip
        if kk == "top-1" and paper:
            px = [x[models.index(str(m))] + 0.2 for m in paper]
            ax.scatter(
                px,
                list(paper.values()),
                marker="D",
                s=50,
                color=PALETTE[7],
                zorder=3,
                label="paper (after fine-tuning)",
            )
            for xx, v in zip(px, paper.values(), strict=True):
                ax.annotate(
                    f"paper {100 * v:.1f}%",
                    (xx, v),
                    xytext=(7, 0),
                    ha="left",
                    va="center",
                    textcoords="offset points",
                    fontsize="x-small",
                )
        ax.set_xticks(x, models)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set(
            ylim=(0, min(1.0, 1.25 * top)),
            ylabel=f"{kk} accuracy (validation)",
            title=f"{kk} masked-token accuracy",
        )
    handles, texts = axes[0].get_legend_handles_labels()
    legend_below(fig, handles, texts)
    return fig


def learning_curve_figure(history: pd.DataFrame, *, target: float | None = 0.25) -> Figure:
    """Top-1 and top-5 masked-token accuracy of the base stand-in against training minutes.

    Parameters
    ----------
    history : DataFrame
        One row per evaluation: ``step``, ``seconds`` (of training so far), ``top1``, ``top5``.
    target : float or None, default 0.25
        A reference level of top-1 accuracy (dashed line "reference level: 25 % top-1"); None:
        no line.

    Returns
    -------
    matplotlib.figure.Figure
        Lines in time order; where steps grow with time a top axis shows the training step.

    Examples
    --------
    >>> h = pd.DataFrame({"step": [0, 100], "seconds": [0, 120], "top1": [0.0, 0.2],
    ...                   "top5": [0.01, 0.4]})
    >>> ax = learning_curve_figure(h).axes[0]
    >>> ax.lines[0].get_xdata().tolist()
    [0.0, 2.0]
    """
    what = "learning_curve_figure"
    _need(history, ["step", "seconds", "top1", "top5"], what)
    _nonempty(history, what, "training history")
    _finite(history, ["step", "seconds", "top1", "top5"], what)
    if target is not None and not (np.isfinite(target) and 0 <= target <= 1):
        raise ValueError(f"{what}: target must be a share in [0, 1] or None, got {target!r}")
    h = history.sort_values(["seconds", "step"], kind="stable")
    minutes = h["seconds"].to_numpy(float) / 60.0
    fig, (ax,) = new_figure(1, width=7.6, height=4.0)
    ax.plot(minutes, h["top1"].to_numpy(float), "o-", color=PALETTE[0], markersize=3, label="top-1")
    ax.plot(minutes, h["top5"].to_numpy(float), "s-", color=PALETTE[2], markersize=3, label="top-5")
    if target is not None:
        ax.axhline(
            target, color=PALETTE[1], linestyle="--", linewidth=1.2,
            label=f"reference level: {100 * target:g} % top-1",
        )  # fmt: skip
    top = max(float(h[["top1", "top5"]].to_numpy(float).max()), target or 0.0, 0.05)
    span = float(minutes[-1] - minutes[0]) or 1.0
    ax.set(
        xlim=(minutes[0] - 0.02 * span, minutes[-1] + 0.02 * span),
        ylim=(0, min(1.0, 1.1 * top) if top <= 1 else 1.1 * top),
    )
    steps = h["step"].to_numpy(float)
    if len(h) >= 2 and (np.diff(minutes) > 0).all() and (np.diff(steps) > 0).all():
        sec = ax.secondary_xaxis(
            "top",
            functions=(
                lambda m: np.interp(m, minutes, steps),
                lambda s: np.interp(s, steps, minutes),
            ),
        )
        sec.set_xlabel("training step")
        # steps per minute vary (a busy machine): keep round steps at least 8 % of the width
        # apart, so their labels do not run together where training was fast
        kept: list[float] = []
        for tick in MaxNLocator(nbins=8, integer=True).tick_values(steps[0], steps[-1]):
            if not steps[0] <= tick <= steps[-1]:
                continue
            at = float(np.interp(tick, steps, minutes))
            if not kept or at - float(np.interp(kept[-1], steps, minutes)) >= 0.08 * span:
                kept.append(float(tick))
        sec.set_xticks(kept)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set(
        xlabel="minutes of training",
        ylabel="masked-token accuracy (validation)",
        title="Base stand-in: learning curve",
    )
    legend_beside(ax, fontsize="small")
    return fig


# ----------------------------------------------------------------------------- seed spread
#: Axis label of the difference axis: left = the person's model is more pro-male than the base.
DELTA_XLABEL = "bias: person − base model\n← more pro-male     more pro-female →"
#: Marker of each seed, in the order of the sorted seeds (repeated beyond eight seeds).
SEED_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Colour of the band mean ± range where the effect counts; grey where it does not.
COUNTS_COLOUR = PALETTE[0]
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
    seeds = sorted(biases["seed"].unique().tolist())
    return _spread_panels(
        biases, panel="person", row="concept", what=what, xlabel=DELTA_XLABEL,
        title=f"Person − base model, {seeds_title(seeds)}",
    )  # fmt: skip


def _spread_panels(
    biases: pd.DataFrame, *, panel: str, row: str, what: str, xlabel: str, title: str
) -> Figure:
    """Panels by ``panel``, rows by ``row``: each seed's ``difference``, its range and the seed
    rule's band (the drawing of :func:`seed_spread_figure` and :func:`ablation_figure`)."""
    d_all = pd.to_numeric(biases["difference"], errors="coerce").to_numpy(float)
    if not np.isfinite(d_all).all():
        raise ValueError(f"{what}: column 'difference' has missing or non-numeric values")
    if biases.duplicated([panel, "seed", row]).any():
        raise ValueError(f"{what}: a ({panel}, seed, {row}) occurs more than once; keep one")
    people = list(dict.fromkeys(biases[panel].astype(str)))
    concepts = list(dict.fromkeys(biases[row].astype(str)))
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
    ncols = min(2, len(people))
    bottom = {max(i for i in range(len(people)) if i % ncols == c) for c in range(ncols)}
    for k, (ax, person) in enumerate(zip(axes, people, strict=True)):
        sub = biases[biases[panel].astype(str) == person]
        for y, concept in enumerate(concepts):
            rows = sub[sub[row].astype(str) == concept]
            if rows.empty:  # a series absent from this run: said, not left blank
                ax.text(
                    0.5, y, ABSENT, transform=ax.get_yaxis_transform(), ha="center",
                    va="center", fontsize="x-small", color=_GREY, style="italic",
                )  # fmt: skip
                continue
            d = rows["difference"].to_numpy(float)
            mean, spread = float(d.mean()), float(d.max() - d.min())
            counts = _rule(d)
            ink = COUNTS_COLOUR if counts else _INK
            if len(seeds) >= 2:  # one seed has no range and no mean over seeds
                ax.barh(
                    y, 2 * spread, left=mean - spread, height=_BAND, zorder=1, linewidth=0,
                    color=COUNTS_COLOUR if counts else _GREY, alpha=0.3,
                )  # fmt: skip
                ax.hlines(y, d.min(), d.max(), color=ink, linewidth=1.2, zorder=2)
                ax.vlines(mean, y - _BAND / 2, y + _BAND / 2, color=ink, linewidth=1.6, zorder=2)
            reach.append(abs(mean) + spread)
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
        if k in bottom:  # the axis is shared: its label and ticks once per column
            ax.set_xlabel(xlabel)
            ax.xaxis.set_tick_params(labelbottom=True)
    lim = 1.1 * max(reach) or 1.0
    axes[0].set_xlim(-lim, lim)  # shared by every panel
    # few ticks: labels of small differences ("−0.0075") must not run together
    axes[0].xaxis.set_major_locator(MaxNLocator(nbins=4))
    handles = [
        Line2D([], [], linestyle="", marker=marker[s], markerfacecolor="white",
               markeredgecolor=_INK, label=f"seed {s}")
        for s in seeds
    ]  # fmt: skip
    if len(seeds) >= 2:
        handles += [
            Line2D([], [], color=_INK, linewidth=1.2, label="range over seeds, | at the mean"),
            Patch(color=COUNTS_COLOUR, alpha=0.3, label="mean ± range clear of 0: counts"),
            Patch(color=_GREY, alpha=0.3, label="mean ± range reaches 0: does not count"),
        ]
    else:
        handles.append(Line2D([], [], linestyle="", label="one seed: no range, nothing counts"))
    handles.append(
        Line2D([], [], color="0.15", linewidth=1.2, linestyle="--", label="no difference (0)")
    )
    legend_below(fig, handles, [h.get_label() for h in handles])
    fig.suptitle(title)
    return fig


def ablation_figure(results: pd.DataFrame) -> Figure:
    """The fine-tuning ablation: each choice's bias minus the reference row's, seed by seed.

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`nlpbias.studies.scoring.ablation.run_ablation` output (``row, seed, concept,
        bias``; ``attrs["reference"]`` names the reference row, else the first row is).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per concept (``average`` first), one line per choice: a marker per seed at
        the paired difference (choice − reference, same seed), the range and mean, and the
        band mean ± range, coloured where it stays clear of 0 — the choice moves the score
        beyond the seeds (:func:`~nlpbias.studies.scoring.seeds.exceeds_seed_spread`).
    """
    what = "ablation_figure"
    _need(results, ["row", "seed", "concept", "bias"], what)
    if results.empty:
        raise ValueError(f"{what} got an empty frame; pass run_ablation's output")
    concepts = list(dict.fromkeys(results["concept"].astype(str)))
    concepts = sorted(concepts, key=lambda c: c != "average")  # average first, stable
    diffs = pd.concat([paired_differences(results, c) for c in concepts], ignore_index=True)
    reference = results.attrs.get("reference") or str(results["row"].iloc[0])
    person = results.attrs.get("person") or "the person"
    seeds = sorted(results["seed"].unique().tolist())
    return _spread_panels(
        diffs, panel="concept", row="row", what=what,
        xlabel=f"bias: choice − {reference} (same seed)",
        title=f"{person}: each fine-tuning choice against {reference!r}, {seeds_title(seeds)}",
    )  # fmt: skip


def seeds_title(seeds: Sequence[int]) -> str:
    """The seeds in a title: "one fine-tuning seed (0)" or "2 fine-tuning seeds (0, 1)".

    Examples
    --------
    >>> seeds_title([0]), seeds_title([0, 1])
    ('one fine-tuning seed (0)', '2 fine-tuning seeds (0, 1)')
    """
    listed = ", ".join(str(s) for s in seeds)
    if len(seeds) == 1:
        return f"one fine-tuning seed ({listed})"
    return f"{len(seeds)} fine-tuning seeds ({listed})"


# ----------------------------------------------------------------------------- Dong's claims
#: Marker of the paper's sign on :func:`claims_figure`: pointing to the side the paper claims.
CLAIM_MARKERS: dict[int, str] = {-1: "<", 1: ">"}


def claims_figure(parts: pd.DataFrame) -> Figure:
    """Our bias beside the sign Dong's claims give, per (model, concept) they name.

    Parameters
    ----------
    parts : pandas.DataFrame
        :func:`nlpbias.studies.scoring.claims.claim_parts` output: ``model``, ``concept``,
        ``paper sign``, ``paper value``, ``value``, ``low``, ``high``, ``band``, ``present``.

    Returns
    -------
    matplotlib.figure.Figure
        One row per (model, concept), top to bottom in the order of ``parts``, labelled
        "model · concept". Our value is a dot with its band as a horizontal line (a person: mean
        ± range over seeds; the base model: its bootstrap interval), coloured
        (:data:`COUNTS_COLOUR`) where the band lies wholly on the paper's side of 0. The paper's
        sign is a triangle (:data:`CLAIM_MARKERS`) at the end of the row on its side, and the
        paper's number, where printed, a cross. A model absent from this book is said in its
        row (:data:`ABSENT`). A dashed line marks 0.

    Examples
    --------
    >>> p = pd.DataFrame({"model": ["Trump"], "concept": ["career"], "paper sign": [-1],
    ...                   "paper value": [np.nan], "value": [-0.3], "low": [-0.4],
    ...                   "high": [-0.2], "band": ["mean ± range over 2 seeds"],
    ...                   "present": [True]})
    >>> ax = claims_figure(p).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['Trump · career']
    """
    what = "claims_figure"
    need = ["model", "concept", "paper sign", "paper value", "value", "low", "high", "present"]
    _need(parts, need, what)
    _nonempty(parts, what, "claim_parts' output")
    _unique(parts, ["model", "concept"], what)
    bad = sorted(set(parts["paper sign"]) - set(CLAIM_MARKERS))
    if bad:
        raise ValueError(f"{what}: 'paper sign' must be -1 or 1, got {bad}")
    present = parts["present"].astype(bool)
    _finite(parts[present], ["value"], what)
    labels = [f"{m} · {c}" for m, c in zip(parts["model"], parts["concept"], strict=True)]
    fig, (ax,) = new_figure(1, width=7.6, height=1.3 + 0.36 * len(parts))
    numbers = parts[["value", "low", "high", "paper value"]].to_numpy(float)
    reach = max(float(np.nanmax(np.abs(numbers))) if np.isfinite(numbers).any() else 0.0, 0.05)
    lim = 1.25 * reach
    for y, (_, r) in enumerate(parts.iterrows()):
        sign = int(r["paper sign"])
        ax.scatter(
            [sign * lim * 0.94], [y], marker=CLAIM_MARKERS[sign], s=40, color=_GREY, zorder=2,
        )  # fmt: skip
        if not bool(r["present"]):
            ax.text(
                0.5, y, ABSENT, transform=ax.get_yaxis_transform(), ha="center", va="center",
                fontsize="x-small", color=_GREY, style="italic",
            )  # fmt: skip
            continue
        low, high = float(r["low"]), float(r["high"])
        banded = np.isfinite(low) and np.isfinite(high)
        agrees = banded and (low > 0 if sign > 0 else high < 0)
        ink = COUNTS_COLOUR if agrees else _INK
        if banded:
            ax.hlines(y, low, high, color=ink, linewidth=1.6, zorder=3)
        ax.scatter([float(r["value"])], [y], marker="o", s=30, color=ink, zorder=4)
        paper = float(r["paper value"])
        if np.isfinite(paper):
            ax.scatter([paper], [y], marker="x", s=40, color=PALETTE[1], zorder=5)
    ax.axvline(0, color="0.15", linewidth=1.2, linestyle="--", zorder=1)
    ax.set_yticks(range(len(parts)), labels)
    ax.set_ylim(len(parts) - 0.5, -0.5)
    ax.set_xlim(-lim, lim)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(BIAS_XLABEL)
    handles = [
        Line2D([], [], color=COUNTS_COLOUR, marker="o", label="ours, band on the paper's side"),
        Line2D([], [], color=_INK, marker="o", label="ours, band not on the paper's side"),
        Line2D([], [], linestyle="", marker="<", color=_GREY, label="the paper's sign"),
        Line2D([], [], linestyle="", marker="x", color=PALETTE[1], label="the paper's number"),
    ]
    legend_below(fig, handles, [h.get_label() for h in handles])
    fig.suptitle("Dong's cross-model claims: our bias and its band beside the paper's sign")
    return fig


# ----------------------------------------------------------------------------- learning curves
#: Colour of each metric of :func:`person_curves_figure`.
CURVE_COLOURS: dict[str, str] = {
    "training loss": PALETTE[0],
    "held-out loss": PALETTE[1],
    "held-out top-1": PALETTE[2],
}


def person_curves_figure(curves: pd.DataFrame) -> Figure:
    """Per person, the fine-tuning curves of every seed (seed 003's Figures 1–2).

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`nlpbias.studies.scoring.curves.learning_curves` output: ``person, seed, step,
        metric, value``.

    Returns
    -------
    matplotlib.figure.Figure
        One column per person. Top row: the loss against the training step — the training loss
        of every step (a thin line per seed, :data:`CURVE_COLOURS`) and the held-out loss at
        each evaluation (a line with the seed's marker, :data:`SEED_MARKERS`). Bottom row: the
        held-out top-1 accuracy at each evaluation, a line per seed with its marker. One
        legend below.

    Examples
    --------
    >>> c = pd.DataFrame({"person": "T", "seed": 0, "step": [0, 1, 2, 0, 2, 0, 2],
    ...                   "metric": ["training loss"] * 3 + ["held-out loss"] * 2
    ...                             + ["held-out top-1"] * 2,
    ...                   "value": [6.0, 5.0, 4.0, 6.5, 5.5, 0.1, 0.2]})
    >>> top, bottom = person_curves_figure(c).axes
    >>> bottom.lines[0].get_ydata().tolist()
    [0.1, 0.2]
    """
    what = "person_curves_figure"
    _need(curves, ["person", "seed", "step", "metric", "value"], what)
    _nonempty(curves, what, "learning_curves' output")
    _finite(curves, ["step", "value"], what)
    unknown = sorted(set(curves["metric"]) - set(CURVE_COLOURS))
    if unknown:
        raise ValueError(f"{what}: unknown metrics {unknown}; expected {list(CURVE_COLOURS)}")
    _unique(curves, ["person", "seed", "step", "metric"], what)
    people = list(dict.fromkeys(curves["person"].astype(str)))
    seeds = sorted(curves["seed"].unique().tolist())
    marker = {s: SEED_MARKERS[i % len(SEED_MARKERS)] for i, s in enumerate(seeds)}
    n = len(people)
    fig, axes = new_figure(2 * n, ncols=n, width=4.25 if n > 1 else 7.0, height=3.0)
    for i, person in enumerate(people):
        top, bottom = axes[i], axes[n + i]
        sub = curves[curves["person"].astype(str) == person]
        for seed in seeds:
            run = sub[sub["seed"] == seed]
            for metric, ax in (("training loss", top), ("held-out loss", top),
                               ("held-out top-1", bottom)):  # fmt: skip
                line = run[run["metric"] == metric].sort_values("step")
                if line.empty:
                    continue
                every_step = metric == "training loss"
                ax.plot(
                    line["step"].to_numpy(float), line["value"].to_numpy(float),
                    color=CURVE_COLOURS[metric], linewidth=0.8 if every_step else 1.4,
                    alpha=0.6 if every_step else 1.0, marker=None if every_step else marker[seed],
                    markersize=4, markerfacecolor="white",
                    label=f"{person}, seed {seed}: {metric}",
                )  # fmt: skip
        top.set_title(person)
        top.set_ylabel("masked-LM loss")
        bottom.set_ylabel("held-out top-1")
        bottom.yaxis.set_major_formatter(PercentFormatter(1.0))
        bottom.set_xlabel("training step")
        top.set_xlabel("training step")
    handles = [
        Line2D([], [], color=CURVE_COLOURS["training loss"], linewidth=0.8, label="training loss"),
        Line2D([], [], color=CURVE_COLOURS["held-out loss"], linewidth=1.4, label="held-out loss"),
        Line2D([], [], color=CURVE_COLOURS["held-out top-1"], linewidth=1.4,
               label="held-out top-1"),
    ] + [
        Line2D([], [], linestyle="", marker=marker[s], markerfacecolor="white",
               markeredgecolor=_INK, label=f"seed {s}")
        for s in seeds
    ]  # fmt: skip
    legend_below(fig, handles, [h.get_label() for h in handles])
    fig.suptitle(f"Fine-tuning curves per person, {seeds_title(seeds)}")
    return fig
