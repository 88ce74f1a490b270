"""One source of parameter truth: each notebook's parameters cell holds the ``demo`` values.

``nlpbias run STUDY --profile demo`` injects ``profiles.demo.STUDY`` from notebooks/profiles.yml;
opening the notebook in JupyterLab and pressing Run All uses the cell as it is stored. The two
must compute the same chapter, so the cell's defaults are the demo values. Every other profile
injects only the keys it lists and falls back to the cell (demo) value for the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

from nlpbias.book import runner

ROOT = Path(__file__).resolve().parents[2]
CONFIG = runner.load_config(ROOT)
STUDIES = list(CONFIG["studies"])


def _cell_values(study: str) -> dict[str, Any]:
    """Execute the study's cell tagged ``parameters`` on its own and return what it assigns."""
    path = ROOT / "notebooks" / CONFIG["studies"][study]["notebook"]
    cells = nbformat.read(path, as_version=4).cells
    tagged = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{path.name} needs exactly one cell tagged 'parameters'"
    namespace: dict[str, Any] = {}
    exec(compile(tagged[0].source, f"{path.name}:parameters", "exec"), namespace)
    return {k: v for k, v in namespace.items() if not k.startswith("__")}


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same type all the way down (1 is not 1.0, True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _profile(name: str, study: str) -> dict[str, Any]:
    return dict((CONFIG["profiles"][name] or {}).get(study) or {})


@pytest.mark.parametrize("study", STUDIES)
def test_parameters_cell_holds_the_demo_values(study: str) -> None:
    cell = _cell_values(study)
    assert cell.get("profile") == "demo", f"{study}: the parameters cell must say profile = 'demo'"
    wrong = {
        key: (cell.get(key, "<missing>"), value)
        for key, value in _profile("demo", study).items()
        if key not in cell or not _same(cell[key], value)
    }
    assert not wrong, (
        f"{study}: the parameters cell differs from profiles.yml's demo section "
        f"(key: (cell, demo)): {wrong}; set the cell to the demo values"
    )


@pytest.mark.parametrize("study", STUDIES)
def test_every_profile_key_is_defined_in_the_cell(study: str) -> None:
    cell = _cell_values(study)
    for profile in CONFIG["profiles"]:
        unknown = sorted(set(_profile(profile, study)) - set(cell))
        assert not unknown, f"profile {profile} sets {unknown} for {study}: not in its cell"


def test_helper_compares_types() -> None:
    assert _same({"a": [0, 1]}, {"a": [0, 1]})
    assert not _same(1, 1.0) and not _same(True, 1) and not _same([0], [0, 1])
    assert not _same({"a": 1}, {"b": 1})
