"""Tests for the generated coreference stand-in (nlpbias.data.synthetic_coref)."""

from __future__ import annotations

import pandas as pd
import pytest

from nlpbias.data.synthetic_coref import make_coref_standin, standin_templates


@pytest.fixture(scope="module")
def standin() -> dict:
    return make_coref_standin(n_train=400, n_test=60, random_state=3)


def test_gap_rows_have_consistent_offsets_and_one_referent(standin: dict) -> None:
    gap = standin["gap"]
    for row in gap.itertuples(index=False):
        text = row.Text
        assert text[row[3] : row[3] + len(row.Pronoun)] == row.Pronoun
        assert text[row[5] : row[5] + len(row.A)] == row.A
        assert text[row[8] : row[8] + len(row.B)] == row.B
    assert (gap["A-coref"].astype(int) + gap["B-coref"].astype(int) == 1).all()


def test_training_pronoun_gender_is_independent_of_the_occupation(standin: dict) -> None:
    gap = standin["gap"]
    male = set(standin["occupations"].query("group == 'male_biased'")["occupation"])
    gold = gap["A"].where(gap["A-coref"], gap["B"])
    share_he = (gap["Pronoun"] == "he").groupby(gold.isin(male)).mean()
    assert abs(share_he[True] - share_he[False]) < 0.15  # both near 0.5, no planted association


def test_pro_and_anti_follow_the_gold_occupations_stereotype(standin: dict) -> None:
    occ = standin["occupations"].set_index("occupation")["group"]
    for (kind, stereotype), df in standin["winobias"].items():
        assert set(df["kind"]) == {kind} and set(df["stereotype"]) == {stereotype}
        for row in df.itertuples(index=False):
            assert row.text[row.mention_start : row.mention_end] == row.mention
            assert row.text[row.pronoun_start : row.pronoun_end] == row.pronoun
            gold_group = occ[row.mention.removeprefix("The ").removeprefix("the ")]
            matches = (gold_group == "male_biased") == (row.pronoun_gender == "male")
            assert matches == (stereotype == "pro")


def test_type1_uses_held_out_templates(standin: dict) -> None:
    t = standin_templates()
    heldout = set(t.query("part == 'heldout'")["verb"])
    train = set(t.query("part == 'train'")["verb"])
    type1 = " ".join(standin["winobias"][(1, "pro")]["text"])
    assert any(f" {v} " in type1 for v in heldout)
    assert not any(f" {v} the " in type1 for v in train - heldout)


def test_seeded() -> None:
    a = make_coref_standin(n_train=50, n_test=8, random_state=1)
    b = make_coref_standin(n_train=50, n_test=8, random_state=1)
    c = make_coref_standin(n_train=50, n_test=8, random_state=2)
    pd.testing.assert_frame_equal(a["gap"], b["gap"])
    assert not a["gap"].equals(c["gap"])


def test_bad_sizes() -> None:
    with pytest.raises(ValueError, match="n_train must be a positive int"):
        make_coref_standin(n_train=0)
