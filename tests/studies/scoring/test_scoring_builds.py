"""The builds of the stand-in (issue 27): the table and sentences about this run are written from
its numbers, beside the numbers recorded from earlier `paper` builds, by a stated rule."""

from __future__ import annotations

import doctest
import math

import pandas as pd
import pytest

from nlpbias.core.criteria import Interval
from nlpbias.studies.scoring import builds as mod
from nlpbias.studies.scoring.builds import (
    SURVIVES,
    builds_statements,
    builds_table,
    person_effect_text,
    recorded_builds,
    run_numbers,
    same_build,
    survives,
)

NAN = math.nan


def _bias(career=(-0.0304, -0.2676, 0.2572), average=-0.2387) -> pd.DataFrame:
    return pd.DataFrame(
        {"model": ["base", "base", "planted"], "attribute": ["career", "average", "career"],
         "bias": [career[0], average, 0.5], "ci_low": [career[1], NAN, 0.4],
         "ci_high": [career[2], NAN, 0.6]}
    )  # fmt: skip


def _per_seed(person="planted", values=(-0.05, 0.04)) -> pd.DataFrame:
    return pd.DataFrame(
        {"person": person, "seed": range(len(values)), "concept": "average", "bias": values}
    )


def test_doctests() -> None:
    assert doctest.testmod(mod).failed == 0


def test_recorded_builds_read_with_their_source() -> None:
    rec = recorded_builds()
    assert rec["profile"] == "paper" and "e504c32" in rec["source"]
    names = [b["name"] for b in rec["builds"]]
    assert names == ["first build", "second build", "third build"]
    third = rec["builds"][2]
    assert third["base_career"] == Interval(-0.30, -0.45, -0.12)
    assert math.isnan(rec["builds"][0]["base_career"].low)  # no interval recorded


@pytest.mark.parametrize(
    ("values", "holds", "detail"),
    [
        ([Interval(0.13, NAN, NAN), Interval(-0.3, -0.45, -0.12)], False, "the sign flips"),
        ([Interval(-0.2, NAN, NAN), Interval(-0.3, NAN, NAN)], False, "none of the 2 builds"),
        ([Interval(-0.2, -0.4, 0.1), Interval(-0.3, -0.45, -0.12)], False, "1 of the 2 builds'"),
        ([Interval(-0.2, -0.3, -0.1), Interval(-0.3, -0.45, -0.12)], True, "every interval"),
    ],
)
def test_survives_needs_one_sign_and_intervals_clear_of_zero(values, holds, detail) -> None:
    out = survives(values)
    assert out.holds is holds and detail in out.detail
    assert out.word == ("survives" if holds else "does not survive")
    assert out.criterion == SURVIVES
    with pytest.raises(ValueError, match="two builds"):
        survives(values[:1])


def test_run_numbers_read_the_run() -> None:
    run = run_numbers(_bias(), _per_seed(), base_label="base", random_state=0, top1=0.2)
    assert run["base_career"] == Interval(-0.0304, -0.2676, 0.2572)
    assert run["base_average"].estimate == -0.2387 and math.isnan(run["base_average"].low)
    assert "trump_average" not in run and run["top1"] == 0.2
    trump = run_numbers(
        _bias(), _per_seed("Trump", (-0.3, -0.25)), base_label="base", random_state=1
    )
    assert trump["trump_average"].estimate == -0.25  # the seed random_state's model
    with pytest.raises(ValueError, match="no rows of model 'bert'"):
        run_numbers(_bias(), _per_seed(), base_label="bert", random_state=0)


def test_demo_run_is_shown_not_judged_and_its_interval_is_read() -> None:
    """The issue's case: the demo page said the present career interval excludes 0 beside
    −0.030 [−0.268, 0.257]; the sentence now comes from the run's interval."""
    rec = recorded_builds()
    run = run_numbers(_bias(), _per_seed(), base_label="base", random_state=0, top1=0.197)
    table = builds_table(rec, run, profile="demo", counts=False)
    assert list(table.columns) == [
        "first build", "second build", "third build", "this run (`demo`)",
        "survives the builds?",
    ]  # fmt: skip
    assert table.loc["base stand-in, career", "this run (`demo`)"] == "−0.030 [−0.268, +0.257]"
    assert table.loc["base stand-in, career", "second build"] == "−0.004 [−0.3, +0.34]"
    # judged over the three recorded builds only: the demo value does not enter the rule
    assert "(+0.13, −0.004, −0.3)" in table.loc["base stand-in, career", "survives the builds?"]
    trump = "Trump's model (seed `random_state`), average of the six concepts"
    assert table.loc[trump, "this run (`demo`)"] == "— (not in this run)"
    text = builds_statements(
        rec, run, profile="demo", counts=False, base_verdicts={"career": "not testable offline"}
    )
    assert "career bias is −0.030 [−0.268, +0.257]: its 95 % interval includes 0" in text
    assert "excludes" not in text.split("\n")[0]
    assert "*not testable offline*" in text
    assert "not judged with them" in text and "Over the 3 builds" in text
    assert "This run has no Trump model" in text


def test_a_paper_run_counts_as_a_build_and_its_interval_can_exclude_zero() -> None:
    rec = recorded_builds()
    bias = _bias(career=(-0.25, -0.4, -0.1), average=-0.3)
    run = run_numbers(bias, _per_seed("Trump", (-0.2, -0.21, -0.19)), base_label="base",
                      random_state=0)  # fmt: skip
    assert same_build(rec, run) is None
    table = builds_table(rec, run, profile="paper", counts=True)
    assert "−0.25)" in table.loc["base stand-in, career", "survives the builds?"]
    text = builds_statements(
        rec, run, profile="paper", counts=True, trump_seed_range=0.02,
        base_verdicts={"career": "direction only"},
    )  # fmt: skip
    assert "its 95 % interval excludes 0" in text and "Over the 4 builds" in text
    # builds span 0.38 − 0.2 = 0.18 > the seeds' 0.02: rebuilding moves it more
    assert "Rebuilding the stand-in moves it more than re-running the fine-tuning" in text
    wide = builds_statements(rec, run, profile="paper", counts=True, trump_seed_range=0.5)
    assert "does not move it more" in wide and "understates" not in wide


def test_a_run_that_rebuilds_a_recorded_build_is_not_counted_twice() -> None:
    rec = recorded_builds()
    bias = _bias(career=(-0.3012, -0.4498, -0.1203), average=-0.3604)
    run = run_numbers(bias, _per_seed("Trump", (-0.2201, -0.25)), base_label="base",
                      random_state=0)  # fmt: skip
    assert same_build(rec, run) == "third build"
    text = builds_statements(rec, run, profile="paper", counts=True)
    assert "rebuilt that stand-in" in text and "Over the 3 builds" in text
    table = builds_table(rec, run, profile="paper", counts=True)
    assert table.attrs["counts"] is False


def _build(name, base, trump) -> dict:
    out = {"name": name, "base_average": Interval(base, NAN, NAN)}
    if trump is not None:
        out["trump_average"] = Interval(trump, NAN, NAN)
    return out


def test_person_effect_is_trump_minus_base_and_its_direction_is_judged_over_builds() -> None:
    # the recorded builds: -0.24 - 0.03, -0.38 + 0.04, -0.22 + 0.36
    text = person_effect_text(recorded_builds(), {}, counts=False)
    assert "does not survive the builds" in text
    assert "first build: −0.270 (more pro-male)" in text
    assert "second build: −0.340 (more pro-male)" in text
    assert "third build: +0.140 (less pro-male)" in text
    same = {"builds": [_build("a", 0.1, -0.2), _build("b", -0.3, -0.5), _build("c", 0.0, None)]}
    assert "has the same direction in every build" in person_effect_text(same, {}, counts=False)
    assert "c:" not in person_effect_text(same, {}, counts=False)  # no Trump: not listed
    # a paper run is one more build: its opposite effect breaks the agreement
    run = {"base_average": Interval(-0.1, NAN, NAN), "trump_average": Interval(0.2, NAN, NAN)}
    flipped = person_effect_text(same, run, counts=True)
    assert "does not survive" in flipped and "this run: +0.300 (less pro-male)" in flipped
    # ... but only when it counts; one build alone says nothing
    assert "has the same direction" in person_effect_text(same, run, counts=False)
    assert person_effect_text({"builds": same["builds"][:1]}, {}, counts=False) == ""
    # the chapter's statements carry it
    assert "The person effect" in builds_statements(
        recorded_builds(), run_numbers(_bias(), _per_seed(), base_label="base", random_state=0),
        profile="demo", counts=False,
    )  # fmt: skip


def test_the_paper_run_of_2026_11_27_is_recognised_as_the_third_build_rebuilt() -> None:
    """Its numbers, as printed by that run: estimates and top-1 as recorded for the third build,
    the career interval's upper end −0.112 (recorded −0.12). The model is the same; the bootstrap
    is not compared."""
    rec = recorded_builds()
    run = {
        "base_career": Interval(-0.2964, -0.4459, -0.1117),
        "base_average": Interval(-0.3587, NAN, NAN),
        "trump_average": Interval(-0.2233, NAN, NAN),
        "top1": 0.26601,
    }
    assert same_build(rec, run) == "third build"
    text = builds_statements(rec, run, profile="paper", counts=True)
    assert "rebuilt that stand-in" in text and "Over the 3 builds" in text
    assert "this run:" not in text  # not listed again as a build of the person effect
    # another estimate, or another top-1, is another build
    assert same_build(rec, {**run, "base_average": Interval(-0.31, NAN, NAN)}) is None
    assert same_build(rec, {**run, "top1": 0.25}) is None
