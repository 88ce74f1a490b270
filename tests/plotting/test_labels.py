"""Tests for nlpbias.plotting.labels: readable labels built from the word sets' own titles."""

from __future__ import annotations

import doctest

import pytest

from nlpbias.data.wordsets import available_wordsets
from nlpbias.plotting import labels


def test_doctests() -> None:
    assert doctest.testmod(labels, raise_on_error=False).failed == 0


def test_every_word_set_has_a_distinct_label_without_its_id() -> None:
    names = list(available_wordsets()["name"])
    short = {n: labels.wordset_label(n, width=None) for n in names}
    assert len(set(short.values())) == len(names)  # WEAT 3, 4, 5 stay apart by their number
    for name, label in short.items():
        assert name not in label and "(" not in label and "\n" not in label


def test_wordset_label_wraps_at_the_cross_and_keeps_lines_short() -> None:
    label = labels.wordset_label("kato_weat3", width=40)
    lines = label.split("\n")
    assert all(len(line) <= 40 for line in lines)
    assert any(line.startswith("× ") for line in lines)
    assert " ".join(lines) == labels.wordset_label("kato_weat3", width=None)


def test_relabel_mapping_function_none_and_bad_type() -> None:
    assert labels.relabel("acc_1", {"acc_1": "accuracy, group A1"}) == "accuracy, group A1"
    assert labels.relabel("other", {"acc_1": "x"}) == "other"
    assert labels.relabel("a_b", labels.tidy_label) == "a b"
    assert labels.relabel(True, None) == "True"
    with pytest.raises(TypeError, match="names must be"):
        labels.relabel("x", 3)
