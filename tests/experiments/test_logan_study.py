"""The LOGAN study on the synthetic stand-in: the planted biased region is found."""

from __future__ import annotations

import numpy as np
import pytest

from nlpbias.experiments import logan as ex


@pytest.fixture(scope="module")
def run() -> dict:
    data = ex.load_logan_data(use_data_home=False, n_synthetic=3000, random_state=0)
    return {"data": data, **ex.run_attribute(data, "planted", n_permutations=20,
                                             show_progress=False)}  # fmt: skip


def test_logan_finds_the_planted_region_while_the_global_gap_stays_small(run: dict) -> None:
    t1 = run["table1"]
    assert t1.loc["Global", "bias"] < 4  # points
    assert t1.loc["LOGAN", "bias"] > 20
    rep = run["logan"].cluster_report_
    top = rep.loc[rep[rep["eligible"]]["abs_gap"].idxmax(), "cluster"]
    region = run["data"].truth["region"][run["subset"]["index"]]
    labels = run["logan"].labels_
    assert np.mean(labels[region == 0] == top) > 0.9  # the planted region lands in one cluster
    assert np.mean(region[labels == top] == 0) > 0.9  # and that cluster is mostly the region


def test_tables_and_null(run: dict) -> None:
    assert list(run["table1"].index) == ["Global", "K-Means", "LOGAN"]
    assert run["table4"].loc["K-Means", "inertia_ratio"] == 1.0
    assert run["lam"] in (1, 5, 10, 100)
    null = run["null"]
    assert len(null.null) == 20 and null.p_value == pytest.approx(
        (np.sum(null.null >= null.observed) + 1) / 21
    )


def test_bad_requests(run: dict) -> None:
    with pytest.raises(KeyError, match="unknown attribute 'race'"):
        run["data"].subset("race")
    with pytest.raises(ValueError, match="classifier must be"):
        ex.load_logan_data(use_data_home=False, classifier="bert")
