"""Tests for nlpbias.studies.intrinsic_extrinsic.figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.intrinsic_extrinsic.figures import (
    intrinsic_extrinsic_figure,
    rho_vs_paper_figure,
)


def _scores() -> pd.DataFrame:
    rows = [{"method": "original", "modset": np.nan, "x": 0.0, "y": 0.0, "sd": 0.3}]
    rows += [
        {"method": "balance", "modset": "extracted", "x": i, "y": 2 * i, "sd": np.nan}
        for i in range(1, 4)
    ]
    rows += [
        {"method": "attract_repel", "modset": "weat", "x": -i, "y": i, "sd": np.nan}
        for i in range(1, 3)
    ]
    df = pd.DataFrame(rows).rename(
        columns={"x": "intrinsic:extracted:weat", "y": "extrinsic:g", "sd": "extrinsic_sd:g"}
    )
    return df.assign(family="coref", algorithm="word2vec")


PANEL = {
    "family": "coref",
    "algorithm": "word2vec",
    "modset": "extracted",
    "x": "intrinsic:extracted:weat",
    "y": "extrinsic:g",
}


def test_panel_shows_the_original_and_its_modset_only_with_error_bars() -> None:
    fig = intrinsic_extrinsic_figure(_scores(), [PANEL])
    ax = fig.axes[0]
    from matplotlib.collections import PathCollection

    n_points = sum(len(c.get_offsets()) for c in ax.collections if type(c) is PathCollection)
    assert n_points == 1 + 3  # the original + 3 balanced, not the Attract-Repel 'weat' ones
    assert len(ax.containers) == 1  # one errorbar container, for the original
    assert "ρ = 1.00 (n = 4)" in ax.texts[0].get_text()


def test_missing_column_is_named() -> None:
    with pytest.raises((KeyError, ValueError), match="extrinsic:nope"):
        intrinsic_extrinsic_figure(_scores(), [dict(PANEL, y="extrinsic:nope")])


def test_rho_vs_paper_skips_cells_without_both_values() -> None:
    t = pd.DataFrame(
        {
            "rho": [0.5, np.nan, 0.2],
            "paper rho": [0.9, 0.1, np.nan],
            "wordset kind": ["extracted", "WEAT", "WEAT"],
        }
    )
    ax = rho_vs_paper_figure(t).axes[0]
    assert sum(len(c.get_offsets()) for c in ax.collections) == 1  # only the complete row
