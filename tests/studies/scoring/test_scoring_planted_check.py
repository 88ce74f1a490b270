"""The planted check's words (issue 27): "moved as planted" only where the association's shift
exceeds the yardstick the chapter states — the wider of the base model's two 95 % intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.scoring.study import PLANTED_YARDSTICK, planted_check, planted_shift


def _table(leader_after: float, follower_after: float) -> pd.DataFrame:
    # the demo run's base model: leader −0.607 [−0.932, −0.319], follower −0.359 [−0.557, −0.169]
    return pd.DataFrame(
        {"model": ["base", "base", "planted", "planted"],
         "attribute": ["leader", "follower", "leader", "follower"],
         "bias": [-0.6066, -0.3589, leader_after, follower_after],
         "ci_low": [-0.9318, -0.5565, 0.0, 0.0], "ci_high": [-0.3194, -0.1688, 0.0, 0.0]}
    )  # fmt: skip


def _check(leader_after, follower_after, direction="female"):
    t = _table(leader_after, follower_after)
    planted = {"concept": "leader", "direction": direction}
    return planted_check(planted_shift(t, planted, base_label="base"), t, planted,
                         base_label="base")  # fmt: skip


def test_the_demo_shift_does_not_exceed_the_wider_interval() -> None:
    """The issue's case: 'Moved as planted: True' on a shift of 0.387 while the leader interval
    is 0.613 wide."""
    out = _check(0.0424, -0.0969)
    assert out.holds is False
    assert out.word == "moved the planted way, but not by more than the yardstick"
    named = "leader (0.612) and follower (0.388)"
    assert PLANTED_YARDSTICK.format(concepts=named) in out.criterion
    assert out.criterion.endswith(", 0.612")  # the margin is the wider width
    moved = "leader − follower moved by 0.387 in the planted direction (−0.248 → 0.139)"
    assert out.detail == moved
    assert str(out).startswith("moved the planted way, but not by more than the yardstick (")


def test_a_large_shift_moved_as_planted_and_the_wrong_way_is_named() -> None:
    out = _check(0.5, -0.5)  # association −0.248 -> 1.0: shift 1.248 > 0.612
    assert out.holds is True and out.word == "moved as planted"
    assert _check(0.5, -0.5, direction="male").word == "did not move the planted way"
    assert _check(-0.9, -0.2).word == "did not move the planted way"


def test_missing_intervals_are_an_error() -> None:
    t = _table(0.0, 0.0)
    planted = {"concept": "leader"}
    shift = planted_shift(t, planted, base_label="base")
    with pytest.raises(ValueError, match="intervals on \\['leader', 'follower'\\] are missing"):
        planted_check(shift, t.assign(ci_low=float("nan")), planted, base_label="base")
    with pytest.raises(KeyError, match="no \\['leader', 'follower'\\]"):
        planted_check(shift, t.assign(model="x"), planted, base_label="base")


def test_doctests_of_the_check_and_the_person_average() -> None:
    import doctest
    import importlib

    for name in ("study", "headlines"):
        module = importlib.import_module(f"nlpbias.studies.scoring.{name}")
        failed, attempted = doctest.testmod(module, raise_on_error=False, verbose=False)[:2]
        assert attempted > 0 and failed == 0, module.__name__


class _Result:
    def __init__(self, top1: float) -> None:
        self.top1 = top1

    def summary(self) -> pd.Series:
        return pd.Series(
            {"train texts": 90.0, "validation texts": 10.0, "steps": 4.0, "top-1 before": 0.1,
             "top-1 after": self.top1, "top-5 before": 0.2, "top-5 after": 0.3, "seconds": 1.5}
        )  # fmt: skip


def test_accuracy_table_has_integer_counts_and_no_all_empty_paper_column() -> None:
    from nlpbias.studies.scoring.study import accuracy_table

    demo = accuracy_table({"planted": _Result(0.4)}, paper={"Trump": 0.6359})
    assert "paper top-1 after" not in demo.columns  # was a column of NaN on demo
    assert demo["train texts"].dtype.kind == "i" and demo.loc[0, "steps"] == 4
    real = accuracy_table({"Trump": _Result(0.5), "Clinton": _Result(0.6)}, paper={"Trump": 0.6359})
    assert real["paper top-1 after"].tolist()[0] == 0.6359
    assert np.isnan(real["paper top-1 after"].tolist()[1])
