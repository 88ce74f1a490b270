"""Tests for nlpbias.core.cache: reuse on the same key; recompute on changed arguments, code, data
files or library versions; corrupt entries; the Jupyter rule; the run log; list and clear."""

from __future__ import annotations

import importlib
import json
import logging
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from nlpbias.core import cache

MODULE = "nlpbias_cache_probe"

SOURCE = """
from pathlib import Path

from nlpbias.core.cache import cached

CALLS = Path({calls!r})


def _count(name):
    with CALLS.open("a") as handle:
        handle.write(name + "\\n")


@cached(ignore=("verbose",))
def compute(x, *, scale=1, verbose=False):
    _count("compute")
    return {body}


@cached
def outer(x):
    _count("outer")
    return compute(x) + 1
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
    return sorted(p.parent for p in root.rglob("output.pkl"))


def test_same_args_hit_changed_args_miss_ignored_args_do_not_count(probe, tmp_path):
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
    assert _calls(calls) == 3  # looking up computes nothing


def test_arrays_count_by_content(probe):
    module, _, calls = probe
    np.testing.assert_array_equal(module.compute(np.arange(3)), np.arange(3))
    module.compute(np.arange(3))
    module.compute(np.arange(4))
    assert _calls(calls) == 2


def test_entry_layout_per_study(probe, tmp_path):
    module, _, _ = probe
    module.compute(2)
    (entry,) = _entries(tmp_path / "cache")
    assert entry.parent == tmp_path / "cache" / "shared" / "joblib" / MODULE / "compute"
    assert {"output.pkl", "metadata.json"} <= {p.name for p in entry.iterdir()}


def test_changed_function_body_recomputes(probe):
    module, src, calls = probe
    assert module.compute(5) == 5
    _write_module(src, calls, "x * scale + 1000")
    importlib.invalidate_caches()
    module = importlib.reload(module)
    assert module.compute(5) == 1005
    assert module.compute(5) == 1005
    assert _calls(calls) == 2


def test_module_edited_but_not_reloaded_keeps_its_key(probe):
    """A running process keys by the code it runs (the Jupyter rule), not by the file on disk."""
    module, src, calls = probe
    module.compute(6)
    _write_module(src, calls, "x * scale + 1")  # edited, not re-imported: still the old code
    assert module.compute.check_call_in_cache(6)
    assert module.compute(6) == 6 and _calls(calls) == 1


def test_library_versions_are_in_the_key(probe, monkeypatch):
    module, _, calls = probe
    module.compute(7)
    versions = {**cache.package_versions(), "numpy": "0.0.1"}
    monkeypatch.setattr(cache, "package_versions", lambda: versions)
    assert not module.compute.check_call_in_cache(7)
    module.compute(7)
    assert _calls(calls) == 2


def test_a_data_file_edit_recomputes(probe, tmp_path, monkeypatch):
    module, _, calls = probe
    data = tmp_path / "data"
    (data / "wordsets").mkdir(parents=True)
    words = data / "wordsets" / "toy.yaml"
    words.write_text("words: [a, b]\n")
    monkeypatch.setattr(cache, "data_dir", lambda: data)
    module.outer(1)
    module.outer(1)
    assert (_calls(calls, "outer"), _calls(calls)) == (1, 1)
    words.write_text("words: [a, b, c]\n")  # same modification second is possible: size differs
    assert not module.outer.check_call_in_cache(1)
    module.outer(1)
    assert (_calls(calls, "outer"), _calls(calls)) == (2, 2)  # the nested step too
    (data / "wordsets" / "other.yaml").write_text("x: 1\n")  # a new file counts as well
    module.outer(1)
    assert _calls(calls, "outer") == 3


def _fake_package(root: Path) -> Path:
    for rel in ["core/a.py", "data/b.py", "metrics/c.py", "models/d.py", "plotting/e.py",
                "studies/one/__init__.py", "studies/one/deep/f.py", "studies/two/__init__.py",
                "book/g.py"]:  # fmt: skip
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n")
    return root


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = _fake_package(tmp_path / "nlpbias")
    monkeypatch.setattr(cache, "package_dir", lambda: root)
    monkeypatch.setattr(cache, "_SOURCES", {})
    monkeypatch.setattr(cache, "_WARNED", set())
    return root


def test_the_key_covers_the_study_package_and_the_shared_layers(package):
    rel = {p.relative_to(package).as_posix() for p in cache.key_files("nlpbias.studies.one.x")}
    assert rel == {"core/a.py", "data/b.py", "metrics/c.py", "models/d.py", "plotting/e.py",
                   "studies/one/__init__.py", "studies/one/deep/f.py"}  # fmt: skip
    shared = {p.relative_to(package).as_posix() for p in cache.key_files("nlpbias.models.d")}
    assert shared == {"core/a.py", "data/b.py", "metrics/c.py", "models/d.py", "plotting/e.py"}


@pytest.mark.parametrize(
    ("edited", "one", "two"),
    [("studies/one/deep/f.py", True, False), ("models/d.py", True, True), ("book/g.py", 0, 0)],
)
def test_an_edit_changes_the_keys_of_the_studies_it_runs_in(package, monkeypatch, edited, one, two):
    before = {s: cache.code_digest(f"nlpbias.studies.{s}.m") for s in ("one", "two")}
    (package / edited).write_text("# edited\n")
    monkeypatch.setattr(cache, "_SOURCES", {})  # a fresh process
    after = {s: cache.code_digest(f"nlpbias.studies.{s}.m") for s in ("one", "two")}
    assert (before["one"] != after["one"], before["two"] != after["two"]) == (one, two)


def test_a_source_edited_while_the_process_runs_keeps_its_key_and_warns_once(package):
    before = cache.code_digest("nlpbias.studies.one.m")
    (package / "core" / "a.py").write_text("# edited while imported, a few bytes longer\n")
    with pytest.warns(cache.CacheWarning, match="restart the kernel") as caught:
        assert cache.code_digest("nlpbias.studies.one.m") == before
    assert "core/a.py" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.code_digest("nlpbias.studies.one.m") == before  # warned once only


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_corrupt_entry_is_recomputed_with_a_warning(probe, tmp_path, caplog, damage):
    module, _, calls = probe
    module.compute(7)
    (entry,) = _entries(tmp_path / "cache")
    output = entry / "output.pkl"
    if damage == "truncate":
        output.write_bytes(output.read_bytes()[:2])
    else:  # same size, so only unpickling finds out
        output.write_bytes(b"\x00" * output.stat().st_size)
    with caplog.at_level(logging.WARNING):
        assert module.compute(7) == 7
    assert _calls(calls) == 2
    assert any(r.levelno == logging.WARNING and "loading results" in r.getMessage()
               for r in caplog.records)  # fmt: skip
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert module.compute(7) == 7  # the entry was replaced by a good one
    assert _calls(calls) == 2 and not caplog.records


def test_run_log_lines(probe, tmp_path, monkeypatch):
    module, _, _ = probe
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv(cache.LOG_ENV, str(log))
    module.compute(8)
    module.compute(8)
    module.outer(8)  # a miss whose nested step is a hit
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["function"].split(".")[-1], line["hit"]) for line in lines] == [
        ("compute", False), ("compute", True), ("compute", True), ("outer", False)
    ]  # fmt: skip
    assert lines[0]["function"] == f"{MODULE}.compute" and lines[0]["study"] == "shared"
    assert set(lines[0]) == {"function", "study", "hit", "seconds", "key"}
    assert len(lines[0]["key"]) == 12 and lines[0]["key"] == lines[1]["key"] != lines[3]["key"]
    (entry,) = [e for e in _entries(tmp_path / "cache") if e.parent.name == "compute"]
    assert entry.name.startswith(lines[0]["key"])  # the key names the entry's folder
    assert all(line["seconds"] >= 0 for line in lines)


def test_study_of_a_module():
    assert cache.study_of("nlpbias.studies.logan.study") == "logan"
    assert cache.study_of("nlpbias.studies") == "shared"
    assert cache.study_of("nlpbias.models.training") == "shared"


def _fake_entry(root: Path, study: str, name: str, size: int) -> None:
    entry = root / study / name
    entry.mkdir(parents=True)
    (entry / "output.pkl").write_bytes(b"x" * size)


def test_summary_and_clear_per_study(probe, tmp_path):
    module, _, _ = probe
    root = tmp_path / "cache"
    module.compute(1)
    module.compute(2)
    _fake_entry(root, "logan", "joblib/mod/f/k1", 2_000_000)
    _fake_entry(root, "logan", "joblib/mod/f/k2", 1_000_000)
    (root / "scoring" / "models" / "standin-abc").mkdir(parents=True)
    (root / "older").mkdir()
    table = cache.cache_summary(root).set_index("study")
    assert table.loc["logan", "entries"] == 2 and table.loc["logan", "size_mb"] == 3.0
    assert table.loc["logan", "last_used"] > "2026"
    assert table.loc["scoring", "entries"] == 1 and table.loc["shared", "entries"] == 2
    assert table.loc["pinned_auc", "entries"] == 0 and table.loc["pinned_auc", "last_used"] == ""
    assert table.attrs["other"] == ["older"] and table.attrs["location"] == str(root)
    cache.clear_cache(root, study="logan")
    assert not (root / "logan").exists() and (root / "scoring").exists()
    with pytest.raises(cache.CacheError, match="unknown study 'nope': choose one of ") as e:
        cache.clear_cache(root, study="nope")
    assert "logan" in str(e.value) and "shared" in str(e.value)
    cache.clear_cache()  # the current folder: $NLPBIAS_CACHE
    assert root.is_dir() and not list(root.iterdir())
    module.compute(1)  # the store is recreated after a clear
    assert len(_entries(root)) == 1


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
    with pytest.raises(TypeError, match="dotted module name"):
        cache.code_digest("")
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


def test_importing_nlpbias_changes_nothing_but_sys_modules():
    import subprocess

    code = "import sys; m = [*sys.meta_path]; import nlpbias.core.cache; print(m == sys.meta_path)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_docstring_examples(tmp_path, monkeypatch):
    import doctest

    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path))
    failed, attempted = doctest.testmod(cache, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
