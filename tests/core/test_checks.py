"""Tests for nlpbias.core.checks: the one set of argument checks."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pandas as pd
import pytest

from nlpbias.core import checks
from nlpbias.core.checks import (
    check_binary_labels,
    check_bool,
    check_choice,
    check_fraction,
    check_int,
    check_number,
    check_texts,
)


def test_docstring_examples() -> None:
    failed, attempted = doctest.testmod(checks, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


@pytest.mark.parametrize("value", [3, np.int64(3), np.int8(3)])
def test_check_int_accepts_integers_and_returns_a_python_int(value) -> None:
    out = check_int(value, "n", minimum=1, maximum=5)
    assert out == 3 and type(out) is int


@pytest.mark.parametrize(
    ("value", "kw", "message"),
    [
        (0, {"minimum": 1}, "n must be an integer >= 1, got 0"),
        (6, {"maximum": 5}, "n must be an integer <= 5, got 6"),
        (9, {"minimum": 1, "maximum": 5}, "n must be an integer in [1, 5], got 9"),
        (True, {}, "n must be an integer, got True"),
        (2.0, {"minimum": 1}, "n must be an integer >= 1, got 2.0"),
        ("3", {"minimum": 1}, "n must be an integer >= 1, got '3'"),
        (None, {}, "n must be an integer, got None"),
    ],
)
def test_check_int_refuses_with_one_line_naming_the_argument(value, kw, message) -> None:
    with pytest.raises(ValueError) as err:
        check_int(value, "n", **kw)
    assert str(err.value) == message


def test_check_number_intervals() -> None:
    assert check_number(0, "x", low=0) == 0.0 and type(check_number(1, "x")) is float
    assert check_number(np.float32(0.5), "x", low=0, high=1) == 0.5
    with pytest.raises(ValueError, match=r"x must be a number in \(0, 1\], got 0"):
        check_number(0, "x", low=0, high=1, low_open=True)
    with pytest.raises(ValueError, match=r"x must be a number in \[0, 1\), got 1"):
        check_number(1, "x", low=0, high=1, high_open=True)
    with pytest.raises(ValueError, match=r"x must be a number in \(-inf, inf\), got nan"):
        check_number(math.nan, "x")
    for bad in (True, "0.5", None):
        with pytest.raises(ValueError, match="x must be a number"):
            check_number(bad, "x")


def test_check_fraction() -> None:
    assert check_fraction(0.25, "p") == 0.25
    assert check_fraction(0, "p", allow_zero=True) == 0.0
    with pytest.raises(ValueError, match=r"p must be a number in \(0, 1\), got 0"):
        check_fraction(0, "p")
    with pytest.raises(ValueError, match=r"p must be a number in \[0, 1\), got 1"):
        check_fraction(1, "p", allow_zero=True)


def test_check_bool() -> None:
    assert check_bool(np.bool_(True), "flag") is True and check_bool(False, "flag") is False
    with pytest.raises(TypeError, match="flag must be True or False, got 1"):
        check_bool(1, "flag")


def test_check_choice() -> None:
    assert check_choice("cnn", "model", ["cnn", "linear"]) == "cnn"
    assert check_choice(0, "sg", [1, 0]) == 0
    with pytest.raises(ValueError, match=r"sg must be one of \[1, 0\], got True"):
        check_choice(True, "sg", [1, 0])
    with pytest.raises(ValueError, match=r"model must be one of \['cnn'\], got \['cnn'\]"):
        check_choice(["cnn"], "model", ["cnn"])  # unhashable: refused, not a TypeError
    with pytest.raises(ValueError, match=r"model must be one of \['cnn', 'linear'\], got 'CNN'"):
        check_choice("CNN", "model", ("cnn", "linear"))


def test_check_texts() -> None:
    assert check_texts(("a", "b")) == ["a", "b"]
    assert check_texts(pd.Series(["a"])) == ["a"]
    with pytest.raises(TypeError, match="not one string; wrap it in a list"):
        check_texts("a text")
    with pytest.raises(TypeError, match="got a DataFrame; pass one column"):
        check_texts(pd.DataFrame({"text": ["a"]}))
    with pytest.raises(TypeError, match="texts must hold strings only, item 1 is float"):
        check_texts(["a", math.nan], "texts")
    with pytest.raises(TypeError, match="X must be a sequence of strings, got int"):
        check_texts(3)


def test_check_binary_labels() -> None:
    classes, positive = check_binary_labels(np.array([1, 0, 1]), 3)
    assert classes.tolist() == [0, 1] and positive.tolist() == [True, False, True]
    with pytest.raises(ValueError, match=r"y must be 1-D with one label per text: X has 2 texts"):
        check_binary_labels([0, 1, 1], 2)
    with pytest.raises(ValueError, match="y contains missing labels"):
        check_binary_labels([0.0, np.nan], 2)
    with pytest.raises(ValueError, match=r"y must hold exactly two classes, got 1: \['a'\]"):
        check_binary_labels(["a", "a"], 2)
