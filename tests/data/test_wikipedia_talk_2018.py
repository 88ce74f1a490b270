"""Tests of nlpbias.data.dixon.load_wikipedia_talk_2018: planted parts in a temporary data home
(registered with their own checksums), every bad-input error, then the real files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from fakes import fake_dataset

from nlpbias.data import ChecksumError, MissingDataError, registry
from nlpbias.data.dixon import WIKIPEDIA_TALK_2018_FILES, load_wikipedia_talk_2018

NAME = "wikipedia_talk_jigsaw2018"
PART1, PART2 = WIKIPEDIA_TALK_2018_FILES

# RFC 4180: a quoted field with a newline, a comma and doubled quotes; a label 1 in each part
GOOD1 = (
    b'comment_text,labels\n"Explanation\nWhy the edits, ""reverted""?",0\nyou are a gay idiot,1\n'
)
GOOD2 = b'comment_text,labels\n"thanks\r\nfor the fix",0\nshut up,1\nok,0\n'


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data home, offline, with the verified-file cache kept in tmp."""
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("NLPBIAS_DATA", str(h))
    monkeypatch.setenv("NLPBIAS_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return h


def _plant(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    part1: bytes = GOOD1,
    part2: bytes = GOOD2,
    *,
    registered: dict[str, bytes] | None = None,
    write: tuple[str, ...] = WIKIPEDIA_TALK_2018_FILES,
) -> None:
    """Write the parts under ``home`` and register them (with ``registered``'s checksums)."""
    bodies = {PART1: part1, PART2: part2}
    monkeypatch.setitem(registry.datasets(), NAME, fake_dataset(registered or bodies, name=NAME))
    (home / NAME).mkdir(exist_ok=True)
    for name in write:
        (home / NAME / name).write_bytes(bodies[name])


def test_reads_both_parts_in_file_order(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _plant(home, monkeypatch)
    df = load_wikipedia_talk_2018()
    assert list(df.columns) == ["text", "toxic"]
    assert df["toxic"].dtype == bool
    assert df.index.tolist() == [0, 1, 2, 3, 4] and df.index.name == "row"
    assert df["text"].tolist() == [
        'Explanation\nWhy the edits, "reverted"?',
        "you are a gay idiot",
        "thanks\r\nfor the fix",
        "shut up",
        "ok",
    ]
    assert df["toxic"].tolist() == [False, True, False, True, False]


def test_paths_read_given_files_in_the_given_order(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_bytes(GOOD1)
    b.write_bytes(GOOD2)
    df = load_wikipedia_talk_2018(paths=[b, a])
    assert df["text"].tolist()[:2] == ["thanks\r\nfor the fix", "shut up"]
    assert df["toxic"].tolist() == [False, True, False, False, True]
    with pytest.raises(TypeError, match="non-empty sequence of CSV paths"):
        load_wikipedia_talk_2018(paths=a)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        load_wikipedia_talk_2018(paths=[tmp_path / "missing.csv"])


def test_missing_part_names_the_file_and_the_fix(
    home: Path, monkeypatch: pytest.MonkeyPatch, one_line
) -> None:
    _plant(home, monkeypatch, write=(PART1,))
    with pytest.raises(MissingDataError) as err:
        load_wikipedia_talk_2018()
    msg = one_line(err)
    assert PART2 in msg and PART1 not in msg and "NLPBIAS_DATA" in msg


def test_the_real_registry_entry_says_where_to_download_a_missing_part(
    home: Path, one_line
) -> None:
    with pytest.raises(MissingDataError) as err:
        load_wikipedia_talk_2018()
    msg = one_line(err)
    assert PART1 in msg and "offline" in msg
    assert f"{registry.get(NAME).file(PART1).url} into that folder" in msg


def test_altered_part_fails_its_checksum(
    home: Path, monkeypatch: pytest.MonkeyPatch, one_line
) -> None:
    altered = GOOD2.replace(b"shut up,1", b"shut up,0")  # same size, one label flipped
    assert len(altered) == len(GOOD2)
    _plant(home, monkeypatch, part2=altered, registered={PART1: GOOD1, PART2: GOOD2})
    with pytest.raises(ChecksumError) as err:
        load_wikipedia_talk_2018()
    msg = one_line(err)
    assert PART2 in msg and "sha256" in msg and "NLPBIAS_DATA" in msg


@pytest.mark.parametrize(
    ("part2", "match"),
    [
        (b"comment_text,toxic\nhi,0\n", r"text_comment_2\.csv lacks columns \['labels'\]"),
        (b"text,labels\nhi,0\n", r"text_comment_2\.csv lacks columns \['comment_text'\]"),
        (b"comment_text,labels\nhi,0\nyo,2\nbye,yes\n", r"must be 0 or 1, got \['2', 'yes'\]"),
        (b"comment_text,labels\nhi,\n", r"text_comment_2\.csv column 'labels' must be 0 or 1"),
        (b"", r"text_comment_2\.csv is empty"),
        (b"comment_text,labels\n", r"text_comment_2\.csv has a header but no rows"),
    ],
    ids=["no labels", "no comment_text", "label 2", "blank label", "empty file", "no rows"],
)
def test_bad_part_is_one_clear_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, one_line, part2: bytes, match: str
) -> None:
    _plant(home, monkeypatch, part2=part2)
    with pytest.raises(ValueError, match=match) as err:
        load_wikipedia_talk_2018()
    msg = one_line(err)
    assert msg.startswith(f"{NAME}: ")


def test_label_error_says_where_the_bad_rows_are(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # data rows 2 and 3 (counted from 1, the header excluded)
    _plant(home, monkeypatch, part2=b"comment_text,labels\nok,0\nbad,-1\nworse,0.5\n")
    with pytest.raises(ValueError, match=r"2 rows, first at data rows \[2, 3\]"):
        load_wikipedia_talk_2018()


# --------------------------------------------------------------------------- real data


@pytest.mark.usefixtures("use_data_home")
def test_real_wikipedia_talk_2018() -> None:
    df = load_wikipedia_talk_2018()
    assert len(df) == 20_000
    assert int(df["toxic"].sum()) == 1_947
    assert df.index.equals(pd.RangeIndex(20_000, name="row"))
    assert df["text"].iloc[0].startswith("Explanation\nWhy the edits made under my username")
    assert int(df["toxic"].iloc[:10_000].sum()) == 971  # part 1 first, as SOURCE.md counts


@pytest.mark.usefixtures("use_data_home")
def test_real_identity_term_counts_are_source_mds() -> None:
    # SOURCE.md's facts (comments with the term / of them toxic), whole word, any case
    from nlpbias.data.describe import identity_term_frequencies

    freq = identity_term_frequencies(load_wikipedia_talk_2018(), ["gay", "homosexual", "queer"])
    counts = freq.set_index("term")[["n_overall", "n_toxic"]].to_numpy().tolist()
    assert counts == [[110, 70], [41, 23], [9, 6]]
