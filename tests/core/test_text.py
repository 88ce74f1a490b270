"""Tests for nlpbias.core.text: the regex tokenizer, sentence splitting and corpus tokenisation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.core.text import sentences, split_sentences, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello, World!", ["hello", "world"]),
        ("Don't stop", ["don't", "stop"]),
        ("don\u2019t", ["don't"]),  # typographic apostrophe normalised
        ("a well-known 20th-century poet", ["a", "well-known", "20th-century", "poet"]),
        ("word--another", ["word", "another"]),  # Gutenberg dash separates
        ("'tis the end-", ["tis", "the", "end"]),  # edge apostrophe / hyphen dropped
        ("It cost $1,000.50 in 1901.", ["it", "cost", "1,000.50", "in", "1901"]),
        ("3.14 and 2", ["3.14", "and", "2"]),
        ("_Pride_ and x_y", ["pride", "and", "x", "y"]),  # underscore is not a word character
        ("Caf\u00e9 NA\u00cfVE", ["caf\u00e9", "na\u00efve"]),  # any script, lower-cased
        ("C.E.O.", ["c", "e", "o"]),
        ("... !!! --", []),
        ("", []),
    ],
)
def test_tokenize_cases(text, expected):
    assert tokenize(text) == expected


def test_tokenize_keeps_case_when_asked():
    assert tokenize("He said SHE's Right", lowercase=False) == ["He", "said", "SHE's", "Right"]


def test_tokenize_is_deterministic_and_context_free():
    text = "Mr. Darcy's well-known pride."
    assert tokenize(text) == tokenize(text)
    assert tokenize(text + " " + text) == tokenize(text) * 2


@pytest.mark.parametrize("bad", [None, 3, b"bytes", ["a list"]])
def test_tokenize_rejects_non_strings(bad, one_line):
    with pytest.raises(TypeError) as err:
        tokenize(bad)
    assert "text must be a str" in one_line(err)


def test_tokenize_rejects_non_bool_lowercase(one_line):
    with pytest.raises(TypeError) as err:
        tokenize("a", lowercase="yes")
    assert "lowercase" in one_line(err)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
        ("Mr. Darcy bowed. Dr. Who came.", ["Mr. Darcy bowed.", "Dr. Who came."]),
        ("J. R. R. Tolkien wrote it.", ["J. R. R. Tolkien wrote it."]),
        ('"Indeed!" she said. "Yes."', ['"Indeed!" she said.', '"Yes."']),
        ("It was 3.5 m. long. 1900 came.", ["It was 3.5 m. long.", "1900 came."]),
        ("no capital. after this", ["no capital. after this"]),
        ("Wait... What?! Ok.", ["Wait...", "What?!", "Ok."]),
        ("   ", []),
    ],
)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


def test_sentences_one_list_per_text_by_default():
    texts = ["The cat sat. It purred.", "", "Dogs bark!", "?!"]
    assert sentences(texts) == [["the", "cat", "sat", "it", "purred"], ["dogs", "bark"]]


def test_sentences_split_and_min_tokens():
    texts = ["The cat sat. It purred.", "Dogs bark loudly!"]
    assert sentences(texts, split=True) == [
        ["the", "cat", "sat"],
        ["it", "purred"],
        ["dogs", "bark", "loudly"],
    ]
    assert sentences(texts, split=True, min_tokens=3) == [
        ["the", "cat", "sat"],
        ["dogs", "bark", "loudly"],
    ]
    assert sentences(texts, min_tokens=4) == [["the", "cat", "sat", "it", "purred"]]


def test_sentences_accepts_series_and_generators_and_keeps_case():
    series = pd.Series(["A b", "C d"], index=["x", "y"])
    assert sentences(series, lowercase=False) == [["A", "b"], ["C", "d"]]
    assert sentences(t for t in ["one two", "three"]) == [["one", "two"], ["three"]]


def test_sentences_share_equal_tokens():
    out = sentences(["the cat", "the dog"])
    assert out[0][0] is out[1][0]


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"texts": "one string"}, TypeError, "not one string"),
        ({"texts": 5}, TypeError, "iterable of strings"),
        ({"texts": ["ok", None]}, TypeError, "item 1 is NoneType"),
        ({"texts": ["ok"], "min_tokens": 0}, ValueError, "min_tokens"),
        ({"texts": ["ok"], "split": 1}, TypeError, "split"),
        ({"texts": ["ok"], "lowercase": None}, TypeError, "lowercase"),
    ],
)
def test_sentences_bad_input(kwargs, exc, fragment, one_line):
    texts = kwargs.pop("texts")
    with pytest.raises(exc) as err:
        sentences(texts, **kwargs)
    assert fragment in one_line(err)


def test_as_text_series_keeps_a_series_index_and_rejects_non_strings() -> None:
    import pandas as pd

    from nlpbias.core.text import as_text_series

    s = pd.Series(["a", "b"], index=[5, 9])
    assert as_text_series(s).index.tolist() == [5, 9]
    assert as_text_series(("x", "y")).tolist() == ["x", "y"]
    with pytest.raises(TypeError, match="not one string"):
        as_text_series("abc")
    with pytest.raises(TypeError, match="1 are not"):
        as_text_series(["a", None])


def test_fmt_count_prints_whole_numbers_and_refuses_fractions():
    from nlpbias.core.text import fmt_count

    assert fmt_count(10033.0) == "10,033"
    assert fmt_count(np.int64(5)) == "5"
    with pytest.raises(ValueError, match="whole number"):
        fmt_count(2.5)
    with pytest.raises(ValueError, match="finite"):
        fmt_count(float("nan"))


def test_fmt_num_rounds_floating_noise_to_zero():
    from nlpbias.core.text import fmt_num

    assert fmt_num(8.5e-17) == "0"
    assert fmt_num(-3e-13) == "0"
    assert fmt_num(1e-6) == "1e-06"  # a small number that is not noise stays
    assert fmt_num(0.123456, digits=2) == "0.12"
