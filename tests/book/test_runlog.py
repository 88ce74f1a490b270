"""The lines ``nlpbias run`` / ``nlpbias book`` print per chapter, and runs.jsonl read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nlpbias.book import runlog


def test_durations_and_clocks_read_as_words() -> None:
    assert [runlog.duration(s) for s in (0.04, 5.84, 59.9, 94, 3599, 3725)] == [
        "0.0 s", "5.8 s", "59.9 s", "1 min 34 s", "59 min 59 s", "1 h 02 min"
    ]  # fmt: skip
    assert [runlog.clock(s) for s in (0, 5.9, 754, 3723)] == ["0:00", "0:06", "12:34", "1:02:03"]
    assert runlog.clock(508.6) == "8:29" and runlog.duration(508.6) == "8 min 29 s"  # agree


def test_start_and_end_lines() -> None:
    assert runlog.start_line("pinned_auc", "paper", 5, 7, elapsed=754, last=276, left=1500) == (
        "[5/7] pinned_auc (paper): started at 12:34; last paper run 4 min 36 s; "
        "about 25 min 0 s for all that is left"
    )
    assert runlog.start_line("data", "smoke", 1, 1, elapsed=0, last=None, left=None) == (
        "[1/1] data (smoke): started at 0:00; no smoke run yet"
    )
    assert (
        runlog.end_line("logan", "demo", 6, 7, status="failed", seconds=3.2, elapsed=400, last=6.0)
        == "[6/7] logan (demo): FAILED after 3.2 s, at 6:40; last demo run 6.0 s"
    )


def test_last_durations_take_the_latest_ok_run_of_the_profile(tmp_path: Path) -> None:
    log = tmp_path / "runs.jsonl"
    records = [
        {"study": "data", "profile": "demo", "status": "ok", "duration_s": 6.0},
        {"study": "data", "profile": "demo", "status": "ok", "duration_s": 7.5},
        {"study": "data", "profile": "demo", "status": "failed", "duration_s": 0.5},
        {"study": "data", "profile": "smoke", "status": "ok", "duration_s": 2.0},
        {"study": "logan", "profile": "demo", "status": "ok", "duration_s": 30.0},
        {"study": "logan", "profile": "demo", "status": "ok"},  # no duration: skipped
    ]
    lines = [json.dumps(r) for r in records] + ["{broken", "[]", ""]
    log.write_text("\n".join(lines))
    assert runlog.last_durations(log, "demo") == {"data": 7.5, "logan": 30.0}
    assert runlog.last_durations(log, "paper") == {}
    assert runlog.last_durations(tmp_path / "missing.jsonl", "demo") == {}
    assert runlog.time_left(["data", "logan"], {"data": 7.5, "logan": 30.0}) == 37.5
    assert runlog.time_left(["data", "scoring"], {"data": 7.5}) is None


def test_chapter_lines_report_start_and_end_and_failures(tmp_path: Path) -> None:
    log = tmp_path / "runs.jsonl"
    log.write_text(json.dumps({"study": "b", "profile": "demo", "status": "ok", "duration_s": 2}))
    said: list[str] = []
    lines = runlog.ChapterLines(["a", "b"], "demo", log, said.append)
    with lines.chapter("a"):
        pass
    with pytest.raises(ValueError), lines.chapter("b"):
        raise ValueError("boom")
    assert said[0] == "[1/2] a (demo): started at 0:00; no demo run yet"
    assert said[1].startswith("[1/2] a (demo): ok in 0.0 s, at 0:00")
    assert said[2].startswith("[2/2] b (demo): started at 0:00; last demo run 2.0 s; about 2.0 s")
    assert said[3].startswith("[2/2] b (demo): FAILED after 0.0 s, at 0:00; last demo run 2.0 s")
    with runlog.ChapterLines(["a"], "demo", log, None).chapter("a"):  # no report: silent
        pass


def test_busy_note_from_half_a_core_of_other_programs() -> None:
    assert runlog.busy_note(24.9, 2) is None  # 0.5 core less a little
    note = runlog.busy_note(25.0, 2)
    assert note is not None and note.startswith("other programs keep 0.5 of the 2 CPUs busy")
    assert "--threads 1" in note and "benchmarks/mlm_step.py" in note
    assert runlog.busy_note(12.5, 4).startswith("other programs keep 0.5 of the 4 CPUs")
