"""The type of each notebook parameter, checked against its default before a notebook runs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from nlpbias.book import cli
from nlpbias.book.parameters import UNKNOWN, check_value, parameter_specs, yaml_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("value", "default", "none_ok"),
    [
        (5, 3, False), (2, 0.5, False), (0.5, 0.5, False), (True, False, False),
        ("cnn", "linear", False), ([0, 1, 2], [0], False), ([], [0], False),
        (["a", 1], [], False), ({"a": 1}, {}, False), ("x", None, False), (None, 3, True),
        ([0.0, 1], [0.5], False), ({"seed": 1}, UNKNOWN, False),
    ],
)  # fmt: skip
def test_values_of_the_default_type_pass(value, default, none_ok) -> None:
    assert check_value(value, default, none_ok=none_ok) is None


@pytest.mark.parametrize(
    ("value", "default", "message"),
    [
        ("abc", [0, 1], "must be a list of integers (like its default [0, 1]), got 'abc' "
         "(a string)"),
        (-1, [0, 1], "must be a list of integers (like its default [0, 1]), got -1 (an integer)"),
        ([0, "x"], [0, 1], "must be a list of integers (like its default [0, 1]), but item 'x' "
         "is a string"),
        (1, False, "must be true or false (like its default false), got 1 (an integer)"),
        ("yes", 3, "must be an integer (like its default 3), got 'yes' (a string)"),
        (True, "cnn", "must be a string (like its default cnn), got True (true or false)"),
        ([1], {"a": 1}, "must be a mapping {key: value, ...} (like its default {a: 1}), got [1] "
         "(a list)"),
        (None, {"a": 1}, "must be a mapping {key: value, ...} (like its default {a: 1}), got None "
         "(null)"),
    ],
)  # fmt: skip
def test_values_of_another_type_say_what_was_expected(value, default, message) -> None:
    assert check_value(value, default) == message


def test_none_is_accepted_where_the_comment_says_what_none_does(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    source = (
        "max_rows = 500  # sample this many rows (None: all)\n"
        "seeds = [0, 1]  # one model per seed\n"
        'names = [f"w{i}" for i in range(3)]\n'
        "other = helper()  # defined elsewhere\n"
    )
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, tmp_path / "t.ipynb")
    specs = parameter_specs(tmp_path / "t.ipynb")
    assert specs["max_rows"].default == 500 and specs["max_rows"].none_ok
    assert specs["seeds"].default == [0, 1] and not specs["seeds"].none_ok
    assert specs["names"].default == ["w0", "w1", "w2"]  # an expression is evaluated
    assert specs["other"].default is UNKNOWN  # cannot be: not checked
    assert check_value(None, 500, none_ok=True) is None
    assert check_value(None, 500) == "must be an integer (like its default 500), got None (null)"
    assert yaml_text({"a": [1, "b"]}) == "{a: [1, b]}" and yaml_text("x") == "x"


@pytest.mark.parametrize(
    ("param", "needle"),
    [
        ("seeds=abc", "parameter 'seeds' of study 'pinned_auc' (pinned_auc.ipynb) must be a list "
         "of integers (like its default [0, 1]), got 'abc' (a string), from -p seeds=abc; write "
         "it like -p seeds=[0, 1]"),
        ("seeds=-1", "must be a list of integers (like its default [0, 1]), got -1 (an integer), "
         "from -p seeds=-1"),
        ("use_data_home=1", "parameter 'use_data_home' of study 'pinned_auc' (pinned_auc.ipynb) "
         "must be true or false"),
    ],
)  # fmt: skip
def test_the_cli_refuses_a_bad_value_in_one_line(capsys, param: str, needle: str) -> None:
    argv = ["run", "pinned_auc", "--profile", "smoke", "-p", param, "--root", str(ROOT)]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("nlpbias: error: ") and "\n" not in err
    assert needle in err
