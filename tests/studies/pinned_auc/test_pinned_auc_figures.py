"""Per-term and per-seed figures of the Dixon study."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.pinned_auc import figures as plotting


def test_per_term_figure_one_panel_per_metric_dots_per_family_and_reference_line() -> None:
    df = pd.DataFrame({"term": ["gay", "gay", "old", "old"], "family": ["a", "b", "a", "b"],
                       "fpr": [0.5, 0.2, 0.1, 0.1], "fnr": [0.0, 0.1, 0.3, 0.2]})  # fmt: skip
    fig = plotting.per_term_figure(df, metrics=["fpr", "fnr"], reference={"fpr": 0.15})
    assert len(fig.axes) == 2
    fpr_ax = fig.axes[0]
    a_dots = fpr_ax.collections[0].get_offsets()
    assert a_dots.tolist() == [[0.5, 0], [0.1, 1]]  # family a: gay at row 0, old at row 1
    assert [ln.get_xdata()[0] for ln in fpr_ax.lines] == [0.15]
    assert not fig.axes[1].lines  # no reference for fnr


def test_seed_dots_figure_draws_models_means_and_paper() -> None:
    df = pd.DataFrame({"family": ["a", "a", "b", "b"], "FPED": [1.0, 3.0, 0.5, 0.7]})
    summary = pd.DataFrame({"family": ["a", "b"], "metric": "FPED", "mean": [2.0, 0.6],
                            "ci_low": [1.0, 0.5], "ci_high": [3.0, 0.7]})  # fmt: skip
    paper = pd.DataFrame({"family": ["a"], "metric": ["FPED"], "value": [2.5]})
    ax = plotting.seed_dots_figure(df, metrics=["FPED"], summary=summary, reference=paper).axes[0]
    dots = ax.collections[0].get_offsets()
    assert sorted(dots[:, 0].tolist()) == [0.5, 0.7, 1.0, 3.0]
    assert np.allclose(ax.containers[0].lines[0].get_xdata(), [2.0, 0.6])
    assert ax.collections[-1].get_offsets().tolist() == [[2.5, 0]]
    with pytest.raises(KeyError, match="FNED"):
        plotting.seed_dots_figure(df, metrics=["FNED"])
