"""Build times in the prose come from the recorded measurement (nlpbias.book.timings)."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

from nlpbias.book import timings

ROOT = Path(__file__).resolve().parents[2]


def _measurement(**kw) -> dict:
    base = {
        "profile": "paper",
        "date": "2026-11-27",
        "cpus": 2,
        "machine_state": "idle",
        "machine": {"cpu_model": "Xeon", "isa": ["avx2"]},
        "seconds": {"data": 12.0, "scoring": 1800.0, "html": 18.0},
        "total": 1830.0,
        "standin": {"training_seconds": 900.0, "top1": 0.2712, "top5": 0.45},
    }
    return {**base, **kw}


def _project(tmp_path: Path, measurement: dict | None, pages: dict[str, str]) -> Path:
    for name in timings.DOCS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(pages.get(name, "no region here\n"), encoding="utf-8")
    if measurement is not None:
        path = timings.measurement_path(tmp_path, measurement["profile"])
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(measurement), encoding="utf-8")
    return tmp_path


def test_doctests() -> None:
    failed, attempted = doctest.testmod(timings, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted > 0 and failed == 0


def test_the_published_pages_quote_the_recorded_measurement() -> None:
    """README, the instructor's guide and the scale page agree with benchmarks/measured/."""
    assert timings.sync(ROOT, check=True) == []
    for name in timings.DOCS:
        assert "<!-- paper_build:paper" in (ROOT / name).read_text(encoding="utf-8"), name
    # the demo book's times too: README's make-book cell, the instructor's per-chapter table
    assert "<!-- paper_build:demo -->" in (ROOT / "README.md").read_text(encoding="utf-8")
    guide = (ROOT / "book/instructor.md").read_text(encoding="utf-8")
    for step in [*timings.load(ROOT, "demo")["seconds"], "total"]:
        assert f"<!-- paper_build:demo:{step} -->" in guide, step


def test_a_step_region_quotes_that_step() -> None:
    m = _measurement()
    assert timings.render(m, "scoring") == "30.0 min"
    assert timings.render(m, "html") == "0.3 min"
    with pytest.raises(ValueError, match=r"or a step of the measurement \(data, scoring, html\)"):
        timings.render(m, "pinned_auc")


def test_a_stale_region_is_reported_then_rewritten(tmp_path) -> None:
    page = "Before <!-- paper_build:paper -->**57.7 min** (old)<!-- /paper_build:paper --> after\n"
    total = "The book takes <!-- paper_build:paper:total -->an hour<!-- /paper_build:paper -->.\n"
    root = _project(tmp_path, _measurement(), {"README.md": page, "book/scale.md": total})
    assert timings.sync(root, check=True) == ["README.md: paper", "book/scale.md: paper:total"]
    assert (root / "README.md").read_text() == page  # check writes nothing
    assert timings.sync(root) == ["README.md: paper", "book/scale.md: paper:total"]
    assert timings.sync(root, check=True) == []
    readme = (root / "README.md").read_text()
    assert readme.startswith("Before <!-- paper_build:paper -->**30.5 min** from an empty cache")
    assert "data 0.2 min, scoring 30.0 min (of which the stand-in's training 15.0 min" in readme
    assert "held-out top-1 0.271), HTML 0.3 min<!-- /paper_build:paper --> after\n" in readme
    assert "2026-11-27, 2 cores, idle; Xeon, avx2, no AMX)" in readme
    scale = (root / "book/scale.md").read_text()
    region = "<!-- paper_build:paper:total -->30.5 min (measured 2026-11-27 on 2 cores)<"
    assert f"takes {region}" in scale


def test_a_missing_or_partial_measurement_names_the_command(tmp_path) -> None:
    page = "Takes <!-- paper_build:demo -->x<!-- /paper_build:demo -->"
    root = _project(tmp_path, None, {"README.md": page})
    with pytest.raises(FileNotFoundError, match=r"paper_build.py --profile demo --record"):
        timings.sync(root, check=True)
    partial = {k: v for k, v in _measurement(profile="demo").items() if k != "date"}
    root = _project(tmp_path / "p", partial, {"README.md": page})
    with pytest.raises(ValueError, match=r"lacks date; record it again"):
        timings.sync(root, check=True)


def test_a_region_that_begins_a_line_is_refused(tmp_path) -> None:
    """MyST reads a line that starts with ``<!--`` as raw HTML: the region would print as is."""
    page = "The book takes\n<!-- paper_build:paper -->x<!-- /paper_build:paper -->.\n"
    root = _project(tmp_path, _measurement(), {"book/scale.md": page})
    with pytest.raises(ValueError, match=r"book/scale.md:2: a build-time region begins the line"):
        timings.sync(root, check=True)


def test_an_unknown_style_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown region style 'minutes'"):
        timings.render(_measurement(), "minutes")
