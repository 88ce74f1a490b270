"""Tests for nlpbias.metrics.query: Query validation, lookup rules and the OOV policy."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from nlpbias.metrics.query import OutOfVocabularyError, Query, QueryVectors

EMB = {
    "rose": [1.0, 0.0, 0.0],
    "tulip": [0.9, 0.1, 0.0],
    "daisy": [0.8, 0.0, 0.2],
    "lily": [0.7, 0.2, 0.1],
    "ant": [0.0, 1.0, 0.0],
    "wasp": [0.1, 0.9, 0.0],
    "flea": [0.0, 0.8, 0.2],
    "moth": [0.2, 0.7, 0.1],
    "love": [0.0, 0.0, 1.0],
    "joy": [0.1, 0.0, 0.9],
    "hate": [0.0, 0.5, 0.5],
    "pain": [0.2, 0.4, 0.4],
    "ice": [1.0, 1.0, 0.0],
    "cream": [0.0, 1.0, 3.0],
    "hot_dog": [5.0, 5.0, 5.0],
}


def make(targets=None, attributes=None, **kw):
    targets = targets or (["rose", "tulip", "daisy", "lily"], ["ant", "wasp", "flea", "moth"])
    attributes = attributes or (["love", "joy"], ["hate", "pain"])
    return Query(targets, attributes, **kw)


# ------------------------------------------------------------------------------- construction


def test_query_normalises_to_tuples_and_names():
    q = make(name="toy")
    assert q.targets == (("rose", "tulip", "daisy", "lily"), ("ant", "wasp", "flea", "moth"))
    assert q.attributes == (("love", "joy"), ("hate", "pain"))
    assert q.set_names == ("T1", "T2", "A1", "A2")
    assert hash(q) == hash(make(name="toy"))  # frozen and hashable


def test_query_from_mappings_takes_names():
    q = Query({"flowers": ["rose"], "insects": ["ant"]}, {"pleasant": ["love"], "bad": ["hate"]})
    assert q.set_names == ("flowers", "insects", "pleasant", "bad")


def test_swaps_exchange_sets_and_names():
    q = make(target_names=("f", "i"), attribute_names=("p", "u"), name="n")
    s = q.swap_attributes()
    assert s.attributes == (q.attributes[1], q.attributes[0])
    assert s.attribute_names == ("u", "p") and s.targets == q.targets and s.name == "n"
    t = q.swap_targets()
    assert t.targets == (q.targets[1], q.targets[0]) and t.target_names == ("i", "f")
    assert s.swap_attributes() == q


def test_from_wordset_duck_typed():
    ws = SimpleNamespace(
        name="weat1",
        title="Flowers vs insects",
        targets={"flowers": ["rose", "tulip"], "insects": ["ant", "wasp"]},
        attributes={"pleasant": ["love"], "unpleasant": ["hate"]},
    )
    q = Query.from_wordset(ws)
    assert q.name == "weat1"
    assert q.set_names == ("flowers", "insects", "pleasant", "unpleasant")
    assert q.targets == (("rose", "tulip"), ("ant", "wasp"))


def test_from_wordset_rejects_other_objects(one_line):
    with pytest.raises(TypeError) as err:
        Query.from_wordset({"targets": []})
    assert "WordSet" in one_line(err)


@pytest.mark.parametrize(
    ("targets", "attributes", "kw", "exc", "needle"),
    [
        ((["a"], ["b"], ["c"]), (["x"], ["y"]), {}, ValueError, "exactly two"),
        ((["a"],), (["x"], ["y"]), {}, ValueError, "exactly two"),
        ((["a"], []), (["x"], ["y"]), {}, ValueError, "empty"),
        (("abc", ["b"]), (["x"], ["y"]), {}, TypeError, "list of words"),
        ((["a"], ["b"]), "xy", {}, TypeError, "pair of word lists"),
        ((["a"], ["b"]), (["x"], [3]), {}, TypeError, "strings"),
        ((["a"], ["b", " "]), (["x"], ["y"]), {}, ValueError, "blank"),
        ((["a", "a"], ["b"]), (["x"], ["y"]), {}, ValueError, "twice"),
        (({"a"}, ["b"]), (["x"], ["y"]), {}, TypeError, "sets have no order"),
        ((["a"], ["b"]), (["x"], ["y"]), {"target_names": ("A1", "B")}, ValueError, "differ"),
        ((["a"], ["b"]), (["x"], ["y"]), {"target_names": ("only",)}, ValueError, "two names"),
        ((["a"], ["b"]), (["x"], ["y"]), {"name": 3}, TypeError, "name"),
    ],
)
def test_query_bad_input(targets, attributes, kw, exc, needle, one_line):
    with pytest.raises(exc) as err:
        Query(targets, attributes, **kw)
    assert needle in one_line(err)


# ------------------------------------------------------------------------------------ lookup


def test_vectors_rows_in_word_order_float64():
    qv = make().vectors(EMB, max_missing=0.2, random_state=None)
    assert isinstance(qv, QueryVectors)
    np.testing.assert_array_equal(
        qv.T1, np.array([EMB[w] for w in ["rose", "tulip", "daisy", "lily"]])
    )
    np.testing.assert_array_equal(qv.A2, np.array([EMB["hate"], EMB["pain"]]))
    assert qv.T1.dtype == np.float64
    assert qv.words["T2"] == ("ant", "wasp", "flea", "moth")
    assert all(v == () for v in qv.dropped.values()) and all(v == () for v in qv.missing.values())
    assert qv.arrays[2] is qv.A1


def test_vectors_from_gensim_keyed_vectors_equal_dict():
    from gensim.models import KeyedVectors

    kv = KeyedVectors(3)
    kv.add_vectors(list(EMB), np.array(list(EMB.values()), dtype=np.float32))
    a, b = (
        make().vectors(kv, max_missing=0.2, random_state=None),
        make().vectors(EMB, max_missing=0.2, random_state=None),
    )
    for x, y in zip(a.arrays, b.arrays, strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-6)


def test_multiword_expressions_are_averaged():
    q = Query((["ice cream", "rose"], ["ice_cream", "hot_dog"]), (["love"], ["hate"]))
    qv = q.vectors(EMB, max_missing=0.2, random_state=None)
    mean = (np.array(EMB["ice"]) + np.array(EMB["cream"])) / 2  # [0.5, 1.0, 1.5]
    np.testing.assert_allclose(qv.T1[0], mean)
    np.testing.assert_allclose(qv.T2[0], mean)  # "_" joins words when the whole is not a key
    np.testing.assert_allclose(qv.T2[1], EMB["hot_dog"])  # ... and a key is used as is


def test_multiword_missing_if_any_part_missing():
    q = Query((["ice cream", "rose"], ["ice zebra", "ant"]), (["love"], ["hate"]))
    qv = q.vectors(EMB, max_missing=0.5, random_state=0)
    assert qv.missing["T2"] == ("ice zebra",)


def test_lowercase_option():
    q = Query((["Rose", "TULIP"], ["ant", "Wasp"]), (["love"], ["hate"]))
    with pytest.raises(OutOfVocabularyError):
        q.vectors(EMB, max_missing=0.2, random_state=None)
    qv = q.vectors(EMB, lowercase=True, max_missing=0.2, random_state=None)
    assert qv.words["T1"] == ("Rose", "TULIP")  # reported in the query's spelling
    np.testing.assert_array_equal(qv.T1[1], EMB["tulip"])


# ---------------------------------------------------------------------------------- OOV policy


def test_oov_drop_balances_target_sets_seeded():
    q = make(targets=(["rose", "tulip", "zzz", "lily"], ["ant", "wasp", "flea", "moth"]))
    qv = q.vectors(EMB, max_missing=0.25, random_state=0)
    assert qv.missing["T1"] == ("zzz",) and qv.missing["T2"] == ()
    assert qv.words["T1"] == ("rose", "tulip", "lily")
    assert len(qv.words["T2"]) == 3 and len(qv.dropped["T2"]) == 1  # one more dropped from T2
    assert set(qv.words["T2"]) | set(qv.dropped["T2"]) == set(q.targets[1])
    assert qv.T2.shape == (3, 3)
    # the same seed drops the same word; some seed drops a different one
    assert q.vectors(EMB, max_missing=0.25, random_state=0).dropped == qv.dropped
    drops = {q.vectors(EMB, max_missing=0.25, random_state=s).dropped["T2"] for s in range(20)}
    assert len(drops) > 1


def test_oov_drop_equal_losses_need_no_extra_drop():
    q = make(targets=(["rose", "tulip", "zzz", "lily"], ["ant", "yyy", "flea", "moth"]))
    qv = q.vectors(EMB, max_missing=0.25, random_state=None)
    assert qv.dropped == {"T1": ("zzz",), "T2": ("yyy",), "A1": (), "A2": ()}


def test_oov_drop_uneven_losses_equalise():
    q = make(targets=(["rose", "x1", "x2", "lily"], ["ant", "yyy", "flea", "moth"]))
    qv = q.vectors(EMB, max_missing=0.5, random_state=1)
    # T1 lost 2, T2 lost 1 -> T2 loses 1 more at random; both end with 2 words
    assert len(qv.words["T1"]) == len(qv.words["T2"]) == 2
    assert qv.dropped["T2"][0] == "yyy" and len(qv.dropped["T2"]) == 2


def test_oov_attribute_sets_only_drop_their_own():
    q = make(attributes=(["love", "joy", "zzz"], ["hate", "pain"]))
    qv = q.vectors(EMB, max_missing=0.4, random_state=None)
    assert qv.words["A1"] == ("love", "joy") and qv.words["A2"] == ("hate", "pain")
    assert qv.dropped["T1"] == () and qv.dropped["T2"] == ()


def test_oov_over_threshold_raises_listing_words(one_line):
    q = make(targets=(["rose", "zzz", "yyy", "lily"], ["ant", "wasp", "flea", "moth"]), name="q1")
    with pytest.raises(OutOfVocabularyError) as err:
        q.vectors(EMB, max_missing=0.2, random_state=None)  # 2/4 = 50 % > 20 %
    msg = one_line(err)
    assert "zzz" in msg and "yyy" in msg and "'T1'" in msg and "max_missing" in msg
    assert err.value.missing["T1"] == ("zzz", "yyy")
    assert isinstance(err.value, ValueError)


def test_oov_raise_policy_on_any_missing(one_line):
    q = make(attributes=(["love", "joy", "zzz"], ["hate", "pain"]))
    with pytest.raises(OutOfVocabularyError) as err:
        q.vectors(EMB, oov="raise", max_missing=1.0, random_state=None)
    assert "zzz" in one_line(err) and "oov='drop'" in one_line(err)
    make().vectors(EMB, oov="raise", max_missing=0.2, random_state=None)  # nothing missing: fine


def test_oov_empty_set_raises(one_line):
    q = Query((["rose"], ["ant"]), (["zzz"], ["hate"]), name="empty")
    with pytest.raises(OutOfVocabularyError) as err:
        q.vectors(EMB, max_missing=1.0, random_state=None)
    assert "no words left" in one_line(err)


@pytest.mark.parametrize(
    ("kwargs", "exc"),
    [
        ({"oov": "ignore"}, ValueError),
        ({"max_missing": 1.5}, ValueError),
        ({"max_missing": "20%"}, ValueError),
        ({"lowercase": "yes"}, TypeError),
        ({"random_state": -1}, ValueError),
    ],
)
def test_vectors_bad_options(kwargs, exc, one_line):
    with pytest.raises(exc) as err:
        make().vectors(EMB, **({"max_missing": 0.2, "random_state": None} | kwargs))
    assert one_line(err).startswith(f"{next(iter(kwargs))} must be")


@pytest.mark.parametrize(
    ("embedding", "exc", "needle"),
    [
        ([1, 2, 3], TypeError, "KeyedVectors"),
        ("rose", TypeError, "KeyedVectors"),
        ({**EMB, "ant": [1.0, 2.0]}, ValueError, "same length"),
        ({**EMB, "ant": [0.0, 0.0, 0.0]}, ValueError, "zeros"),
        ({**EMB, "ant": [np.nan, 0.0, 1.0]}, ValueError, "NaN"),
        ({**EMB, "ant": [[1.0, 0.0, 0.0]]}, ValueError, "1-D"),
    ],
)
def test_vectors_bad_embedding(embedding, exc, needle, one_line):
    with pytest.raises(exc) as err:
        make().vectors(embedding, max_missing=0.2, random_state=None)
    assert needle in one_line(err)


def test_docstring_examples() -> None:
    import doctest

    import nlpbias.metrics.query as module

    failed, attempted = doctest.testmod(module, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
