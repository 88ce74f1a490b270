"""The package's architecture, checked: layers, study independence, no cycles, no private imports,
a docstring that names each module's concept, shared layers holding only what two chapters use,
and notebooks that call their own study. Modules longer than a sitting are reported (a warning
in the test summary), not refused: a module may be long if it is one concept.

The layer rules are import-linter contracts in ``pyproject.toml`` (``[tool.importlinter]``); the
rest is read from the source with :mod:`ast` and :mod:`grimp` (import-linter's import graph).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import warnings
from collections import defaultdict
from functools import cache
from pathlib import Path

import grimp
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "nlpbias"
MAX_LINES = 500
SHARED = ("data", "metrics", "models", "plotting")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@cache
def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("nlpbias", cache_dir=None)


def _studies() -> list[str]:
    config = yaml.safe_load((ROOT / "notebooks" / "profiles.yml").read_text(encoding="utf-8"))
    return list(config["studies"])


def _notebook_imports(study: str) -> set[str]:
    """The nlpbias modules that the study's notebook imports (``from a.b import c``: a.b.c if
    that is a module, else a.b)."""
    config = yaml.safe_load((ROOT / "notebooks" / "profiles.yml").read_text(encoding="utf-8"))
    nb = json.loads((ROOT / "notebooks" / config["studies"][study]["notebook"]).read_text())
    found = set()
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nlpbias"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    found.add(full if full in MODULES else node.module)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("nlpbias")}
    return found


def test_import_contracts_hold() -> None:
    """Layers, independent studies, science without the book, no sibling cycles (import-linter)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--no-cache", "--no-logo"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "BROKEN" not in done.stdout


def test_the_contracts_cover_every_layer_and_study() -> None:
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    top = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    for layer in top:
        assert f'"nlpbias.{layer}' in config, f"layer nlpbias.{layer} is in no import contract"
    packages = {p.name for p in (PACKAGE / "studies").iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(_studies()), "one package under studies/ per study of profiles.yml"


def test_no_module_imports_another_modules_private_names() -> None:
    offences = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules_bound = {}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("nlpbias")
            ):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in MODULES:
                        modules_bound[alias.asname or alias.name] = full
                    elif alias.name.startswith("_") and not alias.name.startswith("__"):
                        offences.append(f"{name} imports {alias.name} from {node.module}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("nlpbias") and alias.asname:
                        modules_bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules_bound
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                offences.append(f"{name} uses {modules_bound[node.value.id]}.{node.attr}")
    assert not offences, "private names cross modules:\n" + "\n".join(sorted(set(offences)))


class LongModuleWarning(UserWarning):
    """A module over ``MAX_LINES`` lines: worth a look, not an error."""


def test_every_module_names_its_concept_and_long_ones_are_reported() -> None:
    """Each module's docstring starts with the one concept it holds; modules over
    ``MAX_LINES`` lines are listed as a :class:`LongModuleWarning` (split one only if it holds
    two concepts, never to meet a line count)."""
    unnamed = []
    long = {}
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text)) or ""
        if not doc.strip():
            unnamed.append(name)
        if (n := len(text.splitlines())) > MAX_LINES:
            long[name] = n
    assert not unnamed, f"modules without a docstring that says what they hold: {unnamed}"
    if long:
        listed = ", ".join(f"{name} ({n})" for name, n in sorted(long.items(), key=lambda x: -x[1]))
        warnings.warn(f"modules over {MAX_LINES} lines: {listed}", LongModuleWarning, stacklevel=1)


def _chapters_using() -> dict[str, set[str]]:
    """For every module, the chapters that reach it: through their study package or notebook."""
    graph = _graph()
    users: dict[str, set[str]] = defaultdict(set)
    for study in _studies():
        package = f"nlpbias.studies.{study}"
        starts = {m for m in MODULES if m == package or m.startswith(package + ".")}
        starts |= _notebook_imports(study)
        reached = set(starts)
        for start in starts:
            reached |= graph.find_upstream_modules(start)
        for module in reached:
            users[module].add(study)
    return users


def test_shared_layers_hold_only_what_two_chapters_use() -> None:
    users = _chapters_using()
    single = {}
    for name in MODULES:
        parts = name.split(".")
        if len(parts) < 3 or parts[1] not in SHARED:
            continue
        if len(users[name]) < 2:
            single[name] = sorted(users[name])
    assert not single, (
        "modules in a shared layer that fewer than two chapters use (move them into the study "
        f"that uses them): {single}"
    )


@pytest.mark.parametrize("study", _studies())
def test_a_notebook_calls_its_study_and_the_shared_layers(study: str) -> None:
    imports = _notebook_imports(study)
    allowed_layers = {"core", *SHARED}
    bad = []
    for module in imports:
        parts = module.split(".")
        if module == "nlpbias" or (len(parts) >= 2 and parts[1] in allowed_layers):
            continue
        if module != f"nlpbias.studies.{study}":
            bad.append(module)
    assert not bad, f"notebook of {study!r} imports {bad}; call nlpbias.studies.{study} instead"


def test_modules_import_at_the_top() -> None:
    """No import after code at module level (the old plotting/__init__ imported its submodules
    at the bottom, a cycle in disguise)."""
    late = []
    for name, path in MODULES.items():
        body = ast.parse(path.read_text(encoding="utf-8")).body
        seen_code = False
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                if seen_code:
                    late.append(f"{name}:{node.lineno}")
            elif not (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)  # docstring
                or isinstance(node, ast.If | ast.Try)  # TYPE_CHECKING blocks, optional imports
                or (isinstance(node, ast.Assign | ast.AnnAssign) and _is_dunder(node))
            ):
                seen_code = True
    assert not late, f"module-level imports after code: {late}"


def _is_dunder(node: ast.Assign | ast.AnnAssign) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return all(isinstance(t, ast.Name) and t.id.startswith("__") for t in targets)
