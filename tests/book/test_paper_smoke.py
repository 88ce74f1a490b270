"""The ``paper`` path on a small slice of the data home: every chapter's real-data branch.

The ``paper-smoke`` profile of notebooks/profiles.yml makes the ``paper`` profile's data choices
(the datasets of the data home, the paper's classifiers and corpora) at smoke sizes: a few
hundred to a few thousand rows, a few steps. A bug in a chapter's real-data branch (a
``load_*_data(use_data_home=True)``, a corpus of the data home, a real-data table or figure) is
then found by ``make test`` instead of by an hour-long ``paper`` build. The numbers mean nothing
at these sizes; the test asks only that every chapter runs end to end, shows its figures and
tables, and read the real datasets.

Skipped when the data home is absent: ``$NLPBIAS_DATA``, or ``../shared/data`` beside the
checkout (CI has it: ``.ci/run`` sets ``NLPBIAS_DATA``). Each chapter runs in a copy of the
book's sources (the checkout's ``_build`` is untouched), offline, on the session's temporary
cache (``tests/conftest.py``), so nothing is served from an earlier run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from nlpbias.book import runner

ROOT = Path(__file__).resolve().parents[2]
PROFILE = "paper-smoke"
pytestmark = pytest.mark.slow

#: Per chapter, text that only its real-data branch prints (a dataset, a corpus, a group).
REAL_DATA_SIGNS = {
    "data": ["reads the data home", "Davidson 2017 tweets", "Wiki Talk test"],
    "intrinsic": ["gutenberg", "share of women in the occupation"],
    "intrinsic_extrinsic": ["gutenberg", "tweets", "hsd_race"],
    "perturbation": [],  # its documents are Gutenberg blocks: see DATA_CHOICES (source)
    "pinned_auc": ["wiki talk"],
    "logan": ["AA-aligned", "white-aligned"],
    "scoring": ["This run has no planted person", "#TrumpTowers"],  # a Trump tweet
    "scorecard": [],
}


#: Parameters that choose data, classifiers or corpora rather than sizes: paper-smoke takes the
#: paper profile's value wherever the paper profile sets one.
DATA_CHOICES = (
    "use_data_home", "base_embedding", "train_corpora", "families", "corpora", "source",
    "parts", "block_tokens", "model", "embedding", "classifier", "people", "planted",
)  # fmt: skip


def _profile(name: str, chapter: str) -> dict:
    return dict((runner.load_config(ROOT)["profiles"][name] or {}).get(chapter) or {})


@pytest.mark.parametrize("chapter", runner.chapters(ROOT))
def test_paper_smoke_makes_the_paper_profiles_data_choices(chapter: str) -> None:
    paper, smoke = _profile("paper", chapter), _profile(PROFILE, chapter)
    differ = {
        key: (smoke.get(key, "<cell value>"), paper[key])
        for key in DATA_CHOICES
        if key in paper and smoke.get(key, "<cell value>") != paper[key]
    }
    assert not differ, f"{chapter}: {PROFILE} differs from paper (key: (it, paper)): {differ}"
    sources = {task: opts.get("source") for task, opts in paper.get("task_options", {}).items()}
    assert sources == {
        task: opts.get("source") for task, opts in smoke.get("task_options", {}).items()
    }, f"{chapter}: the tasks' data sources differ from the paper profile's"


@pytest.fixture(scope="module")
def paper_project(tmp_path_factory: pytest.TempPathFactory, data_home: Path) -> Path:
    dest = tmp_path_factory.mktemp("paper_smoke")
    shutil.copytree(ROOT / "book", dest / "book")
    shutil.copytree(ROOT / "notebooks", dest / "notebooks")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(ROOT / name, dest / name)
    return dest


def _shown(nb: nbformat.NotebookNode) -> str:
    """Every text a reader sees in the outputs (streams, plain text, HTML, Markdown)."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            for mime in ("text/plain", "text/html", "text/markdown"):
                value = out.get("data", {}).get(mime, "")
                parts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(parts)


def test_every_chapter_has_its_signs() -> None:
    assert list(REAL_DATA_SIGNS) == runner.chapters(ROOT)


@pytest.mark.parametrize("chapter", runner.chapters(ROOT))  # the studies, then the scorecard
def test_chapter_runs_on_a_slice_of_the_real_data(
    paper_project: Path, data_home: Path, chapter: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLPBIAS_DATA", str(data_home))
    monkeypatch.setenv("NLPBIAS_OFFLINE", "1")  # a dataset missing from the data home fails
    record = runner.run(chapter, PROFILE, root=paper_project)
    nb = nbformat.read(record.output, as_version=4)
    assert nb.metadata["nlpbias"]["status"] == "ok"
    assert nb.metadata["nlpbias"]["profile"] == PROFILE
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "no figure in the notebook"
    params = record.parameters
    if "use_data_home" in params:
        assert params["use_data_home"] is True, f"{chapter}: {PROFILE} must read the data home"
    shown = _shown(nb)
    missing = [sign for sign in REAL_DATA_SIGNS[chapter] if sign not in shown]
    assert not missing, f"{chapter} on {PROFILE} does not show {missing}: not the real data?"
    print(f"{chapter}: {record.duration_s:.1f} s; parameters {json.dumps(params)}")
