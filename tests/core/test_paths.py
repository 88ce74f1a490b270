"""Tests for nlpbias.core.paths: the package, the checkout and data/."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from nlpbias.core import paths

ROOT = Path(__file__).resolve().parents[2]


def test_docstring_examples() -> None:
    failed, attempted = doctest.testmod(paths, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


def test_the_package_runs_from_this_checkout() -> None:
    assert paths.package_dir() == ROOT / "src" / "nlpbias"
    assert paths.checkout_dir() == ROOT
    assert paths.data_dir() == ROOT / "data"
    assert paths.data_file("wordsets", "caliskan_weat1.yaml").is_file()


def test_a_missing_data_folder_is_one_line_that_says_how_to_fix_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(paths, "package_dir", lambda: tmp_path / "site" / "nlpbias")
    assert paths.checkout_dir() is None
    with pytest.raises(FileNotFoundError) as err:
        paths.data_dir()
    assert "pip install -e ." in str(err.value) and "\n" not in str(err.value)
