"""Tests for nlpbias.core.closure: which modules the import closure holds, and its code digest."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from nlpbias.core import closure
from nlpbias.core.paths import file_sha256, package_dir

FAKE = {
    "__init__.py": "",
    "study1/__init__.py": "from nlpbias.study1.top import run\n",
    "study1/top.py": (
        "from nlpbias.lib import mid\n\n\ndef run():\n    from .local import x\n\n    return x\n"
    ),
    "study1/local.py": "x = 1\n",
    "study1/usesdyn.py": "from nlpbias import dyn\n",
    "study1/typed.py": (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ..lib.heavy import big\n"
    ),
    "lib/__init__.py": "from nlpbias.lib.heavy import big\n",
    "lib/mid.py": "import nlpbias.lib.deep\n",
    "lib/deep.py": "from nlpbias.util import CONST\n",
    "lib/heavy.py": "big = 2\n",
    "util.py": "CONST = 3\n",
    "dyn/__init__.py": (
        "import importlib\n\n\ndef get(n):\n"
        "    return importlib.import_module(f'nlpbias.dyn.{n}')\n"
    ),
    "dyn/x.py": "",
    "dyn/sub/__init__.py": "",
    "dyn/sub/y.py": "",
    "study2/__init__.py": "",
    "study2/other.py": "import numpy\nimport nlpbias.util\n",
}


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A fake ``nlpbias`` package tree; the closure module reads it instead of the real one."""
    root = tmp_path / "nlpbias"
    for rel, text in FAKE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    monkeypatch.setattr(closure, "package_dir", lambda: root)
    for memo in ("_IMPORTED", "_DIRECT", "_CLOSURES"):
        monkeypatch.setattr(closure, memo, {})
    return root


def _forget(monkeypatch) -> None:
    """A new process: closures and recorded sources are computed afresh."""
    for memo in ("_IMPORTED", "_DIRECT", "_CLOSURES"):
        monkeypatch.setattr(closure, memo, {})


def test_closure_follows_module_imports_not_package_reexports(fake):
    assert closure.import_closure("nlpbias.study1.top") == [
        "nlpbias.lib.deep",  # two imports away
        "nlpbias.lib.mid",  # `from nlpbias.lib import mid`: mid is a module
        "nlpbias.study1.local",  # relative import inside a function
        "nlpbias.study1.top",
        "nlpbias.util",  # `from nlpbias.util import CONST`: a name, so the module util
    ]


def test_an_explicitly_imported_package_counts_with_its_reexports(fake):
    assert closure.import_closure("nlpbias.study1") == [
        "nlpbias.lib.deep",
        "nlpbias.lib.mid",
        "nlpbias.study1",
        "nlpbias.study1.local",
        "nlpbias.study1.top",
        "nlpbias.util",
    ]


def test_dynamic_imports_reach_the_whole_package(fake):
    assert closure.import_closure("nlpbias.study1.usesdyn") == [
        "nlpbias.dyn",
        "nlpbias.dyn.sub",
        "nlpbias.dyn.sub.y",
        "nlpbias.dyn.x",
        "nlpbias.study1.usesdyn",
    ]


def test_type_checking_and_parent_relative_imports_count(fake):
    assert closure.import_closure("nlpbias.study1.typed") == [
        "nlpbias.lib.heavy",
        "nlpbias.study1.typed",
    ]


def test_other_packages_are_not_followed(fake):
    assert closure.import_closure("nlpbias.study2.other") == [
        "nlpbias.study2.other",
        "nlpbias.util",
    ]


def test_digest_sees_an_edit_two_imports_away_but_not_outside_the_closure(fake, monkeypatch):
    before = closure.code_digest("nlpbias.study1.top")
    for outside in ("study2/other.py", "lib/heavy.py", "lib/__init__.py", "study1/__init__.py"):
        (fake / outside).write_text((fake / outside).read_text() + "# edited\n")
        _forget(monkeypatch)
        assert closure.code_digest("nlpbias.study1.top") == before, outside
    (fake / "lib/deep.py").write_text("from nlpbias.util import CONST\n# edited\n")
    _forget(monkeypatch)
    assert closure.code_digest("nlpbias.study1.top") != before


def test_digest_uses_the_source_recorded_at_import(fake):
    closure.note_module_source("nlpbias.lib.deep", fake / "lib/deep.py")  # "imported" now
    before = closure.code_digest("nlpbias.study1.top")
    (fake / "lib/deep.py").write_text("# edited after the import\n")
    assert closure.code_digest("nlpbias.study1.top") == before  # this process runs the old code
    assert closure.source_digest("nlpbias.lib.mid") == file_sha256(fake / "lib/mid.py")


def test_real_package_closure():
    names = closure.import_closure("nlpbias.studies.pinned_auc.study")
    assert {"nlpbias.models.classifiers", "nlpbias.models.linear", "nlpbias.core.text"} <= set(
        names
    )
    assert not [n for n in names if n.startswith("nlpbias.studies.") and ".pinned_auc" not in n]
    assert "nlpbias.studies" not in names and "nlpbias.studies.pinned_auc" not in names
    models = {p.stem for p in (package_dir() / "models").glob("*.py") if p.stem != "__init__"}
    assert {f"nlpbias.models.{m}" for m in models} <= set(closure.import_closure("nlpbias.models"))


def test_the_import_recorder_is_installed_and_records_imported_modules():
    assert any(getattr(f, "nlpbias_source_recorder", False) for f in sys.meta_path)
    import nlpbias.core.text

    assert closure.source_digest("nlpbias.core.text") == file_sha256(
        Path(nlpbias.core.text.__file__)
    )


def test_bad_module_name():
    with pytest.raises(TypeError, match="module_name must be a dotted module name"):
        closure.import_closure("")
