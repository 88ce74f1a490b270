"""Tests for nlpbias.studies.intrinsic_extrinsic.study: the code fingerprint of the cached sweep."""

from __future__ import annotations

import re
from pathlib import Path

from nlpbias.studies.intrinsic_extrinsic import study

#: Modules of the package that never run inside an evaluation (tables and figures of results).
NOT_EVALUATION = {"__init__.py", "correlation.py", "paper.py", "figures.py"}


def test_code_fingerprint_lists_every_module_an_evaluation_runs() -> None:
    package = Path(study.__file__).parent
    listed = {Path(rel).name for rel in study._CODE if rel.startswith("studies/intrinsic_ext")}
    modules = {p.name for p in package.glob("*.py")} - NOT_EVALUATION
    assert modules <= listed, f"add {sorted(modules - listed)} to study._CODE"
    root = package.parents[1]
    assert all((root / rel).is_file() for rel in study._CODE)


def test_code_fingerprint_is_stable_and_short() -> None:
    first = study._code_fingerprint()
    assert re.fullmatch(r"[0-9a-f]{16}", first) and study._code_fingerprint() == first
