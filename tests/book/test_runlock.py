"""One run of a chapter at a time: the lock file, its refusal line and the take-over of a stale
lock."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from nlpbias.book.runlock import LockError, chapter_lock


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_the_lock_holds_the_pid_while_the_chapter_runs_and_goes_after(tmp_path: Path) -> None:
    output = tmp_path / "data.ipynb"
    with chapter_lock(output, "data", "demo") as lock:
        assert lock == tmp_path / "data.lock"
        holder = json.loads(lock.read_text())
        assert holder["pid"] == os.getpid() and holder["profile"] == "demo"
        with pytest.raises(LockError) as err:  # a second run of the same chapter
            with chapter_lock(output, "data", "smoke"):
                pass
        msg = str(err.value)
        assert msg.startswith(f"study 'data' is already running into {tmp_path}: process ")
        assert f"process {os.getpid()} (profile demo, started " in msg and "\n" not in msg
    assert not lock.exists()
    with pytest.raises(RuntimeError), chapter_lock(output, "data", "demo"):
        raise RuntimeError("the run failed")
    assert not lock.exists()  # released on failure too


def test_a_stale_lock_of_a_dead_process_is_taken_over(tmp_path: Path, caplog) -> None:
    lock = tmp_path / "data.lock"
    pid = _dead_pid()
    lock.write_text(json.dumps({"pid": pid, "host": socket.gethostname(), "profile": "demo"}))
    with caplog.at_level(logging.WARNING), chapter_lock(tmp_path / "data.ipynb", "data", "demo"):
        assert json.loads(lock.read_text())["pid"] == os.getpid()
    assert f"process {pid} no longer runs" in caplog.text
    assert not lock.exists()


def test_a_lock_from_another_host_or_being_written_counts_as_held(tmp_path: Path) -> None:
    lock = tmp_path / "data.lock"
    lock.write_text(json.dumps({"pid": _dead_pid(), "host": "elsewhere", "profile": "paper"}))
    with pytest.raises(LockError, match="profile paper"):
        with chapter_lock(tmp_path / "data.ipynb", "data", "demo"):
            pass
    lock.write_text("")  # just created by another run, not written yet
    with pytest.raises(LockError, match=r"process \? \(profile \?"):
        with chapter_lock(tmp_path / "data.ipynb", "data", "demo"):
            pass
    os.utime(lock, (1, 1))  # an unreadable lock from long ago is stale
    with chapter_lock(tmp_path / "data.ipynb", "data", "demo"):
        pass
