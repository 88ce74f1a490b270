"""Tests for nlpbias.core.cache: reuse on same inputs; recompute on changed inputs, code or data
files; the entry folders, their atomic writes and corrupt entries; the run log; list and clear."""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from nlpbias.core import cache, cache_store
from nlpbias.core.paths import data_file, record_file
from nlpbias.core.provenance import recording

MODULE = "nlpbias_cache_probe"

SOURCE = """
from pathlib import Path

from nlpbias.core.cache import cached
from nlpbias.core.paths import record_file

CALLS = Path({calls!r})


def _count(name):
    with CALLS.open("a") as handle:
        handle.write(name + "\\n")


@cached(ignore=("verbose",))
def compute(x, *, scale=1, verbose=False):
    _count("compute")
    return {body}


@cached
def read(path):
    _count("read")
    return record_file(path).read_text()


@cached
def outer(path, tag):
    _count("outer")
    return read(path) + tag


@cached
def unpicklable(x):
    _count("unpicklable")
    return lambda: x
"""


def _write_module(folder: Path, calls: Path, body: str) -> None:
    (folder / f"{MODULE}.py").write_text(SOURCE.format(calls=str(calls), body=body))


def _calls(calls: Path, name: str = "compute") -> int:
    return calls.read_text().splitlines().count(name) if calls.exists() else 0


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """Cached functions in a module file under tmp_path; the cache also under tmp_path."""
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(cache.LOG_ENV, raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    src = tmp_path / "src"
    src.mkdir()
    monkeypatch.syspath_prepend(str(src))
    calls = tmp_path / "calls.txt"
    _write_module(src, calls, "x * scale")
    importlib.invalidate_caches()
    sys.modules.pop(MODULE, None)
    module = importlib.import_module(MODULE)
    yield module, src, calls
    sys.modules.pop(MODULE, None)


def _entries(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob(cache_store.META_FILE))


def test_same_args_reuse_changed_args_recompute(probe, tmp_path):
    module, _, calls = probe
    assert module.compute(3) == 3
    assert module.compute(3) == 3
    assert _calls(calls) == 1
    assert module.compute(3, verbose=True) == 3  # ignored argument: still cached
    assert module.compute(x=3, scale=1) == 3  # defaults are bound: the same call
    assert _calls(calls) == 1
    assert module.compute(4) == 4
    assert module.compute(3, scale=2) == 6
    assert _calls(calls) == 3
    assert module.compute.check_call_in_cache(4)
    assert not module.compute.check_call_in_cache(5)
    assert (tmp_path / "cache").is_dir()


def test_arrays_count_by_content(probe):
    module, _, calls = probe
    np.testing.assert_array_equal(module.compute(np.arange(3)), np.arange(3))
    module.compute(np.arange(3))
    module.compute(np.arange(4))
    assert _calls(calls) == 2


def test_changed_function_body_recomputes(probe):
    module, src, calls = probe
    assert module.compute(5) == 5
    assert module.compute(5) == 5
    assert _calls(calls) == 1
    _write_module(src, calls, "x * scale + 1000")
    importlib.invalidate_caches()
    module = importlib.reload(module)
    assert module.compute(5) == 1005
    assert _calls(calls) == 2
    assert module.compute(5) == 1005
    assert _calls(calls) == 2


def test_module_edited_but_not_reloaded_keeps_its_key(probe):
    """A running process keys by the code it runs (the Jupyter rule), not by the file on disk."""
    module, src, calls = probe
    module.compute(6)
    _write_module(src, calls, "x * scale + 1")  # edited, not re-imported: still the old code
    assert module.compute.check_call_in_cache(6)
    assert module.compute(6) == 6 and _calls(calls) == 1


def test_entry_layout_and_meta(probe, tmp_path):
    module, _, _ = probe
    module.compute(2)
    (entry,) = _entries(tmp_path / "cache")
    assert entry.parent.parent == tmp_path / "cache" / "shared"
    assert entry.parent.name == f"{MODULE}.compute"
    assert sorted(p.name for p in entry.iterdir()) == ["meta.json", "output.pkl"]
    meta = json.loads((entry / "meta.json").read_text())
    assert meta["function"] == f"{MODULE}.compute" and meta["study"] == "shared"
    assert meta["key"].startswith(entry.name) and len(meta["code_digest"]) == 64
    assert meta["closure"] == cache.import_closure(MODULE)
    assert {"nlpbias.core.cache", "nlpbias.core.paths"} <= set(meta["closure"])
    assert set(meta["versions"]) == set(cache.KEY_PACKAGES)
    assert meta["data_files"] == {} and meta["compute_seconds"] >= 0
    assert meta["created"] == meta["last_used"]
    assert not [p for p in entry.parent.iterdir() if p.name.startswith(".")]  # no temp left


def test_last_used_is_updated_on_a_hit(probe, tmp_path):
    module, _, _ = probe
    module.compute(2)
    (entry,) = _entries(tmp_path / "cache")
    meta = json.loads((entry / "meta.json").read_text())
    meta["last_used"] = "2000-01-01T00:00:00+00:00"
    (entry / "meta.json").write_text(json.dumps(meta))
    module.compute(2)
    assert json.loads((entry / "meta.json").read_text())["last_used"] > "2001"


def test_clear_cache_forces_recompute(probe):
    module, _, calls = probe
    module.compute(1)
    cache.clear_cache()
    module.compute(1)
    assert _calls(calls) == 2
    module.compute.clear()
    module.compute(1)
    assert _calls(calls) == 3


@pytest.mark.parametrize("damage", ["meta", "truncate", "garbage", "no_output"])
def test_corrupt_entry_is_recomputed_with_a_warning(probe, tmp_path, damage):
    module, _, calls = probe
    module.compute(7)
    (entry,) = _entries(tmp_path / "cache")
    output = entry / "output.pkl"
    if damage == "meta":
        (entry / "meta.json").write_text("{not json")
    elif damage == "truncate":
        output.write_bytes(output.read_bytes()[:2])
    elif damage == "garbage":  # same size, so only unpickling finds out
        output.write_bytes(b"\x00" * output.stat().st_size)
    else:
        output.unlink()
    with pytest.warns(cache.CacheWarning, match="computing it again"):
        assert module.compute(7) == 7
    assert _calls(calls) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert module.compute(7) == 7  # the entry was replaced by a good one
    assert _calls(calls) == 2


def test_unpicklable_result_is_returned_with_a_warning_and_nothing_stored(probe, tmp_path):
    module, _, calls = probe
    with pytest.warns(cache.CacheWarning, match="could not store"):
        assert module.unpicklable(3)() == 3
    assert not _entries(tmp_path / "cache")
    leftovers = [p for p in (tmp_path / "cache").rglob("*") if p.name.startswith(".")]
    assert leftovers == []


def test_write_entry_replaces_an_existing_entry_atomically(tmp_path):
    folder = tmp_path / "shared" / "f" / "key"
    cache_store.write_entry(folder, [1], {"data_files": {}})
    cache_store.write_entry(folder, [2], {"data_files": {}})
    assert cache_store.read_entry(folder) == [2]
    assert [p.name for p in folder.parent.iterdir()] == ["key"]


def test_data_file_edit_recomputes_and_nesting_passes_files_up(probe, tmp_path):
    module, _, calls = probe
    words = tmp_path / "words.txt"
    words.write_text("a b")
    assert module.outer(str(words), "!") == "a b!"
    assert module.outer(str(words), "?") == "a b?"  # inner hit: its file still counts
    assert (_calls(calls, "outer"), _calls(calls, "read")) == (2, 1)
    for entry in _entries(tmp_path / "cache"):
        meta = json.loads((entry / "meta.json").read_text())
        assert list(meta["data_files"]) == [words.resolve().as_posix()]
    words.write_text("a b c")
    assert module.outer(str(words), "!") == "a b c!"
    assert (_calls(calls, "outer"), _calls(calls, "read")) == (3, 2)
    assert module.outer(str(words), "?") == "a b c?"
    assert (_calls(calls, "outer"), _calls(calls, "read")) == (4, 2)
    words.unlink()
    assert not module.read.check_call_in_cache(str(words))


def test_a_hit_passes_its_files_to_the_callers_recording(probe, tmp_path):
    module, _, _ = probe
    words = tmp_path / "words.txt"
    words.write_text("x")
    module.read(str(words))
    with recording() as files:
        module.read(str(words))  # a hit
    assert list(files) == [words.resolve().as_posix()]


def test_project_data_files_are_recorded_relative_to_the_checkout():
    with recording() as files:
        data_file("groups", "gender_words.yaml")
        data_file("wordsets")  # a folder: not recorded
        record_file(data_file("reported", "dixon2018.yaml"))
    assert sorted(files) == ["data/groups/gender_words.yaml", "data/reported/dixon2018.yaml"]
    assert all(len(d) == 64 for d in files.values())


def test_run_log_lines(probe, tmp_path, monkeypatch):
    module, _, _ = probe
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv(cache.LOG_ENV, str(log))
    module.compute(8)
    module.compute(8)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["hit"] for line in lines] == [False, True]
    assert lines[0]["function"] == f"{MODULE}.compute" and lines[0]["study"] == "shared"
    assert len(lines[0]["key"]) == 12 and lines[0]["key"] == lines[1]["key"]
    assert all(line["seconds"] >= 0 for line in lines)


def test_study_of_a_module():
    assert cache_store.study_of("nlpbias.studies.logan.study") == "logan"
    assert cache_store.study_of("nlpbias.studies") == "shared"
    assert cache_store.study_of("nlpbias.models.training") == "shared"
    assert "pinned_auc" in cache_store.known_studies()
    assert cache_store.known_studies()[-1] == "shared"


def _fake_entry(root: Path, study: str, name: str, size: int, last_used: str | None) -> None:
    entry = root / study / name
    entry.mkdir(parents=True)
    (entry / "output.pkl").write_bytes(b"x" * size)
    if last_used:
        (entry / "meta.json").write_text(json.dumps({"last_used": last_used}))


def test_summary_and_clear_per_study(tmp_path):
    root = tmp_path / "c"
    _fake_entry(root, "logan", "mod.f/k1", 2_000_000, "2026-01-02T00:00:00+00:00")
    _fake_entry(root, "logan", "mod.f/k2", 1_000_000, "2026-01-03T00:00:00+00:00")
    _fake_entry(root, "scoring", "models/standin-abc", 500_000, None)
    (root / "joblib").mkdir()
    table = cache.cache_summary(root).set_index("study")
    assert table.loc["logan", "entries"] == 2 and table.loc["logan", "size_mb"] == 3.0
    assert table.loc["logan", "last_used"] == "2026-01-03T00:00:00+00:00"
    assert table.loc["scoring", "entries"] == 1 and table.loc["scoring", "last_used"]
    assert table.loc["shared", "entries"] == 0
    assert table.attrs["other"] == ["joblib"] and table.attrs["location"] == str(root)
    cache.clear_cache(root, study="logan")
    assert not (root / "logan").exists() and (root / "scoring").exists()
    with pytest.raises(cache_store.CacheError, match="unknown study 'nope': choose one of ") as e:
        cache.clear_cache(root, study="nope")
    assert "logan" in str(e.value) and "shared" in str(e.value)
    cache.clear_cache(root)
    assert root.is_dir() and not list(root.iterdir())


def test_cache_dir_location(monkeypatch, tmp_path):
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "here"))
    assert cache.cache_dir() == tmp_path / "here"
    assert cache.models_dir("nlpbias.studies.scoring.mlm") == tmp_path / "here/scoring/models"
    monkeypatch.delenv("NLPBIAS_CACHE")
    import nlpbias

    root = Path(nlpbias.__file__).resolve().parents[2]
    expected = (
        root / ".nlpbias_cache"
        if (root / "pyproject.toml").is_file()
        else Path.home() / ".cache" / "nlpbias"
    )
    assert cache.cache_dir() == expected


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="ignore must be"):
        cache.cached(ignore="verbose")
    with pytest.raises(TypeError, match="expects a function"):
        cache.cached(3)
    with pytest.raises(ValueError, match=r"ignore names \['nope'\].*arguments are \['a'\]"):
        cache.cached(ignore=("nope",))(lambda a: a)
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    with pytest.raises(NotADirectoryError, match="is a file"):
        cache.clear_cache(a_file)


def test_decorator_forms_keep_metadata(tmp_path, monkeypatch):
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path))

    def add(a, b, **kwargs):
        """Add."""
        return a + b

    wrapped = cache.cached(add)
    assert wrapped.__name__ == "add"
    assert wrapped.__doc__ == "Add."
    assert wrapped(1, 2) == 3
    assert cache.cached(ignore=("b",))(add)(1, 2) == 3
    assert cache.cached(ignore=("n_jobs",))(add)(1, 2, n_jobs=4) == 3  # ignored in **kwargs
    with pytest.raises(TypeError):
        wrapped(1)  # the function's own error for a call that does not fit
    assert not wrapped.check_call_in_cache(1)


def test_concurrent_writers_and_readers_never_see_part_of_an_entry(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    folder = tmp_path / "shared" / "f" / "key"
    value = list(range(2000))

    def write(_):
        for _ in range(15):
            cache_store.write_entry(folder, value, {"data_files": {}})

    def read(_):
        whole = 0
        for _ in range(60):
            try:
                cache_store.read_meta(folder)
                assert cache_store.read_entry(folder) == value
            except FileNotFoundError:  # absent, or replaced meanwhile: a miss
                continue
            whole += 1
        return whole

    cache_store.write_entry(folder, value, {"data_files": {}})
    with ThreadPoolExecutor(max_workers=4) as pool:
        writers = [pool.submit(write, i) for i in range(2)]
        readers = [pool.submit(read, i) for i in range(2)]
        assert sum(r.result() for r in readers) > 0
        for w in writers:
            w.result()
    assert cache_store.read_entry(folder) == value
    assert [p.name for p in folder.parent.iterdir()] == ["key"]
