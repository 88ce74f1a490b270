"""The runner's log read back: what ``nlpbias run`` and ``nlpbias book`` print while notebooks run.

One line as each chapter starts and one as it ends: its name, the profile, the time elapsed
since the first chapter started, and the time the last run of that chapter on the same profile
took, read from ``_build/runs.jsonl`` (:func:`last_durations`); the start line adds an estimate
of the time left when every remaining chapter has run before.

Examples
--------
>>> start_line("data", "demo", 1, 7, elapsed=0.0, last=6.1, left=420.0)
'[1/7] data (demo): started at 0:00; last demo run 6.1 s; about 7 min 0 s for all that is left'
>>> end_line("data", "demo", 1, 7, status="ok", seconds=5.8, elapsed=5.8, last=6.1)
'[1/7] data (demo): ok in 5.8 s, at 0:06; last demo run 6.1 s'
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

__all__ = [
    "ChapterLines",
    "busy_note",
    "clock",
    "duration",
    "end_line",
    "last_durations",
    "start_line",
    "time_left",
]


def duration(seconds: float) -> str:
    """A length of time in words: ``5.8 s``, ``1 min 34 s``, ``1 h 02 min``.

    Examples
    --------
    >>> duration(5.84), duration(94), duration(3725)
    ('5.8 s', '1 min 34 s', '1 h 02 min')
    """
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        minutes, secs = divmod(int(round(seconds)), 60)
        return f"{minutes} min {secs} s"
    hours, minutes = divmod(int(round(seconds / 60)), 60)
    return f"{hours} h {minutes:02d} min"


def clock(seconds: float) -> str:
    """Elapsed time as a clock, to the nearest second (as :func:`duration`): ``0:06``, ``12:34``,
    ``1:02:03``."""
    secs = int(round(seconds))
    hours, rest = divmod(secs, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def last_durations(log: str | Path, profile: str) -> dict[str, float]:
    """Seconds the last successful run of each study on ``profile`` took, from ``runs.jsonl``.

    Parameters
    ----------
    log : str or Path
        The runner's log, one JSON record per line (``study``, ``profile``, ``status``,
        ``duration_s``); a missing file is an empty history and unreadable lines are skipped.
    profile : str
        Only runs on this profile count (a smoke run says nothing about a paper run).

    Returns
    -------
    dict
        Study -> seconds of its latest ``ok`` run on ``profile`` (studies never run are absent).

    Examples
    --------
    >>> last_durations("/nonexistent/runs.jsonl", "demo")
    {}
    """
    try:
        lines = Path(log).read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return {}
    out: dict[str, float] = {}
    for line in lines:
        try:
            rec = json.loads(line)
            ok = rec["profile"] == profile and rec["status"] == "ok"
            seconds = float(rec["duration_s"])
            study = str(rec["study"])
        except (ValueError, KeyError, TypeError):
            continue
        if ok and math.isfinite(seconds):
            out[study] = seconds
    return out


def time_left(studies: Iterable[str], last: dict[str, float]) -> float | None:
    """The sum of the last run times of ``studies``; None when one has never run."""
    total = 0.0
    for study in studies:
        if study not in last:
            return None
        total += last[study]
    return total


def busy_note(busy_percent: float, cpus: int) -> str | None:
    """The line printed before the chapters run when other programs keep the CPUs busy, or None.

    ``busy_percent`` is the share of all CPUs' time busy over a short interval while this
    process waits (:func:`psutil.cpu_percent`), so it is what other programs use. Half a core
    or more is reported: beside one busy process a two-thread masked-LM step took about 3x as
    long as alone, a one-thread step about 1.0x (2026-11-28, 2-core AMD EPYC;
    ``benchmarks/mlm_step.py`` measures it on any machine).

    Examples
    --------
    >>> busy_note(50.0, 2)  # doctest: +ELLIPSIS
    'other programs keep 1.0 of the 2 CPUs busy: chapters that train with two threads run up ...'
    >>> busy_note(10.0, 2) is None
    True
    """
    cores = busy_percent / 100 * cpus
    if cores < 0.5:
        return None
    return (
        f"other programs keep {cores:.1f} of the {cpus} CPUs busy: chapters that train with two "
        "threads run up to 3x slower beside them (benchmarks/mlm_step.py measures it); close "
        "them, or run the chapters with `nlpbias run STUDY --threads 1`"
    )


def _last(profile: str, last: float | None) -> str:
    return f"last {profile} run {duration(last)}" if last is not None else f"no {profile} run yet"


def start_line(
    study: str,
    profile: str,
    index: int,
    total: int,
    *,
    elapsed: float,
    last: float | None,
    left: float | None = None,
) -> str:
    """The line printed as a chapter starts: which, on what profile, when, how long it took last.

    ``left`` (the last run times of this and the following chapters) adds an estimate of the
    time still to go; None leaves it out.
    """
    line = f"[{index}/{total}] {study} ({profile}): started at {clock(elapsed)}; "
    line += _last(profile, last)
    if left is not None and total > 1:
        line += f"; about {duration(left)} for all that is left"
    return line


def end_line(
    study: str,
    profile: str,
    index: int,
    total: int,
    *,
    status: str,
    seconds: float,
    elapsed: float,
    last: float | None,
) -> str:
    """The line printed as a chapter ends: its status, how long it took and the last run's time."""
    verb = f"ok in {duration(seconds)}" if status == "ok" else f"FAILED after {duration(seconds)}"
    return f"[{index}/{total}] {study} ({profile}): {verb}, at {clock(elapsed)}; " + _last(
        profile, last
    )


class ChapterLines:
    """The start and end lines of a sequence of chapters, sent to ``report`` (e.g. ``print``).

    Parameters
    ----------
    names : sequence of str
        The chapters, in the order they run.
    profile : str
    log : str or Path
        ``runs.jsonl``, read once here (before this sequence adds to it).
    report : callable or None
        Receives each line; None prints nothing.

    Examples
    --------
    >>> lines = ChapterLines(["data"], "demo", "/nonexistent/runs.jsonl", print)
    >>> with lines.chapter("data"):  # doctest: +ELLIPSIS
    ...     pass
    [1/1] data (demo): started at 0:00; no demo run yet
    [1/1] data (demo): ok in 0.0 s, at 0:00; no demo run yet
    """

    def __init__(
        self,
        names: Sequence[str],
        profile: str,
        log: str | Path,
        report: Callable[[str], None] | None,
    ) -> None:
        self.names = list(names)
        self.profile = profile
        self.last = last_durations(log, profile)
        self.report = report
        self.t0 = time.perf_counter()

    @contextlib.contextmanager
    def chapter(self, name: str, *, estimate: bool = True) -> Iterator[None]:
        """Report the start of ``name``, run the block, report its end (``FAILED`` if it raised).

        ``estimate=False`` leaves out the time left, which sums the chapters from ``name`` on in
        book order: wrong for chapters that run side by side, out of that order.
        """
        i = self.names.index(name) + 1
        total, last = len(self.names), self.last.get(name)
        started = time.perf_counter()
        left = time_left(self.names[i - 1 :], self.last) if estimate else None
        elapsed = started - self.t0
        self._say(start_line(name, self.profile, i, total, elapsed=elapsed, last=last, left=left))
        status = "failed"
        try:
            yield
            status = "ok"
        finally:
            now = time.perf_counter()
            took, elapsed = now - started, now - self.t0
            line = end_line(
                name,
                self.profile,
                i,
                total,
                status=status,
                seconds=took,
                elapsed=elapsed,
                last=last,
            )
            self._say(line)

    def _say(self, line: str) -> None:
        if self.report is not None:
            self.report(line)
