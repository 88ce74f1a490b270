"""The λ path of both rules and the spread over seeds (nlpbias.studies.logan.robustness)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_checks import (
    assert_labels_clear_of_points,
    assert_legend_clear,
    assert_panel_texts_apart,
    assert_texts_apart,
)
from matplotlib.collections import PathCollection

from nlpbias.studies.logan import (
    LOGAN,
    best_lams,
    lambda_path,
    lambda_path_figure,
    seed_spread,
    seed_spread_figure,
    spread_summary,
)
from nlpbias.studies.logan.synthetic import make_local_bias_data


@pytest.fixture(scope="module")
def rows() -> dict:
    d = make_local_bias_data(1200, dim=8, n_regions=6, random_state=0)
    return {"X": d["X"], "y_true": d["y_true"], "y_pred_or_score": d["y_pred"],
            "group": d["group"]}  # fmt: skip


def _est() -> LOGAN:
    return LOGAN(n_clusters=6, min_clusters=3, min_group_size=10, random_state=0)


def test_lambda_path_has_kmeans_once_and_every_rule_at_every_lam(rows: dict) -> None:
    path = lambda_path(rows, estimator=_est(), grid=(1, 1e6))
    assert path[["method", "lam"]].values.tolist() == [
        ["K-Means", 0.0],
        ["LOGAN, paper's rule", 1.0], ["LOGAN, paper's rule", 1e6],
        ["LOGAN, exact rule", 1.0], ["LOGAN, exact rule", 1e6],
    ]  # fmt: skip
    km = path[path["method"] == "K-Means"].iloc[0]
    assert km["inertia_ratio"] == 1.0 and km["usable"]
    # each row is the fit it names: refit one by hand
    one = _est().set_params(lam=1.0, rule="exact").fit(rows["X"], **{
        k: rows[k] for k in ("y_true", "y_pred_or_score", "group")})  # fmt: skip
    row = path[(path["method"] == "LOGAN, exact rule") & (path["lam"] == 1.0)].iloc[0]
    assert row["n_iter"] == one.n_iter_ and bool(row["converged"]) == one.converged_
    # a huge lam swamps the distances: the fit is flagged, and best_lams never picks it
    assert not path.loc[path["lam"] == 1e6, "usable"].all()
    lams = best_lams(path)
    assert all(path.loc[(path["lam"] == v), "usable"].any() for v in lams.values())
    assert 1e6 not in lams.values() or path.loc[path["lam"] == 1e6, "usable"].any()
    with pytest.raises(ValueError, match="rules"):
        lambda_path(rows, estimator=_est(), grid=(1,), rules=["greedy"])
    with pytest.raises(ValueError, match="grid"):
        lambda_path(rows, estimator=_est(), grid=[0])


def test_seed_spread_is_deterministic_and_seeds_share_their_init(rows: dict) -> None:
    spread = seed_spread(rows, lams={"paper": 1.0, "exact": 1.0}, estimator=_est(), n_seeds=3)
    assert len(spread) == 3 * 3
    assert spread.groupby("method").size().to_dict() == {
        "K-Means": 3, "LOGAN, paper's rule": 3, "LOGAN, exact rule": 3}  # fmt: skip
    again = seed_spread(rows, lams={"paper": 1.0, "exact": 1.0}, estimator=_est(), n_seeds=3)
    pd.testing.assert_frame_equal(spread, again)
    km = _est().set_params(lam=0.0, random_state=2).fit(rows["X"], **{
        k: rows[k] for k in ("y_true", "y_pred_or_score", "group")})  # fmt: skip
    row = spread[(spread["method"] == "K-Means") & (spread["seed"] == 2)].iloc[0]
    assert row["n_eligible"] == int(km.cluster_report_["eligible"].sum())
    summary = spread_summary(spread)
    assert summary.loc["K-Means", "n_seeds"] == 3
    assert summary.attrs["kmeans_range_clusters"] == int(
        spread.loc[spread["method"] == "K-Means", "n_biased"].agg(np.ptp)
    )
    with pytest.raises(ValueError, match="n_seeds"):
        seed_spread(rows, lams={}, estimator=_est(), n_seeds=1)


def _demo_path() -> pd.DataFrame:
    """The λ path of the demo build (planted attribute): K-Means and most LOGAN fits crowd at
    inertia ratio 1 with 4-5 biased clusters, where the labels once piled onto the star."""
    return pd.DataFrame(
        {"attribute": "planted",
         "method": ["K-Means"] + ["LOGAN, paper's rule"] * 5 + ["LOGAN, exact rule"] * 5,
         "lam": [0.0] + [1.0, 30.0, 100.0, 300.0, 1000.0] * 2,
         "inertia_ratio": [1.0, 1.0, 1.0, 1.0, 1.83, 1.78, 1.0, 1.0, 1.0, 1.0, 1.02],
         "n_biased": [5, 5, 4, 5, 1, 4, 5, 5, 5, 7, 7],
         "max_abs_gap_pts": [33.27, 31.91, 30.41, 29.25, 62.39, 100.0, 33.27, 33.76, 31.66,
                             100.0, 100.0],
         "usable": [True, True, True, True, False, False, True, True, True, False, False]}
    )  # fmt: skip


def _dots(ax) -> list[tuple[tuple[float, float], bool, tuple]]:
    """(x, y), hollow?, edge colour of every drawn marker of ``ax``."""
    out = []
    for c in ax.collections:
        if type(c) is not PathCollection:
            continue
        edge = tuple(np.round(c.get_edgecolor()[0][:3], 3))
        hollow = bool((c.get_facecolor()[0][:3] == 1).all())
        out += [((float(x), float(y)), hollow, edge) for x, y in c.get_offsets()]
    return out


def test_lambda_path_figure_puts_each_fit_at_its_lam_hollow_when_degenerate() -> None:
    path = _demo_path()
    fig = lambda_path_figure(path)
    lams = sorted(set(path["lam"]))
    for ax, y in zip(fig.axes, ["n_biased", "max_abs_gap_pts", "inertia_ratio"], strict=True):
        # the λ of every point is the tick label under it: no point needs a text label
        ticks = {
            round(t): lab.get_text()
            for t, lab in zip(ax.get_xticks(), ax.get_xticklabels(), strict=True)
        }
        assert [ticks[i] for i in range(len(lams))] == [f"{v:g}" for v in lams]
        drawn = _dots(ax)
        assert len(drawn) == len(path)
        for (x, v), hollow, _ in drawn:
            row = path[(path[y] == v) & (path["lam"].map(lams.index) == round(x))]
            assert len(row) >= 1, (x, v)
            assert hollow == (not row["usable"].iloc[0])
        assert_texts_apart(ax)
    assert_legend_clear(fig)
    assert_panel_texts_apart(fig)


def test_lambda_path_figure_hides_no_mark_and_no_label_covers_the_star() -> None:
    """On the demo path K-Means (the star) and both rules at λ = 1 share their values: every
    marker must stay visible (no two methods' markers at one spot) and no text may cover any
    marker, the star first. The figure before this test labelled each point with its λ and drew
    the rules on top of the star."""
    path = _demo_path()
    fig = lambda_path_figure(path)
    fig.draw_without_rendering()
    for ax in fig.axes:
        drawn = _dots(ax)
        xy = np.array([p for p, _, _ in drawn])
        star = [p for p, _, edge in drawn if edge == (0.35, 0.35, 0.35)]
        assert len(star) == 1
        assert_labels_clear_of_points(ax, xy[:, 0], xy[:, 1])
        px = ax.transData.transform(xy)
        radius = 3.0 * fig.dpi / 72.0  # a marker of 36 points² is 6 points wide (stars: more)
        for i in range(len(drawn)):
            for j in range(i + 1, len(drawn)):
                if drawn[i][2] != drawn[j][2]:  # markers of two methods
                    assert np.hypot(*(px[i] - px[j])) > 2 * radius, (drawn[i], drawn[j])


def test_lambda_path_figure_skips_a_fit_without_eligible_clusters() -> None:
    """A fit that kept no eligible cluster has NaN as its largest gap (the gender path of the
    paper profile once had one): it is not drawn there, but it is in the other panels."""
    path = pd.DataFrame(
        {"method": ["K-Means", "LOGAN, paper's rule", "LOGAN, paper's rule"],
         "lam": [0.0, 1.0, 300.0], "inertia_ratio": [1.0, 1.01, 3.0],
         "n_biased": [3, 3, 0], "max_abs_gap_pts": [25.0, 24.0, np.nan],
         "usable": [True, True, False]}
    )  # fmt: skip
    fig = lambda_path_figure(path)
    biased, gap, ratio = fig.axes
    assert len(_dots(biased)) == 3 and len(_dots(gap)) == 2 and len(_dots(ratio)) == 3
    assert not any(t.get_text() for ax in fig.axes for t in ax.texts)
    assert_panel_texts_apart(fig)


def test_seed_spread_figure_one_dot_per_seed_and_the_median() -> None:
    spread = pd.DataFrame(
        {"method": ["K-Means"] * 4 + ["LOGAN, exact rule"] * 4, "seed": [0, 1, 2, 3] * 2,
         "bcr_pct": [50.0, 50.0, 62.5, 75.0, 62.5, 75.0, 75.0, 87.5],
         "max_abs_gap_pts": [20.0, 22.0, 25.0, 30.0, 25.0, 26.0, 30.0, 31.0]}
    )  # fmt: skip
    fig = seed_spread_figure(spread)
    bcr = fig.axes[0]
    xs = sorted(p[0] for c in bcr.collections for p in c.get_offsets())
    assert xs == sorted(spread["bcr_pct"])
    medians = sorted(line.get_xdata()[0] for line in bcr.lines)
    assert medians == [56.25, 75.0]
    assert [t.get_text() for t in bcr.get_yticklabels()] == ["K-Means", "LOGAN, exact rule"]
    assert_legend_clear(fig)


def test_verdict_follows_the_rule_stated_before_the_numbers() -> None:
    from nlpbias.studies.logan import robustness_verdict

    def res(km: list[int], exact: list[int]) -> dict:
        spread = pd.DataFrame(
            {"method": ["K-Means"] * len(km) + ["LOGAN, exact rule"] * len(exact),
             "n_biased": km + exact, "bcr_pct": [12.5 * v for v in km + exact],
             "max_abs_gap_pts": [20.0] * (len(km) + len(exact))}
        )  # fmt: skip
        return {"summary": spread_summary(spread), "lams": {"exact": 30.0}}

    # K-Means moves between 2 and 4 biased clusters: a median gain of 1 is within that
    within = robustness_verdict({"race": res([2, 3, 4], [3, 4, 5])})
    assert "a range of 2: a one-cluster difference is within" in within
    assert (
        "does not add biased clusters beyond K-Means' seed range (rule: the difference is "
        "larger than K-Means' range over the seeds, 2; medians 4 − 3 = 1)"
    ) in within
    # K-Means always finds 3: a median gain of 2 adds clusters
    adds = robustness_verdict({"race": res([3, 3, 3], [5, 5, 6])})
    assert "a range of 0: a one-cluster difference exceeds" in adds
    assert "it adds biased clusters beyond K-Means' seed range" in adds
    assert "range over the seeds, 0; medians 5 − 3 = 2)" in adds
    assert "LOGAN, paper's rule: no usable λ on the path, not fitted." in adds


def test_seed_spread_figure_leaves_degenerate_fits_out_and_says_so() -> None:
    spread = pd.DataFrame(
        {"method": ["K-Means"] * 3 + ["LOGAN, exact rule"] * 3, "seed": [0, 1, 2] * 2,
         "bcr_pct": [50.0, 50.0, 60.0, 60.0, 70.0, 100.0],
         "max_abs_gap_pts": [20.0, 22.0, 25.0, 26.0, 30.0, 100.0],
         "degenerate": ["", "", "", "", "", "largest gap 100 points"]}
    )  # fmt: skip
    fig = seed_spread_figure(spread)
    gap = fig.axes[1]
    xs = sorted(p[0] for c in gap.collections for p in c.get_offsets())
    assert xs == [20.0, 22.0, 25.0, 26.0, 30.0]  # no dot at 100
    assert sorted(line.get_xdata()[0] for line in gap.lines) == [22.0, 28.0]
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["K-Means", "LOGAN, exact rule\n(1 degenerate left out)"]
    assert_legend_clear(fig)
    assert_panel_texts_apart(fig)


def test_seed_spread_figure_explains_an_empty_panel_and_the_path_counts_are_whole() -> None:
    """The paper-smoke profile's gender: every K-Means fit degenerate and LOGAN never fitted
    (no usable λ). The panel says so instead of showing bare axes."""
    spread = pd.DataFrame(
        {"attribute": ["race"] * 2 + ["gender"] * 2, "seed": [0, 1, 0, 1],
         "method": ["K-Means", "LOGAN, paper's rule", "K-Means", "K-Means"],
         "bcr_pct": [50.0, 60.0, 100.0, 100.0], "max_abs_gap_pts": [20.0, 25.0, 30.0, 31.0],
         "degenerate": ["", "", "one eligible cluster", "one eligible cluster"]}
    )  # fmt: skip
    fig = seed_spread_figure(spread)
    gender = fig.axes[2]
    assert [t.get_text() for t in gender.texts] == ["every fit is degenerate:\nnothing to draw"]
    assert [t.get_text() for t in gender.get_yticklabels()] == [
        "K-Means\n(2 degenerate left out)",
        "LOGAN, paper's rule\n(not fitted: no usable λ)",
    ]
    assert_panel_texts_apart(fig)
    path = _demo_path().assign(n_biased=[2, 2, 2, 2, 1, 1, 2, 2, 2, 1, 1])
    ticks = lambda_path_figure(path).axes[0].get_yticks()
    assert all(float(t).is_integer() for t in ticks)
