"""Tests of nlpbias.data.splits: the two-way split keeps its draws; the three-way split's sizes,
strata, determinism and errors on a planted frame; the real corpus's 0.8 / 0.1 / 0.1 split."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.data.splits import stratified_split, train_validation_test_split


def _planted(n: int = 1000, n_toxic: int = 100) -> pd.DataFrame:
    """``n`` rows, ``n_toxic`` of them toxic (spread out), indexed 3, 6, 9, ... in reverse."""
    toxic = np.zeros(n, dtype=bool)
    toxic[:: n // n_toxic] = True
    return pd.DataFrame(
        {"text": [f"t{i}" for i in range(n)], "toxic": toxic, "extra": np.arange(n)},
        index=pd.Index(np.arange(n, 0, -1) * 3, name="row"),
    )


def test_stratified_split_draws_as_before() -> None:
    # the draws of the two-way split before it shared _draw with the three-way split
    df = pd.DataFrame({"text": list("abcdefghij"), "toxic": [1, 0, 0, 1, 0, 0, 0, 1, 0, 0]})
    train, test = stratified_split(df, 0.3, np.random.default_rng(7))
    assert test.index.tolist() == [6, 7, 8]
    assert train.index.tolist() == [0, 1, 2, 3, 4, 5, 9]


def test_three_way_split_sizes_strata_and_order() -> None:
    df = _planted()
    train, val, test = train_validation_test_split(
        df, validation_fraction=0.15, test_fraction=0.1, random_state=0
    )
    assert [len(train), len(val), len(test)] == [750, 150, 100]
    assert [int(p["toxic"].sum()) for p in (train, val, test)] == [75, 15, 10]
    ids = [set(p.index) for p in (train, val, test)]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    assert ids[0] | ids[1] | ids[2] == set(df.index)
    for part in (train, val, test):  # the input's rows, columns and row order
        assert list(part.columns) == ["text", "toxic", "extra"]
        assert part.index.name == "row"
        assert part["extra"].is_monotonic_increasing
        pd.testing.assert_frame_equal(part, df.loc[part.index])


def test_three_way_split_is_seeded() -> None:
    df = _planted()
    kw = {"validation_fraction": 0.1, "test_fraction": 0.1}
    a = train_validation_test_split(df, random_state=3, **kw)
    b = train_validation_test_split(df, random_state=3, **kw)
    c = train_validation_test_split(df, random_state=4, **kw)
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x, y)
    assert not a[1].index.equals(c[1].index) and not a[2].index.equals(c[2].index)


def test_the_test_part_is_the_two_way_splits_test() -> None:
    df = _planted()
    _, _, test = train_validation_test_split(
        df, validation_fraction=0.2, test_fraction=0.1, random_state=5
    )
    _, two_way_test = stratified_split(df, 0.1, np.random.default_rng(5))
    assert set(test.index) == set(two_way_test.index)


def test_zero_one_labels_are_stratified_and_kept() -> None:
    df = _planted().assign(toxic=lambda d: d["toxic"].astype(int))
    train, val, test = train_validation_test_split(
        df, validation_fraction=0.1, test_fraction=0.1, random_state=0
    )
    assert [int(p["toxic"].sum()) for p in (train, val, test)] == [80, 10, 10]
    assert train["toxic"].dtype == df["toxic"].dtype


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"validation_fraction": 0.5, "test_fraction": 0.5},
            ValueError,
            r"validation_fraction \+ test_fraction = 1 leaves no training rows",
        ),
        (
            {"validation_fraction": 0.0005, "test_fraction": 0.1},
            ValueError,
            r"validation_fraction=0.0005 leaves the validation part without toxic=False rows "
            r"\(round\(900 x 0.0005\) = 0\)",
        ),
        (
            {"validation_fraction": 0.1, "test_fraction": 0.004},
            ValueError,
            r"test_fraction=0.004 leaves the test part without toxic=True rows "
            r"\(round\(100 x 0.004\) = 0\)",
        ),
        ({"validation_fraction": 0.0, "test_fraction": 0.1}, ValueError, "validation_fraction"),
        ({"validation_fraction": 0.1, "test_fraction": 1.0}, ValueError, "test_fraction"),
    ],
    ids=["sum 1", "empty validation", "no toxic test rows", "zero", "one"],
)
def test_fractions_that_leave_a_part_empty_are_refused(kwargs, error, match, one_line) -> None:
    with pytest.raises(error, match=match) as err:
        train_validation_test_split(_planted(), random_state=0, **kwargs)
    one_line(err)


def test_too_few_rows_for_a_train_part_is_refused(one_line) -> None:
    df = pd.DataFrame({"text": list("abcdef"), "toxic": [1, 1, 0, 0, 0, 0]})
    with pytest.raises(ValueError, match=r"leave the train part without toxic=True rows") as err:
        train_validation_test_split(df, validation_fraction=0.3, test_fraction=0.3, random_state=0)
    one_line(err)


def test_bad_frames_are_refused() -> None:
    kw = {"validation_fraction": 0.1, "test_fraction": 0.1, "random_state": 0}
    with pytest.raises(KeyError, match=r"column\(s\) \['toxic'\] not in the frame"):
        train_validation_test_split(_planted().drop(columns="toxic"), **kw)
    with pytest.raises(ValueError, match="must be bool or 0/1"):
        train_validation_test_split(_planted().assign(toxic="yes"), **kw)
    with pytest.raises(ValueError, match="missing values"):
        train_validation_test_split(_planted().assign(toxic=np.nan), **kw)
    with pytest.raises(ValueError, match="index has duplicates; call reset_index"):
        train_validation_test_split(_planted().set_index(pd.Index([0] * 1000)), **kw)
    with pytest.raises(ValueError, match="empty DataFrame"):
        train_validation_test_split(_planted().iloc[:0], **kw)


@pytest.mark.usefixtures("use_data_home")
def test_real_wikipedia_talk_split() -> None:
    from nlpbias.data.dixon import load_wikipedia_talk_2018

    df = load_wikipedia_talk_2018()
    parts = train_validation_test_split(
        df, validation_fraction=0.1, test_fraction=0.1, random_state=0
    )
    assert [len(p) for p in parts] == [16_000, 2_000, 2_000]
    # 1,947 toxic: round(194.7) = 195 each held out, the rest trains
    assert [int(p["toxic"].sum()) for p in parts] == [1_557, 195, 195]
