"""Tests for nlpbias.studies.intrinsic_extrinsic.expanded_sets: the study's expanded modification
word sets, their committed data files, and the expanded design's separation of modified and
measured words."""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pytest
import yaml

from nlpbias.studies.intrinsic_extrinsic import expanded_sets as es
from nlpbias.studies.intrinsic_extrinsic.expansion import read_expansion
from nlpbias.studies.intrinsic_extrinsic.families import (
    FAMILIES,
    MODSETS,
    evaluation_sets,
    modification_query,
)
from nlpbias.studies.intrinsic_extrinsic.grid import spec_query

CASES = list(itertools.product(FAMILIES, MODSETS, es.NEIGHBOURS))


def _words(query) -> set[str]:
    return {w.lower() for s in (*query.targets, *query.attributes) for w in s}


@pytest.mark.parametrize(("family", "modset", "neighbours"), CASES)
def test_modified_and_measured_words_share_only_the_original_sets(family, modset, neighbours):
    """The expanded design modifies the original words plus neighbours and measures the
    original sets: a neighbour is never a measured word, and every original word is modified."""
    spec = {"family": family, "modset": modset, "design": "expanded", "neighbours": neighbours}
    modified = _words(spec_query(spec))
    original = _words(modification_query(FAMILIES[family], modset))
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import as_query

    measured = set()
    for name in evaluation_sets(FAMILIES[family], modset).values():
        measured |= _words(as_query(load_wordset(name)))
    assert original <= modified and len(modified) > len(original)
    assert modified & measured == original & measured
    assert not (modified - original) & measured
    unexpanded = _words(spec_query({**spec, "design": "unexpanded"}))
    assert unexpanded == original


@pytest.mark.parametrize(("family", "modset", "neighbours"), CASES)
def test_each_set_keeps_its_role_and_added_words_are_not_in_two_sets(family, modset, neighbours):
    query = modification_query(FAMILIES[family], modset)
    exp = es.expanded_query(query, neighbours=neighbours)
    assert exp.target_names == query.target_names
    assert exp.attribute_names == query.attribute_names
    sets = [*exp.targets, *exp.attributes]
    for i, (old, new) in enumerate(zip([*query.targets, *query.attributes], sets, strict=True)):
        assert tuple(new[: len(old)]) == tuple(old)
        for other in sets[:i] + sets[i + 1 :]:
            assert not {w.lower() for w in new[len(old) :]} & {w.lower() for w in other}


def test_every_added_word_passed_the_reviewed_stop_list_and_rules() -> None:
    settings = es.load_settings()
    for path in sorted(es.expansion_path("x", "glove-6b-50d").parent.parent.glob("*/*.yaml")):
        exp = read_expansion(path)
        assert exp.provenance["k"] == settings["k"]
        for name, added in exp.added.items():
            for word in added:
                assert word.isalpha() and word.islower(), (path.name, name, word)
                assert word not in settings["stop_list"], (path.name, name, word)
                assert word not in (settings["stop_in"].get(name) or {}), (path.name, name, word)


def test_the_committed_files_are_what_the_settings_give(use_data_home) -> None:
    """Recompute every expansion (TwitterAAE from the data home) and compare with the files."""
    for family, modset, neighbours in CASES:
        query = modification_query(FAMILIES[family], modset)
        fresh = es.expand_query(query, neighbours=neighbours)
        filed = read_expansion(es.expansion_path(query.name, neighbours))
        assert filed.sets == fresh.sets, (query.name, neighbours)

        def rows(frame):
            return frame.sort_values(list(frame.columns)).reset_index(drop=True)

        assert rows(filed.removed).equals(rows(fresh.removed)), (query.name, neighbours)


def test_a_stale_or_missing_file_is_refused(tmp_path, monkeypatch, one_line) -> None:
    from nlpbias.metrics.query import Query

    query = Query((["nurse"], ["engineer"]), (["she"], ["he"]), name="tiny")
    with pytest.raises(FileNotFoundError, match="tools/expand_wordsets.py") as err:
        es.expanded_query(query, neighbours="glove-6b-50d")
    one_line(err)
    real = modification_query(FAMILIES["coref"], "extracted")
    doc = yaml.safe_load(es.expansion_path(real.name, "glove-6b-50d").read_text())
    doc["sets"]["male"]["original"] = ["he", "someone"]
    monkeypatch.setattr(es, "expansion_path", lambda name, nb: tmp_path / f"{name}.yaml")
    (tmp_path / f"{real.name}.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(ValueError, match="regenerate it") as err:
        es.expanded_query(real, neighbours="glove-6b-50d")
    one_line(err)


def test_settings_errors(tmp_path, one_line) -> None:
    with pytest.raises(FileNotFoundError, match="no expansion settings") as err:
        es.load_settings(tmp_path / "none.yaml")
    one_line(err)
    (tmp_path / "s.yaml").write_text("k: 10\n")
    with pytest.raises(ValueError, match="lacks the keys") as err:
        es.load_settings(tmp_path / "s.yaml")
    one_line(err)
    with pytest.raises(ValueError, match="unknown neighbour embedding") as err:
        es.expansion_path("x", "spacy")
    one_line(err)


def test_the_word2vec_neighbours_are_lowercase_words() -> None:
    kv = es.neighbour_embedding("wefe-word2vec-13k")
    assert all(k.isalpha() and k.islower() for k in kv.index_to_key)
    assert {"he", "she", "emily"} <= set(kv.key_to_index)


def test_doctests() -> None:
    failed, attempted = doctest.testmod(es, raise_on_error=False, verbose=False)[:2]
    assert failed == 0


def test_attract_repel_gets_the_added_words_the_embedding_has_and_every_original_word() -> None:
    from gensim.models import KeyedVectors

    from nlpbias.studies.intrinsic_extrinsic import grid

    spec = {"family": "coref", "modset": "extracted", "design": "expanded",
            "neighbours": "glove-6b-50d"}  # fmt: skip
    expanded = grid.spec_query(spec)
    original = modification_query(FAMILIES["coref"], "extracted")
    known = ["his", "himself", "doctor"]  # two added words and one original word
    kv = KeyedVectors(2)
    kv.add_vectors(known, np.ones((3, 2)))
    used = grid._added_in_vocabulary(expanded, spec, kv)
    for old, new in zip([*original.targets, *original.attributes],
                        [*used.targets, *used.attributes], strict=True):  # fmt: skip
        assert tuple(new[: len(old)]) == tuple(old)  # every original word, known or not
        assert set(new[len(old) :]) <= set(known)
    assert "his" in used.attributes[0] and "himself" in used.attributes[0]
