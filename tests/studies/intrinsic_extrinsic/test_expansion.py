"""Tests for nlpbias.studies.intrinsic_extrinsic.expansion: expanding word sets by neighbours."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from gensim.models import KeyedVectors

from nlpbias.studies.intrinsic_extrinsic import expansion as ex


def _toy() -> KeyedVectors:
    """Words on a circle: each word's neighbours are known from its angle.

    he 0°, him 5°, his 10°, man 14°, guy 20° | she 90°, her 95°, hers 100°, woman 105°, lady 110°
    | doctor 40° (between the two clusters, nearer to he) | slur 12° (to be stopped).
    """
    angles = {"he": 0, "him": 5, "his": 10, "man": 14, "guy": 20, "slur": 12, "she": 90,
              "her": 95, "hers": 100, "woman": 105, "lady": 110, "doctor": 40}  # fmt: skip
    kv = KeyedVectors(2)
    words = list(angles)
    rad = np.deg2rad([angles[w] for w in words])
    kv.add_vectors(words, np.c_[np.cos(rad), np.sin(rad)])
    return kv


def test_nearest_neighbours_by_cosine():
    kv = _toy()
    near = ex.nearest_neighbours(kv, ["he", "lady", "absent"], k=3)
    assert near == {"he": ["him", "his", "slur"], "lady": ["woman", "hers", "her"]}


def test_expansion_adds_k_neighbours_skips_set_words_and_filters():
    kv = _toy()
    sets = {"male": ["He", "his"], "female": ["she"]}
    stop = ex.StopList({"slur": "a slur, not a gender word"})
    out = ex.expand_sets(sets, kv, k=3, filters=[stop], neighbours_name="toy")
    # he: him, his (in the set), slur (stopped); his: slur (again), him (taken), man
    assert out.added["male"] == ("him", "man")
    assert out.sets["male"] == ("he", "his", "him", "man")
    # she: her, hers, woman
    assert out.added["female"] == ("her", "hers", "woman")
    removed = out.removed.set_index(["set", "word", "source"])
    assert removed.loc[("male", "his", "he"), "filter"] == "in a set"
    assert removed.loc[("male", "slur", "he"), "reason"] == "stop list: a slur, not a gender word"
    assert out.provenance == {"neighbours": "toy", "k": 3, "filters": ["stop list"]}
    summary = out.summary()
    assert summary.loc["male", "original"] == 2 and summary.loc["male", "added"] == 2
    assert summary.loc["male", "stop list"] == 2  # slur, as the neighbour of he and of his


def test_a_word_goes_to_the_first_set_that_claims_it():
    kv = _toy()
    out = ex.expand_sets({"a": ["guy"], "b": ["man"]}, kv, k=2)
    # guy's neighbours: man (in set b), slur; man's: slur (added to a before), his
    assert out.added == {"a": ("slur",), "b": ("his",)}
    row = out.removed[(out.removed["set"] == "b") & (out.removed["word"] == "slur")].iloc[0]
    assert row["filter"] == "added before" and "'a'" in row["reason"]
    assert out.removed.loc[out.removed["word"] == "man", "filter"].tolist() == ["in a set"]


def test_missing_words_are_reported_and_bad_input_refused(one_line):
    kv = _toy()
    out = ex.expand_sets({"a": ["he", "absent"]}, kv, k=1)
    assert out.missing == {"a": ("absent",)} and out.sets["a"] == ("he", "him")
    with pytest.raises(ValueError) as err:
        ex.expand_sets({"a": ["absent"]}, kv, k=1)
    assert "no word of any set" in one_line(err)
    with pytest.raises(ValueError) as err:
        ex.expand_sets({"a": []}, kv, k=1)
    assert "set 'a' is empty" in one_line(err)
    with pytest.raises(ValueError):
        ex.expand_sets({}, kv, k=1)


def test_a_custom_filter_sees_the_target_set():
    kv = _toy()

    def only_near_doctor(word: str, set_name: str) -> str | None:
        return "occupation sets keep occupations" if set_name == "jobs" else None

    out = ex.expand_sets({"jobs": ["doctor"], "male": ["guy"]}, kv, k=2, filters=[only_near_doctor])
    # doctor's neighbours: guy (in the male set), man (refused by the filter for "jobs")
    assert out.added["jobs"] == ()
    jobs = out.removed[out.removed["set"] == "jobs"].set_index("word")["filter"].to_dict()
    assert jobs == {"guy": "in a set", "man": "only_near_doctor"}
    assert out.added["male"] == ("man", "slur")  # the filter lets other sets through


def test_doctests():
    failed, attempted = doctest.testmod(ex, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted > 0 and failed == 0


def test_name_and_dialect_filters_inside_an_expansion():
    import pandas as pd

    kv = KeyedVectors(2)
    words = ["jamal", "darnell", "emily", "tyrone", "finna", "gonna", "going", "she", "her"]
    angles = [0, 3, 6, 9, 40, 43, 46, 90, 92]
    rad = np.deg2rad(angles)
    kv.add_vectors(words, np.c_[np.cos(rad), np.sin(rad)])
    table = pd.DataFrame(
        {"white": [0.05, 0.1, 0.9, 0.08], "black": [0.9, 0.85, 0.03, 0.9]},
        index=["jamal", "darnell", "emily", "tyrone"],
    )
    names = ex.NameRaceFilter(table, {"aa_names": "black"}, min_share=0.5)

    class Model:  # TwitterAAE-like: finna strongly AA-aligned, gonna mildly, going white
        index = {"finna": 0, "gonna": 1, "going": 2}
        wordprobs = np.array([[9.0, 0.5, 0.5, 1.0], [2.0, 1.0, 1.0, 2.0], [1.0, 1.0, 1.0, 3.0]])

    # the AAE set's threshold comes from its own word: gonna's aa alignment, 2 / 6
    dialect = ex.DialectFilter.from_sets(Model(), {"aae": ["gonna"]}, {"aae": "aa"}, remove_at=0.8)
    assert dialect.keep_at_least == {"aae": pytest.approx(1 / 3)}
    out = ex.expand_sets(
        {"aa_names": ["jamal"], "aae": ["gonna"], "female": ["she"]},
        kv, k=3, filters=[names, dialect],
    )  # fmt: skip
    # jamal's neighbours: darnell, emily (white name: removed), tyrone
    assert out.added["aa_names"] == ("darnell", "tyrone")
    why = out.removed.set_index(["set", "word"])
    assert why.loc[("aa_names", "emily"), "reason"] == "name-race table: black share 0.03 < 0.5"
    # gonna's neighbours: finna (AA-aligned: kept), going (not aligned: removed), tyrone (taken)
    assert out.added["aae"] == ("finna",)
    assert why.loc[("aae", "going"), "filter"] == "dialect model"
    # she's neighbours: her, then going (white-aligned: passes), then gonna (in a set)
    assert out.added["female"] == ("her", "going")


def test_a_dialect_set_the_model_does_not_know_is_refused(one_line):
    class Model:
        index = {"going": 0}
        wordprobs = np.array([[1.0, 1.0, 1.0, 3.0]])

    with pytest.raises(ValueError) as err:
        ex.DialectFilter.from_sets(Model(), {"aae": ["ion"]}, {"aae": "aa"}, remove_at=0.8)
    assert "dialect set 'aae'" in one_line(err)


def test_an_expansion_file_round_trips(tmp_path, one_line):
    kv = _toy()
    stop = ex.StopList({"slur": "a slur"})
    out = ex.expand_sets({"male": ["he", "absent"], "female": ["she"]}, kv, k=3, filters=[stop],
                         neighbours_name="toy")  # fmt: skip
    path = out.to_yaml(tmp_path / "toy.yaml", title="toy sets")
    back = ex.read_expansion(path)
    assert back.sets == out.sets and back.added == out.added and back.missing == out.missing
    assert back.provenance == out.provenance
    key = ["set", "filter", "word", "source"]
    a = out.removed.sort_values(key).reset_index(drop=True)
    b = back.removed[out.removed.columns].sort_values(key).reset_index(drop=True)
    assert a.equals(b)
    text = path.read_text()
    assert "slur" in text and "a slur" in text and "toy sets" in text
    (tmp_path / "bad.yaml").write_text("name: x\n")
    with pytest.raises(ValueError) as err:
        ex.read_expansion(tmp_path / "bad.yaml")
    assert "bad.yaml is not an expansion file" in one_line(err)
    with pytest.raises(FileNotFoundError):
        ex.read_expansion(tmp_path / "none.yaml")
