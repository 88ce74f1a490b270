"""Tests of nlpbias.data.reported and of transcriptions in data/reported/ checked against their
source (the seed papers in ../shared/seeds, when that folder is present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlpbias.data.reported import load_reported

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
COLUMNS = ["delta_effect_sizes", "delta_p_values", "effect_sizes_ratio", "p_values_ratio"]


def test_a_missing_name_names_the_expected_file():
    with pytest.raises(FileNotFoundError, match=r"data/reported/nosuchpaper\.yaml"):
        load_reported("nosuchpaper")


def test_wajdalevie_table6_has_fourteen_tests_and_the_posters_columns():
    table6 = load_reported("wajdalevie2021")["table6"]
    assert table6["columns"] == COLUMNS
    rows = table6["rows"]
    assert len(rows) == 14 and list(rows)[0] == "WEAT A" and list(rows)[-1] == "WEAT N"
    assert "WEAT FF" in rows and "WEAT G" not in rows  # as printed
    assert all(list(values) == COLUMNS for values in rows.values())
    assert rows["WEAT L"]["p_values_ratio"] == pytest.approx(5.727823)


def _seed_table6() -> list[list[str]]:
    paths = sorted(SEEDS.glob("004_*.txt"))
    if not paths:
        pytest.skip("seed 004 (../shared/seeds) not present")
    text = paths[0].read_text(encoding="utf-8")
    block = text.split("Table 6:", 1)[1].split("\nindex\t", 1)[1].split("\n\n", 1)[0]
    return [line.split("\t") for line in ("index\t" + block).splitlines()]


def test_wajdalevie_table6_equals_the_seed():
    header, *lines = _seed_table6()
    table6 = load_reported("wajdalevie2021")["table6"]
    assert header == ["index", *table6["columns"]]
    assert list(table6["rows"]) == [line[0] for line in lines]
    for label, *values in lines:
        assert [table6["rows"][label][c] for c in table6["columns"]] == [float(v) for v in values]
