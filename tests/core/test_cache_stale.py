"""The stale-result cases of issue 16, on a copy of the project tree (src/ and data/).

Each step runs in a fresh process with ``PYTHONPATH=<copy>/src``, as a new Jupyter kernel or
``nlpbias run`` would after an edit; the real files of the checkout are never edited.

(a) editing ``models/classifiers.py`` (and ``models/linear.py``, two imports away) recomputes
    ``studies.pinned_auc.study._fit_and_score``; editing another study's package does not;
(b) editing ``core/text.py`` recomputes the intrinsic-vs-extrinsic evaluation
    (``studies.intrinsic_extrinsic.study._evaluate_cached``; key only: its body is stubbed);
(c) editing a word-set YAML that the evaluation reads recomputes it (a real, tiny evaluation:
    GloVe 6B 50d from its PyPI package, the coreference stand-in, one seed); editing another
    study's package does not. (Every file of ``data/`` is in the key: an edit to a word set
    the evaluation does not read recomputes it too.)

And a running process (a Jupyter kernel) keeps the key of the code it read first, with a warning
once a source file is edited under it; a new process keys by the edited code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Run (``run``) or only look up (``check``) the cached step of each case named on the command
#: line; print ``{case: whether it was in the cache before}``. The module paths can be set
#: through the environment so that the same steps run on an older layout of the package.
DRIVER = r'''
import importlib
import json
import os
import sys

PINNED = os.environ.get("STALE_PINNED", "nlpbias.studies.pinned_auc.study")
EVALUATION = os.environ.get("STALE_EVALUATION", "nlpbias.studies.intrinsic_extrinsic.study")
TEXTS = ["you are nice", "you idiot", "hello friend", "stupid idiot"]
SPEC = {"corpus": "glove-6b-50d", "algorithm": "glove", "method": "original", "families": ["coref"]}
OPTIONS = {"corpus_options": {}, "seeds": [0], "task_options": {"coref": {"source": "standin"}},
           "rnsb_runs": 2}


def step(case):
    """The cached function, its arguments, and the module whose evaluation is stubbed."""
    if case == "fit":
        study = importlib.import_module(PINNED)
        args = (TEXTS, [False, True, False, True], {"e": ["nice idiot"]}, "linear", {}, None, 0)
        return study._fit_and_score, args, {}, None
    study = importlib.import_module(EVALUATION)
    # the old layout passed a hand-kept code fingerprint; the closure rule needs none
    fingerprint = (study._code_fingerprint(),) if hasattr(study, "_code_fingerprint") else ()
    if case == "evaluate_stub":
        return study._evaluate_cached, fingerprint, {"spec": {**SPEC, "stub": 1}, **OPTIONS}, study
    return study._evaluate_cached, fingerprint, {"spec": SPEC, **OPTIONS}, None


action, cases = sys.argv[1], sys.argv[2:]
out = {}
for case in cases:
    fn, args, kwargs, stubbed = step(case)
    out[case] = bool(fn.check_call_in_cache(*args, **kwargs))
    if action == "run":
        real = stubbed.evaluate_embedding if stubbed else None
        if stubbed:
            stubbed.evaluate_embedding = lambda **kw: {"stub": True}
        try:
            fn(*args, **kwargs)
        finally:
            if stubbed:
                stubbed.evaluate_embedding = real
print(json.dumps(out))
'''


def copy_tree(source: Path, target: Path) -> Path:
    """Copy ``src/``, ``data/`` and ``pyproject.toml`` of a checkout to ``target``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    shutil.copytree(source / "src", target / "src", ignore=ignore)
    shutil.copytree(source / "data", target / "data", ignore=ignore)
    shutil.copy2(source / "pyproject.toml", target / "pyproject.toml")
    (target / "driver.py").write_text(DRIVER)
    return target


def run_driver(tree: Path, action: str, *cases: str, env: dict | None = None) -> dict:
    """Run the driver in a fresh process on the copy; return what it printed."""
    environ = {k: v for k, v in os.environ.items() if k != "NLPBIAS_CACHE_LOG"}
    environ.update(
        {
            "PYTHONPATH": str(tree / "src"),
            "NLPBIAS_CACHE": str(tree / "cache"),
            "TQDM_DISABLE": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            **(env or {}),
        }
    )
    proc = subprocess.run(
        [sys.executable, str(tree / "driver.py"), action, *cases],
        capture_output=True,
        text=True,
        env=environ,
        cwd=tree,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def edit(tree: Path, rel: str) -> None:
    """Append a comment: the file's bytes change, its meaning does not."""
    path = tree / rel
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited by test_cache_stale\n")


@pytest.fixture
def tree(tmp_path) -> Path:
    return copy_tree(ROOT, tmp_path / "tree")


OTHER_STUDY = "src/nlpbias/studies/logan/estimator.py"


def test_a_classifier_edit_recomputes_fit_and_score(tree):
    assert run_driver(tree, "run", "fit") == {"fit": False}
    edit(tree, OTHER_STUDY)
    assert run_driver(tree, "check", "fit") == {"fit": True}  # outside the closure
    edit(tree, "src/nlpbias/models/classifiers.py")
    assert run_driver(tree, "run", "fit") == {"fit": False}  # recomputed
    assert run_driver(tree, "check", "fit") == {"fit": True}
    edit(tree, "src/nlpbias/models/linear.py")  # study -> classifiers -> linear
    assert run_driver(tree, "check", "fit") == {"fit": False}


def test_b_text_edit_recomputes_the_evaluation(tree):
    assert run_driver(tree, "run", "evaluate_stub") == {"evaluate_stub": False}
    edit(tree, OTHER_STUDY)
    assert run_driver(tree, "check", "evaluate_stub") == {"evaluate_stub": True}
    edit(tree, "src/nlpbias/core/text.py")
    assert run_driver(tree, "check", "evaluate_stub") == {"evaluate_stub": False}


def test_c_wordset_edit_recomputes_the_evaluation(tree):
    assert run_driver(tree, "run", "evaluate") == {"evaluate": False}
    edit(tree, OTHER_STUDY)
    assert run_driver(tree, "check", "evaluate") == {"evaluate": True}
    edit(tree, "data/wordsets/kato_weat6.yaml")
    assert run_driver(tree, "run", "evaluate") == {"evaluate": False}  # recomputed
    assert run_driver(tree, "check", "evaluate") == {"evaluate": True}


JUPYTER = """
import sys
from pathlib import Path

import nlpbias.models.linear
from nlpbias.core.cache import code_digest

before = code_digest("nlpbias.studies.pinned_auc.study")
path = Path(nlpbias.models.linear.__file__)
path.write_text(path.read_text() + "# edited while imported\\n")
print(before == code_digest("nlpbias.studies.pinned_auc.study"), before)  # warns
"""


def test_a_running_process_keeps_the_digest_of_the_code_it_imported(tree):
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    ran = subprocess.run(
        [sys.executable, "-c", JUPYTER], capture_output=True, text=True, env=env, check=True
    )
    out = ran.stdout.split()
    assert out[0] == "True"  # the kernel runs the old code: it keeps the old code's key
    assert "CacheWarning" in ran.stderr and "linear.py changed" in ran.stderr
    assert "restart the kernel" in ran.stderr
    fresh = subprocess.run(
        [sys.executable, "-c", JUPYTER], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    assert fresh[1] != out[1]  # a new process runs, and keys, the edited code
