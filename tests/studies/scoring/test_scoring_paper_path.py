"""The scoring chapter's ``paper`` branch end to end on a slice of the real data home.

``smoke`` and ``demo`` score a synthetic person and train the stand-in on Wikipedia summaries
only; ``paper`` reads Dong's Trump and Clinton corpora (her train/validation files), adds
Gutenberg paragraphs to the stand-in's corpus, has no planted person and compares the people's
rows with the paper. This test runs the chapter's notebook on ``paper`` with the published
stand-in recipe shortened to two steps, 100 training posts per person, two fine-tuning steps and
small resampling counts, so a bug in the real-data branch shows here and not only in the hour-long
``paper`` build. Skipped without the data home.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from nlpbias.book import runner
from nlpbias.data.corpora import load_personal_corpus, load_wiki_summaries

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow  # 24 min measured on 2 cores shared by a load of about 15


def test_paper_branch_on_a_slice_of_the_data_home(use_data_home, tmp_path, monkeypatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("NLPBIAS_CACHE", str(cache))  # trains, in a fresh cache
    project = tmp_path / "project"
    shutil.copytree(ROOT / "notebooks", project / "notebooks")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(ROOT / name, project / name)
    paper = runner.load_config(ROOT)["profiles"]["paper"]["scoring"]
    assert paper["people"] == ["Trump", "Clinton"] and paper["planted"] is None
    short = {"steps": 2, "head_steps": 1, "batch_size": 4, "max_length": 32, "warmup_steps": 1,
             "n_eval_blocks": 2}  # fmt: skip
    overrides = {
        "standin": {**paper["standin"], **short},
        "gutenberg_paragraphs": 50,
        "max_posts": 100,
        "fine_tune": {**paper["fine_tune"], "max_steps": 2, "batch_size": 8, "max_length": 32},
        "fine_tune_seeds": [0, 1],
        "n_bootstrap": 20,
        "n_permutations": 19,
    }
    record = runner.run("scoring", "paper", overrides=overrides, root=project)
    assert record.status == "ok"  # every cell ran, and the headline rows were accepted
    nb = nbformat.read(record.output, as_version=4)
    assert not [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]

    models = cache / "scoring" / "models"
    (card,) = [json.loads(p.read_text()) for p in models.glob("standin-*/quality_card.json")]
    assert card["complete"] and card["config"] == {**paper["standin"], **short}
    assert card["data"]["n_texts"] == len(load_wiki_summaries()) + 50  # Gutenberg paragraphs read
    runs = [json.loads(p.read_text())["result"] for p in models.glob("finetuned-*/fine_tune.json")]
    assert len(runs) == 4  # 2 people x 2 seeds; the chapter's single run is seed 0's
    val_sizes = {
        len(load_personal_corpus(s, split="val", drop_empty=True)) for s in ("trump", "hillary")
    }
    assert {r["n_val_texts"] for r in runs} == val_sizes  # Dong's own validation files
    assert {r["n_train_texts"] for r in runs} == {100}
    shown = "\n".join(
        str(o.get("data", {}).get("text/plain", "")) for c in nb.cells for o in c.get("outputs", [])
    )
    assert "Trump" in shown and "Clinton" in shown and "planted" not in shown
