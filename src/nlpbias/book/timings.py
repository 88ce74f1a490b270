"""Build times in the prose, written from the latest measurement so that they cannot go stale.

``benchmarks/paper_build.py`` times a book from an empty cache, chapter by chapter, and writes
``_build/paper_build-<profile>.json``; with ``--record`` it also copies that file to
``benchmarks/measured/paper_build-<profile>.json`` (committed) and calls :func:`sync`, which
rewrites every marked region of :data:`DOCS` from the recorded measurement. A region is::

    <!-- paper_build:paper -->...<!-- /paper_build:paper -->          (every chapter)
    <!-- paper_build:paper:total -->...<!-- /paper_build:paper -->    (the total and date only)
    <!-- paper_build:demo:scoring -->...<!-- /paper_build:demo -->    (one step's time only)

A step's region is what a per-chapter table cell holds (the instructor's guide's week plan); the
table's date then comes from a ``total`` region beside it.

The test suite runs ``sync(root, check=True)``: a page whose times differ from the recorded
measurement fails it, and so does a recorded measurement without its date. Prose around a region
may explain a number, but should not repeat it. A region must not begin a line: Markdown (MyST,
CommonMark) reads a line that starts with ``<!--`` as a raw HTML block and would print the
region's ``**bold**`` and backticks as they are.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = ["DOCS", "LABELS", "load", "measurement_path", "render", "sync"]

#: The pages whose marked regions :func:`sync` writes (paths from the project root).
DOCS = ("README.md", "book/instructor.md", "book/scale.md")

#: How the prose names each step of the build (a step missing here keeps its key).
LABELS = {
    "data": "data",
    "intrinsic": "intrinsic",
    "intrinsic_extrinsic": "intrinsic vs extrinsic",
    "perturbation": "perturbation",
    "pinned_auc": "pinned AUC",
    "logan": "LOGAN",
    "scoring": "scoring",
    "scorecard": "scorecard",
    "html": "HTML",
}

_REGION = re.compile(
    r"<!-- paper_build:(?P<profile>[\w-]+)(?::(?P<style>\w+))? -->"
    r"(?P<body>.*?)"
    r"<!-- /paper_build:(?P=profile) -->",
    re.DOTALL,
)
_REQUIRED = ("date", "cpus", "seconds", "total", "machine_state", "machine")


def measurement_path(root: Path, profile: str) -> Path:
    """Where the recorded (committed) measurement of ``profile`` lives."""
    return Path(root) / "benchmarks" / "measured" / f"paper_build-{profile}.json"


def load(root: Path, profile: str) -> dict[str, Any]:
    """The recorded measurement of ``profile``; a one-line error when it is missing or partial."""
    path = measurement_path(root, profile)
    if not path.is_file():
        raise FileNotFoundError(
            f"no recorded build time for profile {profile!r} ({path}); measure it with "
            f"benchmarks/paper_build.py --profile {profile} --record"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    lacking = [k for k in _REQUIRED if k not in data]
    if lacking:
        raise ValueError(
            f"{path} lacks {', '.join(lacking)}; record it again with "
            f"benchmarks/paper_build.py --profile {profile} --record"
        )
    return data


def _min(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def render(measurement: dict[str, Any], style: str | None = None) -> str:
    """The text of a region: the total with its date and machine, and (by default) each step.

    ``style`` ``"total"`` gives the total and its date only; a step's name (a key of
    ``seconds``), that step's time only.

    Examples
    --------
    >>> m = {"date": "2026-11-27", "cpus": 2, "machine_state": "idle", "total": 600.0,
    ...      "machine": {"cpu_model": "Xeon", "isa": ["avx2"]},
    ...      "seconds": {"data": 30.0, "scoring": 570.0}}
    >>> render(m, "total")
    '10.0 min (measured 2026-11-27 on 2 cores)'
    >>> render(m, "scoring")
    '9.5 min'
    >>> m["machine"]["bf16_auto"] = "bfloat16 (bfloat16 products 4.66x float32's)"
    >>> render(m).split(": data")[0]  # doctest: +NORMALIZE_WHITESPACE
    "**10.0 min** from an empty cache, models included (one run of `benchmarks/paper_build.py` on
    2026-11-27, 2 cores, idle; Xeon, avx2, no AMX; masked-LM steps in bfloat16 (bfloat16
    products 4.66x float32's))"
    >>> del m["machine"]["bf16_auto"]
    >>> render(m)  # doctest: +NORMALIZE_WHITESPACE
    '**10.0 min** from an empty cache, models included (one run of `benchmarks/paper_build.py`
    on 2026-11-27, 2 cores, idle; Xeon, avx2, no AMX): data 0.5 min, scoring 9.5 min'
    >>> m["beside"] = {"data": "scoring"}  # data ran at the same time as scoring
    >>> render(m).split("): ")[1]
    'data 0.5 min (beside scoring), scoring 9.5 min'
    """
    date, cpus = measurement["date"], measurement["cpus"]
    if style == "total":
        return f"{_min(measurement['total'])} (measured {date} on {cpus} cores)"
    if style in measurement["seconds"]:
        return _min(measurement["seconds"][style])
    if style is not None:
        raise ValueError(
            f"unknown region style {style!r}; use none, 'total' or a step of the measurement "
            f"({', '.join(measurement['seconds'])})"
        )
    machine = measurement["machine"]
    isa = machine.get("isa", [])
    flags = " ".join(isa) or "no vector flags recorded"
    if isa and "amx_tile" not in isa:
        flags += ", no AMX"  # with the probe below, what decides bf16: auto
    if "bf16_auto" in machine:  # what bf16: auto picked, and so the masked-LM steps' speed
        flags += f"; masked-LM steps in {machine['bf16_auto']}"
    steps = []
    beside = measurement.get("beside", {})  # step -> the step it ran at the same time as
    for step, seconds in measurement["seconds"].items():
        text = f"{LABELS.get(step, step)} {_min(seconds)}"
        if step in beside:
            text += f" (beside {LABELS.get(beside[step], beside[step])})"
        standin = measurement.get("standin")
        if step == "scoring" and standin:
            text += (
                f" (of which the stand-in's training {_min(standin['training_seconds'])}, "
                f"held-out top-1 {standin['top1']:.3f})"
            )
        steps.append(text)
    return (
        f"**{_min(measurement['total'])}** from an empty cache, models included (one run of "
        f"`benchmarks/paper_build.py` on {date}, {cpus} cores, {measurement['machine_state']}; "
        f"{machine.get('cpu_model', 'unknown CPU')}, {flags}): " + ", ".join(steps)
    )


def sync(root: Path, *, check: bool = False) -> list[str]:
    """Rewrite every marked region of :data:`DOCS` from the recorded measurements.

    Returns the regions that were stale (``"README.md: paper"``, ...). With ``check`` nothing is
    written: the list says what a sync would change.
    """
    root = Path(root)
    stale = []
    cache: dict[str, dict[str, Any]] = {}
    for name in DOCS:
        path = root / name
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            if line.lstrip().startswith("<!-- paper_build:"):
                raise ValueError(
                    f"{name}:{number}: a build-time region begins the line, so Markdown would "
                    "print it as raw HTML; put some of the sentence before it on that line"
                )

        def fill(match: re.Match[str], name: str = name) -> str:
            profile, style = match["profile"], match["style"]
            if profile not in cache:
                cache[profile] = load(root, profile)
            body = render(cache[profile], style)
            if body != match["body"]:
                stale.append(f"{name}: {profile}{':' + style if style else ''}")
            tag = f"{profile}:{style}" if style else profile
            return f"<!-- paper_build:{tag} -->{body}<!-- /paper_build:{profile} -->"

        new = _REGION.sub(fill, text)
        if not check and new != text:
            path.write_text(new, encoding="utf-8")
    return stale
