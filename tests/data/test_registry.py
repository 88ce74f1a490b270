"""Tests of nlpbias.data.registry: registry contents, entries, data home and the listing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fakes import fake_dataset

from nlpbias import data
from nlpbias.data import registry as reg

SOURCE_ROW = re.compile(r"^\| `([^`]+)` \| (\d+) \|.*\| `([0-9a-f]{64})` \|\s*$")
SOURCE_ITEM = re.compile(r"^\s*- ([0-9a-f]{64})\s+(\S+)\s*$")


def _fake(contents: dict[str, bytes], name: str = "fake") -> reg.Dataset:
    return fake_dataset(contents, name=name, used_by=("tests", "S1"))


# --------------------------------------------------------------------------- registry contents


#: Registered datasets that no chapter reads yet, and the issue that will read them.
NOT_YET_USED: dict[str, str] = {}


def _source_checksums(folder: Path) -> dict[str, tuple[str, int | None]]:
    out: dict[str, tuple[str, int | None]] = {}
    for line in (folder / "SOURCE.md").read_text("utf-8").splitlines():
        if m := SOURCE_ROW.match(line):
            out[m.group(1)] = (m.group(3), int(m.group(2)))
        elif m := SOURCE_ITEM.match(line):
            out[m.group(2)] = (m.group(1), None)
    return out


def test_registry_covers_every_folder_of_the_data_home(data_home: Path) -> None:
    folders = {p.name for p in data_home.iterdir() if p.is_dir()}
    assert folders == set(data.datasets())
    for name in sorted(folders):
        ds = data.get(name)
        expected = _source_checksums(data_home / name)
        assert expected, f"no checksums parsed from {name}/SOURCE.md"
        assert {f.name: f.sha256 for f in ds.files} == {k: v[0] for k, v in expected.items()}
        on_disk = {
            str(p.relative_to(data_home / name))
            for p in (data_home / name).rglob("*")
            if p.is_file() and p.name != "SOURCE.md" and not p.name.startswith(".")
        }
        assert on_disk == {f.name for f in ds.files}
        for f in ds.files:
            assert f.bytes == (data_home / name / f.name).stat().st_size
            if expected[f.name][1] is not None:
                assert f.bytes == expected[f.name][1]


def test_registry_urls_are_pinned_raw_files_of_the_origin() -> None:
    n_url = 0
    for ds in data.datasets().values():
        assert ds.title and ds.description and ds.licence and ds.citation
        assert ds.used_by or ds.name in NOT_YET_USED, f"{ds.name}: used_by names no chapter"
        assert re.fullmatch(r"[0-9a-f]{40}", ds.commit)
        repo = ds.homepage.removeprefix("https://github.com/")
        for f in ds.files:
            if f.name.endswith(".gz") or f.name == "occupations_bls_pct_women.csv":
                assert f.url is None, f"{ds.name}/{f.name} was prepared here"
            if f.url is None:
                assert f.prepared, f"{ds.name}/{f.name} needs a `prepared` note"
                continue
            n_url += 1
            m = re.fullmatch(
                rf"https://raw\.githubusercontent\.com/{repo}/([0-9a-f]{{40}})/(.+)", f.url
            )
            assert m, f.url
            assert m.group(2).endswith(Path(f.name).name)
    assert n_url > 50
    # dixon2018's two debiasing pools come from an older commit than the rest
    dixon = data.get("dixon2018")
    assert (
        "e02b9f12b63a39235e57ba6d3d62d8139ca5572c" in dixon.file("toxicity_debiasing_data.tsv").url
    )
    assert dixon.commit in dixon.file("bias_madlibs_data/names.txt").url


# --------------------------------------------------------------------------- entries


def test_unknown_names_raise(one_line) -> None:
    with pytest.raises(data.DatasetNotFoundError) as info:
        data.get("davidson2071")
    msg = one_line(info.value)
    assert "'davidson2071'" in msg and "davidson2017" in msg and "winobias" in msg
    with pytest.raises(data.DataError, match="no file 'labelled.csv'") as info:
        data.get("davidson2017").file("labelled.csv")
    assert "labeled_data.csv" in one_line(info.value)


def test_dataset_file_lookup_and_size() -> None:
    ds = _fake({"sub/a.txt": b"alpha\n", "b.txt": b"x" * 1_500_000})
    assert ds.file(Path("sub") / "a.txt") is ds.files[0]
    assert ds.file("b.txt").bytes == 1_500_000
    assert ds.megabytes == pytest.approx(1.500006)


def test_malformed_entry_raises_one_line(one_line) -> None:
    entry = {"title": "T", "description": "D", "homepage": "h", "commit": "c", "licence": "L"}
    entry["citation"] = "C"
    entry["files"] = [{"name": "a.txt", "sha256": "AB", "bytes": "12"}]
    ds = reg._parse("ok", entry)
    assert ds.files[0] == reg.DataFile("a.txt", "ab", 12) and ds.used_by == ()
    del entry["licence"]
    with pytest.raises(data.DataError, match="registry entry 'bad' is malformed") as info:
        reg._parse("bad", entry)
    assert "registry.yaml" in one_line(info.value)


# --------------------------------------------------------------------------- data home, listing


def test_data_home_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NLPBIAS_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert data.data_home() == tmp_path / "nlpbias_data"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NLPBIAS_DATA", "rel/home")
    assert data.data_home() == tmp_path / "rel" / "home"


def test_list_datasets_checks_presence_and_size_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLPBIAS_DATA", str(tmp_path))
    monkeypatch.setitem(reg.datasets(), "fake", _fake({"a.txt": b"1234", "b.txt": b"56"}))
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "a.txt").write_bytes(b"12X4")  # right size, wrong content
    table = data.list_datasets()
    assert table.columns.tolist() == [
        "name",
        "title",
        "files",
        "megabytes",
        "licence",
        "available",
        "used_by",
    ]
    assert len(table) == len(reg.datasets())
    row = table.set_index("name").loc["fake"]
    assert row["files"] == 2 and row["megabytes"] == 0.0 and row["licence"] == "CC0"
    assert not row["available"] and row["used_by"] == "tests, S1"
    (tmp_path / "fake" / "b.txt").write_bytes(b"567")  # wrong size
    assert not data.list_datasets().set_index("name").loc["fake", "available"]
    (tmp_path / "fake" / "b.txt").write_bytes(b"57")
    assert data.list_datasets().set_index("name").loc["fake", "available"]
