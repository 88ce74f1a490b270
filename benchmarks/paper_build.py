"""Time the published book from an empty cache, chapter by chapter, beside the previous figures.

Runs what ``make book PROFILE=paper`` runs -- every notebook of ``notebooks/profiles.yml`` in book
order with ``nlpbias run <chapter> --profile paper`` (a study marked ``beside: HOST`` at the same
time as HOST, both ``--threads 1``, as ``nlpbias run all`` does), then the HTML build -- in a
fresh, empty ``$NLPBIAS_CACHE`` (models included), and prints each step's wall time beside the
figure in ``benchmarks/paper_build_previous.json`` (the times the README quoted before issue 19)
and the ratio. The scoring chapter's masked-LM stand-in is reported on its own line too (its
training seconds and held-out top-1 from its quality card), since it is most of that chapter.

    NLPBIAS_DATA=../shared/data .venv/bin/python benchmarks/paper_build.py
    .venv/bin/python benchmarks/paper_build.py --profile demo --previous none   # quicker
    .venv/bin/python benchmarks/paper_build.py --cache /tmp/c --keep-cache       # inspect it after

The executed notebooks land in ``_build/notebooks`` (as ``make book`` leaves them) and the times in
``_build/paper_build-<profile>.json``, with the date, the CPU and whether the machine was idle at
the start, the CPU seconds of each step (user + system, the step's workers included: CPU / wall is
how many of the cores a step kept busy) and when each step started; the total is the build's wall
time, which is less than the sum of the steps where some ran side by side. ``--record`` also copies
them to ``benchmarks/measured/`` (commit it) and rewrites the times in README.md and the book's
pages from them (``nlpbias.book.timings``); a test fails when those pages and the recorded
measurement disagree. Nothing here is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PREVIOUS = Path(__file__).with_name("paper_build_previous.json")


def _chapters(profile: str) -> list[str]:
    from nlpbias.book.runner import chapters

    del profile  # every profile runs the same notebooks
    return chapters(ROOT)


def _nlpbias(*args: str, env: dict[str, str]) -> tuple[float, float]:
    """Run ``nlpbias ARGS``; its wall seconds, and the CPU seconds (user + system) of it and
    every process it started (kernel, workers): CPU / wall is how many cores it kept busy.
    Safe beside another call in another thread: the CPU is that of this process tree alone."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "nlpbias.book.cli", *args], cwd=ROOT, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, proc.args)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def _standin_card(cache: Path) -> dict | None:
    cards = sorted(cache.glob("scoring/models/standin-*/quality_card.json"))
    return json.loads(cards[-1].read_text()) if cards else None


def _minutes(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds / 60:6.1f}"


def _machine_state() -> str:
    """Whether the CPUs were idle just before the build started (psutil, over 2 s)."""
    import psutil

    busy = psutil.cpu_percent(interval=2.0)
    state = "idle" if busy < 10 else "busy"
    return f"{state} at the start ({busy:.0f} % of the CPU time busy over 2 s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="paper")
    parser.add_argument("--cache", type=Path, help="an empty folder (default: a new temp dir)")
    parser.add_argument("--keep-cache", action="store_true", help="keep the cache afterwards")
    parser.add_argument("--previous", default=str(PREVIOUS), help="previous times (JSON) or none")
    parser.add_argument("--only", nargs="+", help="time these chapters only (no HTML build)")
    parser.add_argument(
        "--record",
        action="store_true",
        help="also copy the times to benchmarks/measured/ and rewrite the docs' marked regions",
    )
    args = parser.parse_args()
    if args.record and args.only:
        parser.error("--record needs the whole book (the docs quote its total); drop --only")

    cache = args.cache or Path(tempfile.mkdtemp(prefix="nlpbias-empty-cache-"))
    cache.mkdir(parents=True, exist_ok=True)
    if any(cache.iterdir()):
        parser.error(f"{cache} is not empty; give an empty folder (the point is an empty cache)")
    offline = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env = {**os.environ, "NLPBIAS_CACHE": str(cache), **offline}
    previous = {} if args.previous == "none" else json.loads(Path(args.previous).read_text())
    before = previous.get(args.profile, {}).get("seconds", {})

    from nlpbias.book.runner import SIDE_BY_SIDE_THREADS, git_commit, schedule

    steps = args.only or _chapters(args.profile)
    # `make book`'s order: a study marked `beside: HOST` in profiles.yml runs at the same time
    # as HOST, each with one native thread (nlpbias.book.runner.run_side_by_side)
    order = schedule(ROOT, steps)
    companions = {c: group[0] for group in order for c in group[1:]}
    times: dict[str, float] = {}
    cpu: dict[str, float] = {}
    started: dict[str, float] = {}
    from nlpbias.core.repro import machine
    from nlpbias.models.encoders import bf16_auto_report

    state = _machine_state()
    bf16_auto = bf16_auto_report()  # timed here, on the idle machine, as each chapter does
    date = time.strftime("%Y-%m-%d", time.gmtime())
    print(state, flush=True)
    print(f"profile {args.profile}, empty cache {cache}, {os.cpu_count()} CPUs", flush=True)
    one = ("--threads", str(SIDE_BY_SIDE_THREADS))
    t0 = time.perf_counter()

    def chapter(name: str, *threads: str) -> None:
        started[name] = time.perf_counter() - t0
        times[name], cpu[name] = _nlpbias("run", name, "--profile", args.profile, *threads,
                                          env=env)  # fmt: skip
        beside_note = f" (beside {companions[name]})" if name in companions else ""
        print(f"  {name:<22}{_minutes(times[name])} min, "
              f"{cpu[name] / times[name]:.2f} cores busy{beside_note}", flush=True)  # fmt: skip

    try:
        for group in order:
            if len(group) == 1:
                chapter(group[0])
                continue
            with ThreadPoolExecutor(max_workers=2) as pool:
                lanes = [
                    pool.submit(chapter, group[0], *one),
                    pool.submit(lambda rest=group[1:]: [chapter(c, *one) for c in rest]),
                ]
                for lane in lanes:
                    lane.result()  # fmt: skip
        if not args.only:
            html = ("book", "--profile", args.profile, "--no-run", "--strict")
            started["html"] = time.perf_counter() - t0
            times["html"], cpu["html"] = _nlpbias(*html, env=env)
        wall = time.perf_counter() - t0
        card = _standin_card(cache)
    finally:
        if not args.keep_cache:
            shutil.rmtree(cache, ignore_errors=True)

    times = {step: times[step] for step in [*steps, "html"] if step in times}  # book order
    total = wall  # chapters side by side overlap: the total is the build's own wall time
    if args.only:  # compare like with like: the previous figures of the same chapters
        before = {**before, "total": sum(before.get(step, 0) for step in times) or None}
    cpu["total"] = sum(cpu.values())
    print(f"\n{'step':<24}{'now (min)':>10}{'before (min)':>14}{'ratio':>8}{'cores busy':>12}")
    for step, seconds in [*times.items(), ("total", total)]:
        old = before.get(step)
        ratio = f"{old / seconds:7.1f}x" if old else ""
        busy = f"{cpu[step] / seconds:12.2f}" if seconds else ""
        print(f"{step:<24}{_minutes(seconds):>10}{_minutes(old):>14}{ratio:>8}{busy}")
    result = {
        "profile": args.profile,
        "date": date,
        "cpus": os.cpu_count(),
        "machine_state": state,
        "machine": {
            **{k: machine()[k] for k in ("cpu_model", "cpu_family_model_stepping", "isa")},
            "bf16_auto": bf16_auto,
        },
        "git_commit": git_commit(ROOT),
        "seconds": times,
        "started": {step: round(started[step], 1) for step in times},
        "beside": companions,
        "total": total,
        "cpu_seconds": cpu,
    }
    if card is not None:
        result["standin"] = {
            "training_seconds": card["training_seconds"],
            "top1": card["held_out"]["top1"],
            "top5": card["held_out"]["top5"],
        }
        old = previous.get(args.profile, {}).get("standin", {})
        print(
            f"\nof which the stand-in: {card['training_seconds'] / 60:.1f} min of training "
            f"(before: {_minutes(old.get('training_seconds')).strip() or '?'} min), held-out top-1 "
            f"{card['held_out']['top1']:.3f} (before: {old.get('top1', '?')})"
        )
    out = ROOT / "_build" / f"paper_build-{args.profile}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"written {out.relative_to(ROOT)}")
    if args.record:
        from nlpbias.book import timings

        recorded = timings.measurement_path(ROOT, args.profile)
        recorded.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, recorded)
        stale = timings.sync(ROOT)
        print(f"recorded {recorded.relative_to(ROOT)}; rewrote {', '.join(stale) or 'nothing'}")


if __name__ == "__main__":
    main()
