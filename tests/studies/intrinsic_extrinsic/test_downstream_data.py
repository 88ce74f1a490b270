"""Tests for nlpbias.studies.intrinsic_extrinsic.downstream_data (the paper's Tables 17-19)."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, bars

from nlpbias.data.reported import load_reported
from nlpbias.studies.intrinsic_extrinsic import downstream_data as ds
from nlpbias.studies.intrinsic_extrinsic.downstream_data import dataset_sizes, hsd_group_counts
from nlpbias.studies.intrinsic_extrinsic.figures import hsd_groups_figure
from nlpbias.studies.intrinsic_extrinsic.hsd import HSDSplit

GENDER = {"male": 7, "female": 5, "both": 2, "none": 26}
DIALECT = {"white-aligned": 11, "AA-aligned": 20, "other": 6, "unknown": 3}
PAPER = load_reported("kato2024")


def _hsd(n_train: int = 95) -> HSDSplit:
    """40 test tweets with planted groups (shuffled, so counting cannot rely on order)."""
    rng = np.random.default_rng(0)
    gender = np.repeat(list(GENDER), list(GENDER.values()))
    dialect = np.repeat(list(DIALECT), list(DIALECT.values()))
    test = pd.DataFrame({"gender": rng.permutation(gender), "dialect": rng.permutation(dialect)})
    test = test.assign(text="t", toxic=False, label=2)
    train = pd.DataFrame({"text": ["x"] * n_train, "toxic": False, "label": 2})
    return HSDSplit(train, test)


def test_group_counts_sum_our_groups_into_the_papers_with_the_papers_numbers_beside() -> None:
    t = hsd_group_counts(_hsd()).set_index(["attribute", "group"])
    assert t.loc[("gender", "male-targeting"), "tweets"] == 7
    assert t.loc[("gender", "female-targeting"), "tweets"] == 5
    assert t.loc[("gender", "neutral"), "tweets"] == 2 + 26
    assert t.loc[("gender", "neutral"), "groups here"] == "both (2) + none (26)"
    assert t.loc[("dialect", "white-sounding"), "tweets"] == 11
    assert t.loc[("dialect", "African-American-sounding"), "tweets"] == 20
    assert t.loc[("dialect", "others"), "tweets"] == 6 + 3
    assert t.loc[("gender", "female-targeting"), "share"] == pytest.approx(5 / 40)
    for attribute in ("gender", "dialect"):
        block = t.loc[attribute]
        assert block["tweets"].sum() == 40 and block["share"].sum() == pytest.approx(1.0)
        reported = PAPER["hsd_test_groups"][attribute]
        assert block["paper tweets"].to_dict() == reported
        assert block["paper share"].sum() == pytest.approx(1.0)
    assert t.loc[("gender", "male-targeting"), "paper share"] == pytest.approx(1837 / 15000)


def test_group_counts_refuse_what_they_cannot_place() -> None:
    train, test = _hsd()
    with pytest.raises(ValueError, match="lacks the 'dialect' column"):
        hsd_group_counts((train, test.drop(columns="dialect")))
    odd = test.assign(gender=test["gender"].replace({"both": "nonbinary"}))
    with pytest.raises(ValueError, match=r"groups \['nonbinary'\] have no place"):
        hsd_group_counts((train, odd))
    with pytest.raises(ValueError, match="have no gender group"):
        hsd_group_counts((train, test.assign(gender=None)))
    with pytest.raises(TypeError, match="hsd_data's"):
        hsd_group_counts(test)


def test_sizes_hold_out_the_kim_cnns_validation_share_of_train() -> None:
    t = dataset_sizes(_hsd(n_train=95)).set_index("split")
    # the classifier's default validation_fraction (0.1): train_test_split holds out ceil(9.5)
    assert t.loc["validation", "examples"] == 10 and t.loc["train", "examples"] == 85
    assert t.loc["test", "examples"] == 40
    assert t["paper examples"].to_dict() == PAPER["dataset_sizes"]["hsd"]
    none = dataset_sizes(_hsd(n_train=95), validation_fraction=0.0).set_index("split")
    assert none.loc["validation", "examples"] == 0 and none.loc["train", "examples"] == 95


def test_sizes_count_coreference_examples_not_pairs() -> None:
    def pairs(ids: list[str], **extra: object) -> pd.DataFrame:
        return pd.DataFrame({"example_id": ids, **extra})

    coref = (
        pairs(["g1", "g1", "g2", "g3", "g3"]),  # 5 pairs, 3 texts
        pairs(["t1", "t1", "t2"]),
        pairs(["a", "a", "b", "c", "c", "d"], type=[1, 1, 1, 2, 2, 2]),
    )
    t = dataset_sizes(_hsd(), coref)
    co = t[t["task"] == "coreference"].set_index(["paper dataset", "split"])
    assert co.loc[("OntoNotes 5.0", "train"), "examples"] == 3
    assert co.loc[("OntoNotes 5.0", "test"), "examples"] == 2
    assert co.loc[("WinoBias type 1", "test"), "examples"] == 2
    assert co.loc[("WinoBias type 2", "test"), "examples"] == 2
    assert pd.isna(co.loc[("OntoNotes 5.0", "validation"), "examples"])
    assert co.loc[("WinoBias type 2", "validation"), "paper examples"] == 792
    assert co.loc[("OntoNotes 5.0", "train"), "paper examples"] == 75187
    with pytest.raises(ValueError, match=r"\('winobias', 'type'\)"):
        dataset_sizes(_hsd(), (coref[0], coref[1], coref[2].drop(columns="type")))


def test_groups_figure_draws_our_and_the_papers_shares() -> None:
    counts = hsd_group_counts(_hsd())
    fig = hsd_groups_figure(counts)
    assert [ax.get_title() for ax in fig.axes] == [
        "gender (the paper's Table 18)",
        "dialect (the paper's Table 19)",
    ]
    ours, theirs = "this book (40 test tweets)", "Katô & Miyao (15,000 test tweets)"
    for ax, attribute in zip(fig.axes, ["gender", "dialect"], strict=True):
        drawn = bars(ax)
        block = counts[counts["attribute"] == attribute]
        for hue, column in ((ours, "share"), (theirs, "paper share")):
            got = drawn[drawn["hue"] == hue].set_index("label")["value"]
            want = block.set_index("group")[column]
            pd.testing.assert_series_equal(
                got.sort_index(), want.sort_index(), check_names=False, check_index_type=False
            )
    assert_legend_clear(fig)


def test_doctests() -> None:
    failed, attempted = doctest.testmod(ds, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted and not failed
