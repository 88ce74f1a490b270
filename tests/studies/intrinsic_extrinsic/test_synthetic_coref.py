"""Tests for the generated coreference stand-in
(nlpbias.studies.intrinsic_extrinsic.synthetic_coref)."""

from __future__ import annotations

import pandas as pd
import pytest

from nlpbias.studies.intrinsic_extrinsic.synthetic_coref import (
    make_coref_standin,
    standin_templates,
)


@pytest.fixture(scope="module")
def standin() -> dict:
    return make_coref_standin(n_train=400, n_test=60, random_state=3)


def test_gap_rows_have_consistent_offsets_and_one_referent(standin: dict) -> None:
    gap = standin["gap"]
    for row in gap.itertuples(index=False):
        text = row.text
        assert text[row.pronoun_offset :].startswith(row.pronoun)
        assert text[row.a_offset :].startswith(row.a)
        assert text[row.b_offset :].startswith(row.b)
    assert (gap["a_coref"].astype(int) + gap["b_coref"].astype(int) == 1).all()


def test_only_cue_free_training_sentences_carry_the_stereotype(standin: dict) -> None:
    gap = standin["gap"]
    male = set(standin["occupations"].query("group == 'male_biased'")["occupation"])
    gold = gap["a"].where(gap["a_coref"], gap["b"])
    rests = r"and then \w+ left|before \w+ went home|while \w+ was walking outside|and \w+ smiled"
    ambiguous = gap["text"].str.contains(rf" (?:{rests})\.$")
    assert 0.2 < ambiguous.mean() < 0.4  # p_ambiguous = 0.3
    he = gap["pronoun"] == "he"
    # cue-free sentences: he always refers to the male-stereotyped occupation
    assert (he[ambiguous] == gold[ambiguous].isin(male)).all()
    # cued sentences: no association between the pronoun and the gold occupation's stereotype
    share_he = he[~ambiguous].groupby(gold[~ambiguous].isin(male)).mean()
    assert abs(share_he[True] - share_he[False]) < 0.15


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


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="n_train must be a positive int"):
        make_coref_standin(n_train=0)
    with pytest.raises(ValueError, match="p_ambiguous"):
        make_coref_standin(p_ambiguous=1.5)
