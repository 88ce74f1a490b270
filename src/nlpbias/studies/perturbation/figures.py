"""Figures of the corpus-perturbation study (Brunet et al. 2019; seed 004): which documents matter.

Every function returns a matplotlib Figure built without pyplot (see :mod:`nlpbias.plotting`) and
checks its input at the boundary: a missing column raises a one-line ``KeyError`` that names it.

- :func:`baseline_figure` — the WEAT effect size of each word set, p-values in the labels.
- :func:`delta_b_histogram` — the distribution of the differential bias ΔB per word set.
- :func:`cumulative_share_figure` — how concentrated ΔB is, beside seed 004's two points.
- :func:`predicted_vs_actual_figure` — the influence approximation against retraining.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter, PercentFormatter

from nlpbias.plotting import (
    PALETTE,
    annotate_apart,
    legend_beside,
    new_figure,
    relabel,
    wordset_label,
)
from nlpbias.plotting import mark_empty as _empty
from nlpbias.plotting import require_columns as _need
from nlpbias.plotting.labels import Names

__all__ = [
    "AXIS_LABELS",
    "DEVIATION_LABEL",
    "EVEN_LABEL",
    "KIND_COLOURS",
    "baseline_figure",
    "corpora_figure",
    "correlation_figure",
    "cumulative_share_figure",
    "delta_b_histogram",
    "intersectional_figure",
    "predicted_vs_actual_figure",
    "prediction_figure",
    "reduction_figure",
]

#: Colour of each kind of removal set: bias-increasing documents removed (vermillion),
#: bias-decreasing documents removed (blue), random documents removed (grey).
KIND_COLOURS: dict[str, str] = {
    "increasing": PALETTE[1],
    "decreasing": PALETTE[0],
    "random": "#8C8C8C",
}

_DELTA_B = "ΔB = B(w) − B(w̃)"
#: Legend entry of the random sets' segments in :func:`predicted_vs_actual_figure`.
DEVIATION_LABEL = "random: deviation\nfrom prediction"
#: Legend entry of the dotted lines of :func:`cumulative_share_figure`.
EVEN_LABEL = "no concentration: |ΔB| spread\nevenly over the documents\nwith ΔB ≠ 0 (dotted)"


def _tables(tables: object, what: str) -> dict[str, pd.DataFrame]:
    """Check a mapping word set → frame with ``delta_b`` (output of ``score_documents``)."""
    if not isinstance(tables, Mapping):
        raise TypeError(
            f"{what} needs a mapping of word set to table (score_documents), "
            f"got {type(tables).__name__}"
        )
    if not tables:
        raise ValueError(f"{what} needs at least one word set; score_documents returned none")
    for name, table in tables.items():
        _need(table, ["delta_b"], f"{what} (word set {name!r})")
    return dict(tables)


def baseline_figure(
    baseline: pd.DataFrame, *, title: str | None = None, names: Names = wordset_label
) -> Figure:
    """Horizontal bars of the WEAT effect size per word set, with the p-value in each label.

    Parameters
    ----------
    baseline : DataFrame
        :func:`nlpbias.studies.perturbation.study.baseline_table`: index (or column) ``wordset``,
        columns ``effect_size`` and ``p_value``.
    title : str, optional
    names : mapping or function, default :func:`nlpbias.plotting.labels.wordset_label`
        Display label of each word set (its title, not its file name).

    Returns
    -------
    matplotlib.figure.Figure
        One bar per word set (in the table's order, top to bottom), vermillion for a positive
        effect size, blue for a negative one, and a vertical line at 0.

    Examples
    --------
    >>> b = pd.DataFrame({"effect_size": [0.5, -0.2], "p_value": [0.01, 0.7]},
    ...                  index=pd.Index(["x", "y"], name="wordset"))
    >>> [t.get_text() for t in baseline_figure(b).axes[0].get_yticklabels()]
    ['y (p = 0.7)', 'x (p = 0.01)']
    """
    _need(baseline, ["effect_size", "p_value"], "baseline_figure")
    sets = baseline["wordset"] if "wordset" in baseline.columns else baseline.index
    labels = [
        f"{relabel(n, names)} (p = {p:.2g})" for n, p in zip(sets, baseline["p_value"], strict=True)
    ]
    lines = max((label.count("\n") + 1 for label in labels), default=1)
    fig, (ax,) = new_figure(
        1, width=7.0, height=max(2.0, max(0.45, 0.2 * lines + 0.15) * len(baseline) + 1.2)
    )
    if baseline.empty:
        _empty(ax, "word sets")
        return fig
    d = baseline["effect_size"].to_numpy(float)[::-1]
    colours = [PALETTE[1] if v >= 0 else PALETTE[0] for v in d]
    ax.barh(np.arange(len(d)), d, color=colours)
    ax.set_yticks(np.arange(len(d)), labels[::-1])
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set(
        xlabel="WEAT effect size d (normalised vectors, ddof 1; no unit)",
        ylabel="",
        title=title or "Bias of the embedding trained on all documents",
    )
    return fig


def delta_b_histogram(
    tables: Mapping[str, pd.DataFrame],
    *,
    bins: int = 40,
    ncols: int = 2,
    names: Names = wordset_label,
) -> Figure:
    """Histogram of the differential bias ΔB per word set, of the documents with ΔB ≠ 0.

    Documents without a word of the test have ΔB = 0 exactly and are left out (the panel title
    says how many remain); the count axis is logarithmic and the bins are symmetric around 0,
    marked by a vertical line. ΔB > 0: removing the document lowers the bias.

    Parameters
    ----------
    tables : mapping of str to DataFrame
        :func:`nlpbias.studies.perturbation.study.score_documents`: word set → table with a
        ``delta_b`` column.
    bins : int, default 40
    ncols : int, default 2
        Panels per row.
    names : mapping or function, default :func:`nlpbias.plotting.labels.wordset_label`
        Display label of each word set in the panel titles.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per word set.

    Examples
    --------
    >>> t = pd.DataFrame({"delta_b": [0.0, 0.1, -0.2, 0.3]})
    >>> fig = delta_b_histogram({"x": t}, bins=4)
    >>> len(fig.axes[0].patches), fig.axes[0].get_yscale()
    (4, 'log')
    """
    tables = _tables(tables, "delta_b_histogram")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    fig, axes = new_figure(len(tables), ncols=ncols, width=4.4, height=3.4)
    for i, (ax, (name, table)) in enumerate(zip(axes, tables.items(), strict=True)):
        d = table["delta_b"].to_numpy(float)
        nz = d[d != 0]
        if nz.size == 0:
            _empty(ax, "documents with ΔB ≠ 0")
            continue
        lim = float(np.abs(nz).max())
        ax.hist(nz, bins=np.linspace(-lim, lim, bins + 1), color=PALETTE[i % len(PALETTE)])
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.10g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.axvline(0, color="0.3", linewidth=0.8, linestyle="--")
        ax.set(
            title=f"{relabel(name, names)}\n{nz.size:,} of {d.size:,} documents",
            xlabel=_DELTA_B,
            ylabel="documents (log scale)",
        )
    return fig


def _reported_points(reported: object) -> list[tuple[float, float]]:
    """(top fraction, share) pairs from ``{"top 1%": 0.488, ...}`` or ``load_reported(...)``."""
    if not isinstance(reported, Mapping):
        raise TypeError(
            "reported must be a mapping such as load_reported('wajdalevie2021'), "
            f"got {type(reported).__name__}"
        )
    block: Any = reported.get("concentration", reported)
    points = []
    for key, value in dict(block).items():
        m = re.fullmatch(r"top\s*([0-9.]+)\s*%", str(key).strip())
        if m:
            points.append((float(m.group(1)) / 100.0, float(value)))
    if not points:
        raise ValueError(
            "reported has no 'top N%' entries; pass load_reported('wajdalevie2021') "
            "or a mapping like {'top 1%': 0.488}"
        )
    return sorted(points)


def cumulative_share_figure(
    tables: Mapping[str, pd.DataFrame],
    reported: Mapping[str, Any],
    *,
    title: str | None = None,
    names: Names = wordset_label,
) -> Figure:
    """Share of the summed |ΔB| held by the top documents, per word set, beside seed 004.

    Parameters
    ----------
    tables : mapping of str to DataFrame
        Word set → table with a ``delta_b`` column (``score_documents``).
    reported : mapping
        Seed 004's numbers: ``load_reported("wajdalevie2021")`` (its ``concentration`` block is
        used) or a mapping such as ``{"top 1%": 0.488, "top 10%": 0.922}``.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One solid line per word set
        (:func:`nlpbias.studies.perturbation.bias_concentration.cumulative_share`), beside it a
        dotted line of the same colour for the share without concentration (``|ΔB|`` spread
        evenly over the documents with ΔB ≠ 0: :func:`~nlpbias.studies.perturbation.
        bias_concentration.even_share` at every fraction), and seed 004's points marked "seed
        004"; the fraction-of-documents axis is logarithmic.

    Examples
    --------
    >>> t = pd.DataFrame({"delta_b": [4.0, -3.0, 1.0, 0.0]})
    >>> ax = cumulative_share_figure({"x": t}, {"top 1%": 0.488}).axes[0]
    >>> ax.lines[0].get_ydata().tolist()
    [0.5, 0.875, 1.0, 1.0]
    """
    from nlpbias.studies.perturbation.bias_concentration import cumulative_share

    tables = _tables(tables, "cumulative_share_figure")
    points = _reported_points(reported)
    fig, (ax,) = new_figure(1, width=8.6, height=4.4)
    lo = min(points[0][0], 1.0)
    for i, (name, table) in enumerate(tables.items()):
        cum = cumulative_share(table["delta_b"])
        lo = min(lo, float(cum["top_fraction"].iloc[0]))
        colour = PALETTE[i % len(PALETTE)]
        ax.plot(
            cum["top_fraction"], cum["share"], color=colour, linewidth=1.8,
            label=relabel(name, names),
        )  # fmt: skip
        carriers = int(np.count_nonzero(table["delta_b"].to_numpy(float)))
        ranks = np.arange(1, len(cum) + 1)
        ax.plot(
            cum["top_fraction"], np.minimum(ranks, carriers) / carriers, color=colour,
            linestyle=":", linewidth=1.3, label="_even " + relabel(name, names),
        )  # fmt: skip
    ax.plot([], [], color="0.45", linestyle=":", linewidth=1.3, label=EVEN_LABEL)
    xs, ys = zip(*points, strict=True)
    values = "\n".join(f"top {100 * px:g}% → {100 * py:.1f}%" for px, py in points)
    ax.scatter(xs, ys, color=PALETTE[7], marker="X", s=70, zorder=4, label=f"seed 004:\n{values}")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:g}%"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set(
        xlim=(lo, 1.0),
        ylim=(0, 1.02),
        xlabel="top documents by |ΔB| (fraction of all documents, log scale)",
        ylabel="share of the summed |ΔB|",
        title=title or "How concentrated is the differential bias?",
    )
    legend_beside(ax, fontsize="small")
    return fig


def predicted_vs_actual_figure(validation: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Predicted against actual ΔB for each removal set, coloured by the kind of set.

    Parameters
    ----------
    validation : DataFrame
        :func:`nlpbias.studies.perturbation.study.validate`: one row per removal set with
        ``kind`` (increasing / decreasing / random), ``predicted`` and ``actual``; optional
        ``actual_sd`` (error bars of ±1 standard deviation over seeds, where finite) and
        ``n_documents`` (written beside each point).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One scatter per kind, the diagonal ``actual = predicted``, a vertical segment from each
        random set's prediction on the diagonal to its actual change (its deviation from
        prediction), and Pearson's r over the sets (with at least 3 sets and some spread on both
        axes). The y label says over how many seeds the actual change is a mean (``seeds``).

    Examples
    --------
    >>> v = pd.DataFrame({"kind": ["increasing", "decreasing", "random"],
    ...                   "predicted": [1.0, -1.0, 0.0], "actual": [0.5, -0.9, 0.4]})
    >>> ax = predicted_vs_actual_figure(v).axes[0]
    >>> ax.texts[-1].get_text()
    'Pearson r = 0.90 (3 sets)'
    """
    _need(validation, ["kind", "predicted", "actual"], "predicted_vs_actual_figure")
    fig, (ax,) = new_figure(1, width=6.8, height=4.8)
    if validation.empty:
        _empty(ax, "removal sets")
        return fig
    p = validation["predicted"].to_numpy(float)
    a = validation["actual"].to_numpy(float)
    extra = iter(PALETTE[2:7])
    for kind, sub in validation.groupby("kind", sort=False):
        colour = KIND_COLOURS.get(str(kind)) or next(extra, PALETTE[7])
        ax.scatter(sub["predicted"], sub["actual"], color=colour, s=40, zorder=3, label=f"{kind}")
        if "actual_sd" in sub.columns:
            sd = sub["actual_sd"].to_numpy(float)
            ok = np.isfinite(sd)
            if ok.any():
                ax.errorbar(
                    sub["predicted"].to_numpy(float)[ok],
                    sub["actual"].to_numpy(float)[ok],
                    yerr=sd[ok],
                    fmt="none",
                    ecolor=colour,
                    capsize=3,
                    linewidth=1,
                )
    rand = validation[validation["kind"].astype(str) == "random"]
    rp, ra = rand["predicted"].to_numpy(float), rand["actual"].to_numpy(float)
    if len(rand):
        ax.vlines(
            rp, rp, ra, colors=KIND_COLOURS["random"], linestyles="-", linewidth=2.5, alpha=0.45,
            zorder=2, label=DEVIATION_LABEL,
        )  # fmt: skip
    both = np.concatenate([p, a])
    both = both[np.isfinite(both)]
    lo, hi = (float(both.min()), float(both.max())) if both.size else (-1.0, 1.0)
    pad = 0.08 * (hi - lo or 1.0)
    lims = (lo - pad, hi + pad)
    ax.plot(lims, lims, color="0.6", linestyle="--", linewidth=1, label="actual = predicted")
    finite = np.isfinite(p) & np.isfinite(a)
    n = int(finite.sum())
    if n >= 3 and np.ptp(p[finite]) > 0 and np.ptp(a[finite]) > 0:
        r = float(np.corrcoef(p[finite], a[finite])[0, 1])
        text = f"Pearson r = {r:.2f} ({n} sets)"
    else:
        text = f"Pearson r undefined ({n} sets)"
    ax.text(0.98, 0.03, text, transform=ax.transAxes, ha="right", va="bottom", fontsize="small")
    ax.set(
        xlim=lims,
        ylim=lims,
        xlabel="predicted ΔB (influence approximation)",
        ylabel=f"actual ΔB (retrained{_seeds_text(validation)})",
        title=title or "Removing documents: prediction vs retraining",
    )
    legend_beside(ax, fontsize="small", title="documents removed")
    if "n_documents" in validation.columns:  # last: placed on the final layout
        sizes = [f"n = {int(n)}" for n in validation["n_documents"]]  # documents in the set
        annotate_apart(ax, p, a, sizes, fontsize="x-small")
    return fig


def _seeds_text(validation: pd.DataFrame) -> str:
    """ ", one seed" / ", mean over 3 seeds" from the ``seeds`` column (nothing without it)."""
    if "seeds" not in validation.columns or validation["seeds"].isna().all():
        return ""
    counts = sorted({int(n) for n in validation["seeds"].dropna()})
    if counts == [1]:
        return ", one seed"
    shown = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    return f", mean over {shown} seeds"


# ----------------------------------------------------------------------------- issue 29
#: Legend entry of each axis of an intersectional test.
AXIS_LABELS = {
    "intersectional": "intersectional test",
    "race": "race alone (same attributes)",
    "gender": "gender alone (same attributes)",
}


def intersectional_figure(
    effects: pd.DataFrame, *, title: str | None = None, names: Names = wordset_label
) -> Figure:
    """Each intersectional test beside its race and gender components (a forest plot).

    Parameters
    ----------
    effects : DataFrame
        :func:`~nlpbias.studies.perturbation.intersectional.intersectional_effects`, index
        ``(test, axis)``.
    title : str, optional
    names : mapping or function, default :func:`nlpbias.plotting.labels.wordset_label`

    Returns
    -------
    matplotlib.figure.Figure
        One row per test, one dot per axis (intersectional, race alone, gender alone) with its
        bootstrap interval over words; an axis that is not testable on the embedding is written
        "not testable here" in its slot.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_product([["t"], ["intersectional", "race", "gender"]],
    ...                                  names=["test", "axis"])
    >>> e = pd.DataFrame({"effect_size": [1.2, 0.5, np.nan], "ci_low": [1.0, 0.2, np.nan],
    ...                   "ci_high": [1.4, 0.8, np.nan]}, index=idx)
    >>> ax = intersectional_figure(e).axes[0]
    >>> [t.get_text().strip() for t in ax.texts]
    ['not testable here']
    """
    from nlpbias.plotting.effects import effect_size_figure

    _need(effects, ["effect_size", "ci_low", "ci_high"], "intersectional_figure")
    df = effects.reset_index()
    df["axis"] = df["axis"].map(AXIS_LABELS).fillna(df["axis"])
    return effect_size_figure(
        df, y="test", hue="axis", names=names, missing="not testable here",
        xlabel="WEAT effect size d (ddof 1; 95 % bootstrap interval over words)",
        title=title or "Intersectional bias beside its single-axis components",
    )  # fmt: skip


def correlation_figure(
    pairs: pd.DataFrame,
    *,
    statistic: str = "pearson",
    title: str | None = None,
    names: Names = wordset_label,
) -> Figure:
    """Heatmap of the ``ΔB`` correlation between tests, grouped by area of bias.

    Parameters
    ----------
    pairs : DataFrame
        :func:`~nlpbias.studies.perturbation.bias_correlation.pair_correlations`.
    statistic : {"pearson", "spearman"}, default "pearson"

    Returns
    -------
    matplotlib.figure.Figure
        The symmetric matrix (1 on the diagonal) with the tests ordered by area, each row
        labelled ``(k) [area] test`` and each column by its row's number ``(k)``; a pair with too
        few shared documents is blank.

    Examples
    --------
    >>> p = pd.DataFrame({"area_a": ["g"], "area_b": ["r"], "pearson": [0.25]},
    ...                  index=pd.MultiIndex.from_tuples([("a", "b")], names=["test_a", "test_b"]))
    >>> fig = correlation_figure(p, names=str)
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['1.00', '0.25', '0.25', '1.00']
    """
    from nlpbias.plotting.effects import heatmap_figure

    _need(pairs, ["area_a", "area_b", statistic], "correlation_figure")
    flat = pairs.reset_index()
    area = dict(zip(flat["test_a"], flat["area_a"], strict=False))
    area.update(zip(flat["test_b"], flat["area_b"], strict=False))
    tests = sorted(area, key=lambda t: (area[t], list(area).index(t)))
    number = {t: f"({k})" for k, t in enumerate(tests, start=1)}
    label = {t: f"{number[t]} [{area[t]}] {relabel(t, names)}" for t in tests}
    value = {
        (a, b): v for a, b, v in zip(flat["test_a"], flat["test_b"], flat[statistic], strict=True)
    }
    rows = []
    for a in tests:
        for b in tests:
            v = 1.0 if a == b else value.get((a, b), value.get((b, a), np.nan))
            rows.append({"row": label[a], "column": label[b], "value": v})
    long = pd.DataFrame(rows)
    long["column"] = long["column"].map({label[t]: number[t] for t in tests})  # the row's number
    kind = "Pearson's r" if statistic == "pearson" else "Spearman's ρ"
    return heatmap_figure(
        long, index="row", columns="column", values="value", fmt=".2f", vmin=-1, vmax=1,
        cmap="vlag",
        title=title or f"{kind} of ΔB between tests, over the documents that touch both",
    )  # fmt: skip


def reduction_figure(
    table: pd.DataFrame,
    reported: Mapping[str, Any] | None = None,
    *,
    title: str | None = None,
    names: Names = wordset_label,
) -> Figure:
    """``delta_effect_sizes`` per test for the reduced corpus and its random control, beside
    seed 004's Table 6.

    The difference, not the ratio: a ratio divides by the full corpus's effect size, which
    explodes for a test near zero and flips sign for a negative one.

    Parameters
    ----------
    table : DataFrame
        :func:`~nlpbias.studies.perturbation.reduction.full_vs_reduced`, index
        ``(reduction, wordset)``.
    reported : mapping, optional
        ``load_reported("wajdalevie2021")``: the 14 ``rows`` of its ``table6`` are drawn on one
        row below ours (the poster does not identify its tests).

    Returns
    -------
    matplotlib.figure.Figure
        One row per test with a dot per reduction, and one row of seed 004's values.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_tuples([("reduced", "x"), ("random", "x")],
    ...                                 names=["reduction", "wordset"])
    >>> t = pd.DataFrame({"delta_effect_sizes": [0.3, 0.01]}, index=idx)
    >>> rep = {"table6": {"rows": {"WEAT A": {"delta_effect_sizes": 0.1},
    ...                            "WEAT B": {"delta_effect_sizes": 0.2}}}}
    >>> ax = reduction_figure(t, rep, names=str).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['x', 'seed 004: WEAT A–N']
    """
    from nlpbias.plotting.effects import effect_size_figure

    _need(table, ["delta_effect_sizes"], "reduction_figure")
    df = table.reset_index()[["reduction", "wordset", "delta_effect_sizes"]]
    df["reduction"] = "this book: " + df["reduction"].map(
        {"reduced": "top documents removed", "random": "random documents removed"}
    ).fillna(df["reduction"])
    df["wordset"] = [relabel(w, names) for w in df["wordset"]]
    if reported is not None and "table6" in reported:
        poster = pd.DataFrame(
            [
                {"reduction": "seed 004: reduced NYT corpus", "wordset": "seed 004: WEAT A–N",
                 "delta_effect_sizes": float(v["delta_effect_sizes"])}
                for v in dict(reported["table6"]["rows"]).values()
            ]
        )  # fmt: skip
        df = pd.concat([df, poster], ignore_index=True)
    return effect_size_figure(
        df, y="wordset", x="delta_effect_sizes", hue="reduction", ci=None,
        xlabel="delta_effect_sizes = B_full − B_reduced (effect-size units)",
        title=title or "How much the reduced corpus lowers each effect size (Table 6)",
    )  # fmt: skip


def prediction_figure(
    result: pd.DataFrame, *, title: str | None = None, names: Names = wordset_label
) -> Figure:
    """ROC AUC of the word-count baseline and of the feature model, per test, with intervals.

    Parameters
    ----------
    result : DataFrame
        :func:`~nlpbias.studies.perturbation.prediction.predict_biasing`.

    Examples
    --------
    >>> r = pd.DataFrame({"auc_baseline": [0.7], "auc_baseline_low": [0.6],
    ...                   "auc_baseline_high": [0.8], "auc_model": [0.9], "auc_model_low": [0.85],
    ...                   "auc_model_high": [0.95]}, index=pd.Index(["x"], name="test"))
    >>> ax = prediction_figure(r, names=str).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['x']
    """
    from nlpbias.plotting.effects import effect_size_figure

    cols = [f"auc_{k}{s}" for k in ("baseline", "model") for s in ("", "_low", "_high")]
    _need(result, cols, "prediction_figure")
    scores = [("baseline", "count of the test's words")]
    if "auc_words" in result.columns:
        scores.append(("words", "trees on each list's word count"))
    scores.append(("model", "trees on all features"))
    rows = []
    for test, r in result.iterrows():
        for key, label in scores:
            rows.append(
                {"test": test, "score": label, "auc": r[f"auc_{key}"],
                 "ci_low": r[f"auc_{key}_low"], "ci_high": r[f"auc_{key}_high"]}
            )  # fmt: skip
    fig = effect_size_figure(
        pd.DataFrame(rows), y="test", x="auc", hue="score", names=names,
        missing="too few documents",
        xlabel="ROC AUC among the documents with a word of the test (95 % bootstrap interval)",
        title=title
        or f"Predicting the top {100 * result.attrs.get('top', 0.01):g} % documents by |ΔB| "
        "before training",
    )  # fmt: skip
    ax = fig.axes[0]
    ax.axvline(0.5, color="0.5", linestyle=":", linewidth=1)  # chance
    lows = result[["auc_baseline_low", "auc_model_low"]].to_numpy(float)
    low = np.nanmin(lows) if np.isfinite(lows).any() else 0.5
    ax.set_xlim(min(0.45, low - 0.05), 1.0)
    return fig


def corpora_figure(
    comparison: pd.DataFrame, *, title: str | None = None, names: Names = wordset_label
) -> Figure:
    """The same tests on two corpora: one row per test, one dot per corpus with its interval.

    Parameters
    ----------
    comparison : DataFrame
        :func:`~nlpbias.studies.perturbation.questions.compare_corpora`, index
        ``(corpus, wordset)``; tests no corpus can test are left out, a test one corpus cannot
        test says "not testable here" in that corpus's slot.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_tuples([("old", "x"), ("new", "x"), ("old", "y"), ("new", "y")],
    ...                                 names=["corpus", "wordset"])
    >>> c = pd.DataFrame({"effect_size": [0.5, np.nan, np.nan, np.nan],
    ...                   "ci_low": [0.2, np.nan, np.nan, np.nan],
    ...                   "ci_high": [0.8, np.nan, np.nan, np.nan]}, index=idx)
    >>> ax = corpora_figure(c, names=str).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()], [t.get_text().strip() for t in ax.texts]
    (['x'], ['not testable here'])
    """
    from nlpbias.plotting.effects import effect_size_figure

    _need(comparison, ["effect_size", "ci_low", "ci_high"], "corpora_figure")
    df = comparison.reset_index()
    some = df.groupby("wordset", sort=False)["effect_size"].transform(lambda v: v.notna().any())
    return effect_size_figure(
        df[some], y="wordset", hue="corpus", names=names, missing="not testable here",
        xlabel="WEAT effect size d (ddof 1; 95 % bootstrap interval over words)",
        title=title or "The same tests on older and newer text",
    )  # fmt: skip
