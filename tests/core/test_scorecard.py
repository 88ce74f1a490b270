"""The scorecard's verdict rules, and headline rows through a notebook output and back."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from nlpbias.core import scorecard as sc

BASE = dict(
    study="s",
    key="k",
    claim="A claim.",
    interval="bootstrap",
    data="real",
    chapter="ch",
    section="sec",
)


def row(**kw):
    return sc.headline(**{**BASE, **kw})


@pytest.mark.parametrize(
    ("paper", "book", "lo", "hi", "expected"),
    [
        (0.3, 0.25, 0.1, 0.4, "reproduced"),
        (0.3, 0.05, 0.01, 0.1, "direction only"),
        (0.3, 0.05, -0.01, 0.1, "not reproduced"),  # interval includes 0
        (0.3, -0.2, -0.3, -0.1, "not reproduced"),  # opposite sign
        (-0.435, -0.3, -0.5, -0.1, "reproduced"),
        (-0.435, -0.004, -0.30, 0.29, "not reproduced"),  # the base career case
        ((0.83, 0.91), 0.7, 0.5, 0.85, "reproduced"),  # range overlaps the interval
        ((0.83, 0.91), 0.5, 0.3, 0.7, "direction only"),
    ],
)
def test_direction_rules(paper, book, lo, hi, expected):
    assert row(paper=paper, book=book, ci_low=lo, ci_high=hi)["verdict"] == expected


def test_null_rule_and_untestable():
    assert (
        row(kind="null", paper=0.1, book=0.0, ci_low=-0.1, ci_high=0.2)["verdict"] == "reproduced"
    )
    assert row(kind="null", paper=None, book=0.5, ci_low=0.3, ci_high=0.7)["verdict"] == (
        "not reproduced"
    )
    assert row(paper=1.0, book=None, ci_low=None, ci_high=None)["verdict"] == "not testable offline"
    synth = row(paper=1.0, book=1.0, ci_low=0.9, ci_high=1.1, data="synthetic")
    assert synth["verdict"] == "not testable offline"


def test_direction_stated_without_a_number():
    """The paper says only "they agree": excluding 0 on its side is enough, nothing to reach."""
    kw = dict(paper=None, sign=1)
    r = row(**kw, book=0.9, ci_low=0.2, ci_high=0.99)
    assert r["verdict"] == "reproduced" and r["paper_sign"] == 1 and math.isnan(r["paper_low"])
    assert row(**kw, book=0.5, ci_low=-0.2, ci_high=0.9)["verdict"] == "not reproduced"
    assert row(**kw, book=-0.5, ci_low=-0.9, ci_high=-0.2)["verdict"] == "not reproduced"
    assert row(paper=None, sign=-1, book=-0.5, ci_low=-0.9, ci_high=-0.2)["verdict"] == (
        "reproduced"
    )
    assert row(paper=2.0, book=1.0, ci_low=0.5, ci_high=1.5)["paper_sign"] == 1
    assert row(kind="null", paper=None, book=0.0, ci_low=-1, ci_high=1)["paper_sign"] == 0
    synth = row(**kw, book=1.0, ci_low=0.5, ci_high=1.5, data="synthetic")
    assert synth["verdict"] == "not testable offline"
    shown = sc._shown(sc.check_rows([r]))
    assert shown["paper"].tolist() == ["> 0 (no number)"]


def test_point_without_interval_is_no_test():
    r = row(paper=2.0, book=1.0, ci_low=None, ci_high=None)
    assert r["verdict"] == "not reproduced" and math.isnan(r["ci_low"])


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        (dict(paper=0.0, book=1.0, ci_low=0.5, ci_high=1.5), "use kind='null'"),
        (dict(paper=None, book=1.0, ci_low=0.5, ci_high=1.5), "needs the paper's number"),
        (dict(paper=None, book=1.0, ci_low=0.5, ci_high=1.5, data="synthetic"), "or its sign"),
        (dict(paper=1.0, sign=-1, book=1.0, ci_low=0.5, ci_high=1.5), "disagrees with"),
        (dict(paper=1.0, book=1.0, ci_low=1.5, ci_high=0.5), "above ci_high"),
        (dict(paper=1.0, book=1.0, ci_low=0.5, ci_high=1.5, kind="size"), "kind must be"),
        (dict(paper=1.0, book=1.0, ci_low=0.5, ci_high=1.5, data="demo"), "data must be"),
        (dict(paper=(1.0,), book=1.0, ci_low=0.5, ci_high=1.5), r"\(low, high\)"),
        (dict(paper=1.0, book="x", ci_low=0.5, ci_high=1.5), "book must be a number"),
        (dict(paper=1.0, book=1.0, ci_low=0.5, ci_high=1.5, claim=" "), "claim must be"),
    ],
)
def test_bad_rows_are_refused(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        row(**kw)


def test_check_rows_refuses_duplicates_and_missing_columns():
    r = row(paper=1.0, book=1.0, ci_low=0.5, ci_high=1.5)
    with pytest.raises(ValueError, match="repeat"):
        sc.check_rows([r, r])
    with pytest.raises(ValueError, match="lack column"):
        sc.check_rows(pd.DataFrame([{"study": "s"}]))


def test_glue_round_trip(monkeypatch):
    import IPython.display
    import myst_nb

    glued, shown = [], []
    monkeypatch.setattr(myst_nb, "glue", lambda *a, **kw: glued.append((a, kw)))
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw: shown.append(obj))
    rows = [
        row(key="a", paper=1.0, book=0.9, ci_low=0.5, ci_high=1.5),
        row(key="b", paper=None, kind="null", book=None, ci_low=None, ci_high=None),
    ]
    sc.glue_rows(rows)
    ((args, kw),) = glued
    assert args[0] == sc.GLUE_NAME and kw == {"display": False}  # hidden from the book
    pd.testing.assert_frame_equal(args[1], sc.check_rows(rows))
    (bundle,) = shown  # the table the reader sees, nothing the book cannot render
    assert set(bundle) == {"text/html", "text/plain"}
    assert "0.9 [0.5, 1.5]" in bundle["text/plain"] and "<table" in bundle["text/html"]
    # what the kernel's formatter stores for the glued frame (pandas' Table Schema) comes back
    table = json.loads(args[1].to_json(orient="table"))
    back = sc.rows_from_json(table["data"])
    pd.testing.assert_frame_equal(back, sc.check_rows(rows), check_exact=True)
    pd.testing.assert_frame_equal(sc.rows_from_json(sc.rows_to_json(rows)), back)
    with pytest.raises(ValueError, match="list of JSON records.*glue_rows"):
        sc.rows_from_json({"headlines": []})


def test_rules_are_listed_in_order():
    text = sc.rules_markdown()
    positions = [text.index(f"**{name}**") for name, _ in sc.RULES]
    assert positions == sorted(positions) and len(sc.RULES) == len(sc.VERDICTS)


def test_numbers_as_shown() -> None:
    r = row(paper=(0.83, 0.91), book=0.8766, ci_low=0.51234, ci_high=1.0)
    assert (sc.paper_text(r), sc.book_text(r)) == ("0.83–0.91", "0.877 [0.512, 1]")
    null = row(kind="null", paper=(-0.22, 0.11), book=0.05, ci_low=None, ci_high=None)
    assert (sc.paper_text(null), sc.book_text(null)) == ("-0.22 to 0.11", "0.05")
    none = row(paper=1.0, book=None, ci_low=None, ci_high=None)
    assert (sc.paper_text(none), sc.book_text(none)) == ("1", "—")
    as_json = {**none, "book": 2.0, "ci_low": None, "ci_high": None, "paper_sign": None}
    assert sc.book_text(as_json) == "2" and sc.paper_text({**as_json, "paper_low": None}) == "—"


def test_rows_missing_a_number_column_are_named() -> None:
    with pytest.raises(ValueError, match=r"lack column\(s\) \['claim', 'kind', 'paper'"):
        sc.rows_from_json([{"study": "s", "key": "k"}])


def test_a_share_is_judged_against_the_share_expected_without_concentration():
    # a top-10 % share of 0.35 [0.30, 0.40] beats 0 trivially, but not an even spread of 0.34
    even = row(paper=0.6, book=0.35, ci_low=0.30, ci_high=0.40, null_value=0.34)
    assert even["verdict"] == "not reproduced"
    assert "no-effect value 0.34" in even["reason"]
    concentrated = row(paper=0.6, book=0.55, ci_low=0.5, ci_high=0.65, null_value=0.34)
    assert concentrated["verdict"] == "reproduced"
    assert row(paper=0.6, book=0.55, ci_low=0.5, ci_high=0.65)["verdict"] == "reproduced"
    with pytest.raises(ValueError, match="one side of the no-effect value"):
        row(paper=0.34, book=0.55, ci_low=0.5, ci_high=0.65, null_value=0.34)


def test_an_overshoot_says_it_exceeds_and_is_direction_only():
    up = row(paper=16.7, book=19.97, ci_low=17.65, ci_high=21.66)
    assert up["verdict"] == "direction only"
    assert "exceeds the paper's 16.7" in up["reason"] and "does not reach" not in up["reason"]
    down = row(paper=-2.0, book=-5.0, ci_low=-6.0, ci_high=-3.0)
    assert down["verdict"] == "direction only" and "exceeds" in down["reason"]
    short = row(paper=16.7, book=5.0, ci_low=3.0, ci_high=7.0)
    assert "does not reach the paper's 16.7" in short["reason"]


def test_the_reason_names_its_uncertainty_and_a_disagreeing_test():
    r = row(
        paper=1.0,
        book=0.9,
        ci_low=-0.1,
        ci_high=1.5,
        p_value=1e-4,
        test="permutation test over targets",
        interval="bootstrap over words",
    )
    assert r["verdict"] == "not reproduced"  # the verdict follows the interval
    assert r["reason"].startswith("by its bootstrap over words:")
    assert "permutation test over targets gives p ≤ 0.0001" in r["reason"]
    assert "disagree" in r["reason"]
    agree = row(paper=1.0, book=0.9, ci_low=0.4, ci_high=1.5, p_value=1e-4, test="perm")
    assert "disagree" not in agree["reason"]
    with pytest.raises(ValueError, match="name the test"):
        row(paper=1.0, book=0.9, ci_low=0.4, ci_high=1.5, p_value=0.01)
    with pytest.raises(ValueError, match="p_value must be in"):
        row(paper=1.0, book=0.9, ci_low=0.4, ci_high=1.5, p_value=2.0, test="t")


def test_a_row_that_varies_across_cpus_says_so():
    r = row(paper=1.0, book=0.9, ci_low=0.4, ci_high=1.5, stability="varies across CPUs")
    assert "varies across CPUs" in r["reason"]
    assert "CPU" not in row(paper=1.0, book=0.9, ci_low=0.4, ci_high=1.5)["reason"]
    with pytest.raises(ValueError, match="stability must be one of"):
        row(paper=1.0, book=0.9, ci_low=0.4, ci_high=1.5, stability="flaky")


def test_rows_kept_before_the_new_columns_still_read():
    record = sc.rows_to_json([row(paper=1.0, book=0.9, ci_low=0.4, ci_high=1.5)])[0]
    for c in ("null_value", "p_value", "test", "stability"):
        record.pop(c)
    back = sc.rows_from_json([record])
    assert back.loc[0, "stability"] == "bit-identical" and back.loc[0, "null_value"] == 0.0


def test_a_number_without_an_interval_establishes_nothing():
    # one run: even a number at the paper's is no test
    r = row(paper=0.9, book=0.9, ci_low=None, ci_high=None)
    assert r["verdict"] == "not reproduced"
    assert "no interval" in r["reason"]
