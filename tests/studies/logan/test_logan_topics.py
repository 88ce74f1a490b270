"""Tests for nlpbias.studies.logan.topics: the top words of each cluster's main topic."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from nlpbias.studies.logan import topics
from nlpbias.studies.logan.topics import topic_words


# -------------------------------------------------------------------------------- topic words
def test_topic_words_exclude_group_words():
    texts = [
        "black white people vote election president",
        "black voters election vote president party",
        "White African-American party election vote",
        "cooking recipe pasta sauce black pepper",
        "recipe pasta white sauce cooking garlic",
        "garlic pasta recipe sauce african-american cooking",
    ]
    labels = [0, 0, 0, 1, 1, 1]
    t = topic_words(
        texts, labels, n_words=4, exclude=["black", "white", "African-American"], random_state=0
    )
    assert not set(t["word"]) & {"black", "white", "african", "american"}
    assert set(t.loc[t.cluster == 0, "word"]) <= {
        "vote",
        "election",
        "president",
        "party",
        "people",
        "voters",
    }
    assert {"pasta", "recipe", "sauce", "cooking"} == set(t.loc[t.cluster == 1, "word"])
    assert t.groupby("cluster")["rank"].apply(list).tolist() == [[0, 1, 2, 3]] * 2
    with_group = topic_words(texts, labels, n_words=3, random_state=0)
    assert "black" in set(with_group["word"]) or "white" in set(with_group["word"])


def test_topic_words_bad_input():
    with pytest.raises(ValueError, match="one label per text"):
        topic_words(["a b"], [0, 1], random_state=0)
    with pytest.raises(TypeError, match="list of words"):
        topic_words(["aa bb"], [0], exclude="black", random_state=0)
    with pytest.raises(ValueError, match="no texts"):
        topic_words(["aa bb"], [0], clusters=[1], random_state=0)


def test_topic_words_skip_numbers_such_as_html_entity_codes():
    texts = ["love &#128514; &#128514; game 2014", "love game &#8220;win&#8221;"] * 10
    labels = np.zeros(20, dtype=int)
    words = topic_words(texts, labels, n_words=10, random_state=0)["word"].tolist()
    assert "love" in words and "game" in words
    assert not any(w.isdigit() for w in words)


def test_docstring_examples_run():
    failed, attempted = doctest.testmod(topics, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
