"""Tests for nlpbias.studies.intrinsic_extrinsic.study: what the cached sweep's key covers."""

from __future__ import annotations

from pathlib import Path

from nlpbias.core.cache import import_closure
from nlpbias.studies.intrinsic_extrinsic import study

#: Modules of the package that never run inside an evaluation (tables and figures of results).
NOT_EVALUATION = {"__init__", "correlation", "paper", "figures", "headlines"}


def test_the_evaluation_key_covers_every_module_an_evaluation_runs() -> None:
    closure = set(import_closure(study.__name__))
    package = Path(study.__file__).parent
    prefix = "nlpbias.studies.intrinsic_extrinsic."
    modules = {prefix + p.stem for p in package.glob("*.py")} - {prefix + n for n in NOT_EVALUATION}
    assert modules <= closure, f"not in the key: {sorted(modules - closure)}"
    shared = {
        "nlpbias.core.text",
        "nlpbias.data.wordsets",
        "nlpbias.data.groups",
        "nlpbias.data.twitteraae",
        "nlpbias.data.toxicity",
        "nlpbias.models.classifiers",
        "nlpbias.metrics.weat",
        "nlpbias.metrics.rnsb",
    }
    assert shared <= closure, f"not in the key: {sorted(shared - closure)}"


def test_editing_the_tables_and_figures_keeps_the_evaluations() -> None:
    closure = set(import_closure(study.__name__))
    prefix = "nlpbias.studies.intrinsic_extrinsic."
    assert not {prefix + n for n in NOT_EVALUATION} & closure
    assert not [m for m in closure if m.startswith("nlpbias.studies.") and "intrinsic_ext" not in m]
