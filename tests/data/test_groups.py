"""Tests for nlpbias.data.groups: gender-word groups and the Jigsaw identity-column rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nlpbias.data import groups as gr
from nlpbias.data import toxicity as tox

# --------------------------------------------------------------------------- gender words


def test_default_word_lists() -> None:
    words = gr.gender_words()
    assert {"he", "him", "his", "she", "her", "woman", "man"} <= set(words["male"]) | set(
        words["female"]
    )
    assert not set(words["male"]) & set(words["female"])
    assert len(words["male"]) == len(set(words["male"]))
    assert len(words["female"]) == len(set(words["female"]))
    for slur in ("bitch", "hoe", "slut"):  # excluded on purpose (see the YAML notes)
        assert slur not in words["female"]
    assert all(w == w.lower() for w in words["male"] + words["female"])


def test_gender_groups_whole_words_case_insensitive() -> None:
    texts = pd.Series(
        [
            "He's late",  # apostrophe ends the word
            "SHE said no",
            "his MOM called",
            "the shell theory",  # 'she', 'he' inside words do not count
            "hello there",
            "Mr. Smith and his wife",
            "",
        ],
        index=[10, 11, 12, 13, 14, 15, 16],
    )
    got = gr.gender_groups(texts)
    assert got.name == "gender_group"
    assert got.index.tolist() == texts.index.tolist()
    assert got.tolist() == ["male", "female", "both", "none", "none", "both", "none"]


def test_gender_groups_custom_lists_and_multiword() -> None:
    got = gr.gender_groups(
        ["a queen bee", "the ice  king", "king and queen", "kingdom"],
        male_words=["ice king"],
        female_words=["queen"],
    )
    assert got.tolist() == ["female", "male", "female", "none"]


def test_gender_groups_errors(one_line) -> None:
    with pytest.raises(ValueError) as err:
        gr.gender_groups(["x"], male_words=["he", "They"], female_words=["she", "they"])
    assert "share ['they']" in one_line(err)
    with pytest.raises(TypeError) as err:
        gr.gender_groups("he said")
    assert "not one string" in one_line(err)
    with pytest.raises(TypeError) as err:
        gr.gender_groups(["he", np.nan])
    assert "1 are not" in one_line(err)
    with pytest.raises(ValueError) as err:
        gr.gender_groups(["he"], male_words=[])
    assert "male_words is empty" in one_line(err)
    with pytest.raises(TypeError) as err:
        gr.gender_groups(["he"], female_words="she")
    one_line(err)


def test_gender_groups_on_davidson(use_data_home: Path) -> None:
    df = tox.load_davidson()
    got = gr.gender_groups(df["text"])
    assert got.notna().all() and set(got) <= {"male", "female", "both", "none"}
    # a tweet with "she" and no male word must be female: check against a direct search
    she = df["text"].str.contains(r"(?<!\w)she(?!\w)", case=False, regex=True)
    assert (got[she] != "male").all() and (got[she] != "none").all()


# --------------------------------------------------------------------------- Jigsaw rule

IDENTITIES = list(tox.JIGSAW_IDENTITY_COLUMNS)


def _test_public_expanded(tmp_path: Path) -> Path:
    """A 6-row file in the schema of Kaggle's test_public_expanded.csv."""
    rows = [
        # id, text, toxicity, male, female, black, white
        (7000000, "about men", 0.7, 0.8, 0.1, 0.0, 0.0),
        (7000001, "about women", 0.0, 0.0, 0.5, 0.0, 0.0),  # 0.5 counts (>=)
        (7000002, "about both", 0.1, 0.6, 0.9, 0.0, 0.6),
        (7000003, "about neither", 0.2, 0.4, 0.3, 0.5, 0.0),
        (7000004, "not annotated", 0.9, None, None, None, None),
        (7000005, "just under", 0.6, 0.49, 0.0, 0.0, 0.9),
    ]
    data = {
        "id": [r[0] for r in rows],
        "comment_text": [r[1] for r in rows],
        "created_date": ["2017-01-01 00:00:00.000000+00"] * len(rows),
        "publication_id": [21] * len(rows),
        "parent_id": [None] * len(rows),
        "article_id": [1000] * len(rows),
        "rating": ["approved"] * len(rows),
        "toxicity": [r[2] for r in rows],
        "severe_toxicity": [0.0] * len(rows),
        "obscene": [0.0] * len(rows),
        "sexual_explicit": [0.0] * len(rows),
        "identity_attack": [0.0] * len(rows),
        "insult": [0.0] * len(rows),
        "threat": [0.0] * len(rows),
        "identity_annotator_count": [0 if r[3] is None else 4 for r in rows],
        "toxicity_annotator_count": [10] * len(rows),
    }
    for c in IDENTITIES:
        data[c] = [None if r[3] is None else 0.0 for r in rows]
    for c, j in (("male", 3), ("female", 4), ("black", 5), ("white", 6)):
        data[c] = [r[j] for r in rows]
    p = tmp_path / "test_public_expanded.csv"
    pd.DataFrame(data).to_csv(p, index=False)
    return p


def test_jigsaw_groups_on_raw_scores(tmp_path: Path) -> None:
    raw = pd.read_csv(_test_public_expanded(tmp_path))
    got = gr.jigsaw_groups(raw, a="male", b="female")
    assert got.name == "male_vs_female"
    assert got.tolist() == ["male", "female", "neither", "neither", "neither", "neither"]
    race = gr.jigsaw_groups(raw, a="white", b="black")
    assert race.tolist() == ["neither", "neither", "white", "black", "neither", "white"]
    lower = gr.jigsaw_groups(raw, a="male", b="female", threshold=0.4)
    assert lower.tolist() == ["male", "female", "neither", "male", "neither", "male"]


def test_jigsaw_groups_on_loader_booleans_match_raw_rule(tmp_path: Path) -> None:
    p = _test_public_expanded(tmp_path)
    raw = pd.read_csv(p)
    loaded = tox.load_jigsaw(p)
    assert loaded["male"].dtype == bool  # the loader thresholds: True means >= 0.5
    for a, b in (("male", "female"), ("white", "black")):
        from_bool = gr.jigsaw_groups(loaded, a=a, b=b)
        from_raw = gr.jigsaw_groups(raw, a=a, b=b)
        assert from_bool.tolist() == from_raw.tolist()


def test_jigsaw_groups_errors(tmp_path: Path, one_line) -> None:
    raw = pd.read_csv(_test_public_expanded(tmp_path))
    with pytest.raises(ValueError) as err:
        gr.jigsaw_groups(raw, a="male", b="male")
    assert "two different" in one_line(err)
    with pytest.raises(ValueError) as err:
        gr.jigsaw_groups(raw, a="male", b="nonbinary")
    assert "'nonbinary' not in the data" in one_line(err)
    with pytest.raises(ValueError) as err:
        gr.jigsaw_groups(raw, a="male", b="female", threshold=0)
    one_line(err)
    raw.loc[0, "female"] = 1.5
    with pytest.raises(ValueError) as err:
        gr.jigsaw_groups(raw, a="male", b="female")
    assert "[0, 1]" in one_line(err)
    raw["female"] = raw["female"].astype(object)
    raw.loc[0, "female"] = "lots"
    with pytest.raises(ValueError) as err:
        gr.jigsaw_groups(raw, a="male", b="female")
    assert "'lots'" in one_line(err)
    with pytest.raises(TypeError) as err:
        gr.jigsaw_groups(raw["male"], a="male", b="female")  # type: ignore[arg-type]
    one_line(err)
