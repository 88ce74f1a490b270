"""Tests for nlpbias.core.cache: reuse on same inputs, recompute on changed inputs or code."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from nlpbias.core import cache

MODULE = "nlpbias_cache_probe"

SOURCE = """
from pathlib import Path

from nlpbias.core.cache import cached

CALLS = Path({calls!r})


@cached(ignore=("verbose",))
def compute(x, *, scale=1, verbose=False):
    with CALLS.open("a") as handle:
        handle.write("call\\n")
    return {body}
"""


def _write_module(folder: Path, calls: Path, body: str) -> None:
    (folder / f"{MODULE}.py").write_text(SOURCE.format(calls=str(calls), body=body))


def _n_calls(calls: Path) -> int:
    return len(calls.read_text().splitlines()) if calls.exists() else 0


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """A cached function defined in a module file under tmp_path, cache also under tmp_path."""
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    src = tmp_path / "src"
    src.mkdir()
    monkeypatch.syspath_prepend(str(src))
    calls = tmp_path / "calls.txt"
    _write_module(src, calls, "x * scale")
    importlib.invalidate_caches()
    module = importlib.import_module(MODULE)
    yield module, src, calls
    sys.modules.pop(MODULE, None)


def test_same_args_reuse_changed_args_recompute(probe, tmp_path):
    module, _, calls = probe
    assert module.compute(3) == 3
    assert module.compute(3) == 3
    assert _n_calls(calls) == 1
    assert module.compute(3, verbose=True) == 3  # ignored argument: still cached
    assert _n_calls(calls) == 1
    assert module.compute(4) == 4
    assert module.compute(3, scale=2) == 6
    assert _n_calls(calls) == 3
    assert module.compute.check_call_in_cache(4)
    assert (tmp_path / "cache").is_dir()


def test_changed_function_body_recomputes(probe):
    module, src, calls = probe
    assert module.compute(5) == 5
    assert module.compute(5) == 5
    assert _n_calls(calls) == 1
    _write_module(src, calls, "x * scale + 1000")
    importlib.invalidate_caches()
    module = importlib.reload(module)
    assert module.compute(5) == 1005
    assert _n_calls(calls) == 2
    assert module.compute(5) == 1005
    assert _n_calls(calls) == 2


def test_clear_cache_forces_recompute(probe):
    module, _, calls = probe
    module.compute(1)
    cache.clear_cache()
    module.compute(1)
    assert _n_calls(calls) == 2
    module.compute.clear()
    module.compute(1)
    assert _n_calls(calls) == 3


def test_cache_dir_location(monkeypatch, tmp_path):
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "here"))
    assert cache.cache_dir() == tmp_path / "here"
    assert cache.memory().location == str(tmp_path / "here")
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
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    with pytest.raises(NotADirectoryError, match="is a file"):
        cache.memory(a_file)


def test_decorator_forms_keep_metadata(tmp_path, monkeypatch):
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path))

    def add(a, b):
        """Add."""
        return a + b

    wrapped = cache.cached(add)
    assert wrapped.__name__ == "add"
    assert wrapped.__doc__ == "Add."
    assert wrapped(1, 2) == 3
    assert cache.cached(ignore=("b",))(add)(1, 2) == 3
