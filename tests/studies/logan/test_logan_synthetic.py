"""Tests for nlpbias.studies.logan.synthetic (planted local group bias for LOGAN)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nlpbias.studies.logan.synthetic import make_local_bias_data


def _gap(data: dict, mask: np.ndarray | None = None) -> float:
    """Accuracy of A minus accuracy of B, computed from the returned arrays."""
    correct = data["y_pred"] == data["y_true"]
    keep = np.ones(len(correct), dtype=bool) if mask is None else mask
    acc = {g: correct[keep & (data["group"] == g)].mean() for g in ("A", "B")}
    return float(acc["A"] - acc["B"])


def _rounding_tolerance(data: dict) -> float:
    """Largest accuracy error from rounding to whole instances, per cell, doubled for a gap."""
    return 1.0 / data["truth"]["n"].min()


@pytest.mark.parametrize(("seed", "biased", "local_gap"), [(0, 0, 0.3), (1, 3, 0.2)])
def test_global_gap_small_but_planted_region_gap_large(seed, biased, local_gap) -> None:
    data = make_local_bias_data(
        4000, biased_region=biased, local_gap=local_gap, global_gap_max=0.02, random_state=seed
    )
    tol = _rounding_tolerance(data)
    global_gap = _gap(data)
    assert global_gap == pytest.approx(data["global_gap"])
    assert abs(global_gap) <= 0.02 + tol
    region = data["region"]
    assert _gap(data, region == biased) == pytest.approx(local_gap, abs=tol)
    # every other region has the same small reverse gap (group A slightly worse)
    others = [_gap(data, region == r) for r in range(6) if r != biased]
    delta = data["compensation_gap"]
    assert 0 < delta < 0.05
    np.testing.assert_allclose(others, -delta, atol=tol)


def test_target_accuracies_put_the_global_gap_exactly_at_the_cap() -> None:
    data = make_local_bias_data(3000, random_state=2)
    truth = data["truth"]
    expected = {}
    for g, part in truth.groupby("group"):
        expected[g] = (part["n"] * part["target_accuracy"]).sum() / part["n"].sum()
    # the biased region alone would exceed the cap, so the compensation makes it exactly 0.02
    assert expected["A"] - expected["B"] == pytest.approx(0.02, abs=1e-12)
    biased = truth[truth["biased"]].set_index("group")["target_accuracy"]
    assert biased["A"] == pytest.approx(0.95) and biased["B"] == pytest.approx(0.65)
    assert (truth["accuracy"] - truth["target_accuracy"]).abs().max() <= 0.5 / truth["n"].min()


def test_no_compensation_needed_when_the_cap_allows_the_local_gap() -> None:
    data = make_local_bias_data(3000, local_gap=0.06, global_gap_max=0.05, random_state=4)
    assert data["compensation_gap"] == 0.0
    tol = _rounding_tolerance(data)
    for r in range(1, 6):
        assert _gap(data, data["region"] == r) == pytest.approx(0.0, abs=tol)
    # about a sixth of the data carries the 0.06 gap
    assert _gap(data) == pytest.approx(0.01, abs=0.004)


def test_regions_are_separated_gaussians_and_groups_independent() -> None:
    data = make_local_bias_data(3000, dim=8, n_regions=4, separation=6.0, random_state=5)
    centres = data["centres"]
    for i, j in itertools.combinations(range(4), 2):
        assert np.linalg.norm(centres[i] - centres[j]) == pytest.approx(6.0)
    dist = ((data["X"][:, None, :] - centres[None]) ** 2).sum(axis=2)
    assert (dist.argmin(axis=1) == data["region"]).mean() > 0.98
    residual = data["X"] - centres[data["region"]]
    assert residual.std() == pytest.approx(1.0, abs=0.03)
    share_b = [(data["group"][data["region"] == r] == "B").mean() for r in range(4)]
    np.testing.assert_allclose(share_b, 0.5, atol=0.06)


def test_outputs_are_consistent() -> None:
    data = make_local_bias_data(500, random_state=6)
    assert data["X"].shape == (500, 16)
    assert set(np.unique(data["y_true"])) == {0, 1} and set(np.unique(data["y_pred"])) <= {0, 1}
    assert set(np.unique(data["group"])) == {"A", "B"}
    assert ((data["y_score"] >= 0.5) == (data["y_pred"] == 1)).all()
    assert ((data["y_score"] >= 0) & (data["y_score"] < 1)).all()
    assert data["truth"]["n"].sum() == 500
    assert list(data["truth"].columns) == [
        "region", "group", "n", "target_accuracy", "accuracy", "biased",
    ]  # fmt: skip


def test_deterministic_for_a_seed() -> None:
    a = make_local_bias_data(400, random_state=7)
    b = make_local_bias_data(400, random_state=7)
    c = make_local_bias_data(400, random_state=8)
    for key in ("X", "y_true", "y_pred", "y_score", "group", "region", "centres"):
        np.testing.assert_array_equal(a[key], b[key])
    assert a["truth"].equals(b["truth"])
    assert not np.array_equal(a["X"], c["X"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_regions": 20}, "exceeds dim"),
        ({"biased_region": 6}, r"biased_region must be an integer in \[0, 5\]"),
        ({"local_gap": 0.6}, "leaves"),
        ({"n": 5}, "too small"),
        ({"group_share": 1.0}, "strictly between"),
        ({"n_regions": 1}, "n_regions must be an integer >= 2"),
    ],
)
def test_bad_input_raises_one_line_errors(kwargs, match, one_line) -> None:
    with pytest.raises(ValueError, match=match) as err:
        make_local_bias_data(**{"n": 4000, **kwargs}, random_state=0)
    one_line(err)
