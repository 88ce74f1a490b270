"""Command line: ``nlpbias run``, ``book``, ``data`` and ``cache``.

Every failure ends with one line on stderr, ``nlpbias: error: ...``, and exit status 1.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from nlpbias.book import runner


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nlpbias", description="Run the nlpbias book's notebooks and manage its data."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="execute one study's notebook (or all) with papermill")
    run.add_argument("study", help="study name from notebooks/profiles.yml, or 'all'")
    run.add_argument("--profile", default="demo", help="smoke | demo | paper | full")
    run.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a parameter (value read as YAML); repeatable",
    )
    run.add_argument("--root", help="project folder (default: found from cwd)")
    run.add_argument("--output-dir", help="where executed notebooks go (default _build/notebooks)")
    run.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="native threads (OpenMP, BLAS, torch) of the notebook's kernel (default: the "
        "libraries' own; `run all` gives 1 to chapters it runs side by side)",
    )

    book = sub.add_parser("book", help="run every notebook on a profile and build the HTML book")
    book.add_argument("--profile", default="demo", help="smoke | demo | paper | full")
    book.add_argument("--no-run", action="store_true", help="reuse _build/notebooks as they are")
    book.add_argument("--strict", action="store_true", help="warnings are errors (-W -n)")
    book.add_argument("--root", help="project folder (default: found from cwd)")

    data = sub.add_parser("data", help="list, verify or fetch the datasets of the data home")
    data.add_argument("action", choices=["list", "verify", "fetch"])
    data.add_argument("names", nargs="*", help="dataset names (default: all)")
    data.add_argument("--force", action="store_true", help="fetch: download even if present")

    cache = sub.add_parser("cache", help="list or clear the on-disk cache of results, per study")
    cache_sub = cache.add_subparsers(dest="action", required=True)
    cache_sub.add_parser("list", help="entries, size and last use per study; the cache folder")
    clear = cache_sub.add_parser("clear", help="delete the cache, or one study's part of it")
    clear.add_argument("study", nargs="?", help="a study name, or 'shared' (default: everything)")
    return parser


def _say(line: str) -> None:
    """A progress line on stderr, shown at once (stdout keeps the results)."""
    print(line, file=sys.stderr, flush=True)


def _say_if_busy(interval: float = 0.3) -> None:
    """Warn (:func:`nlpbias.book.runlog.busy_note`) when other programs keep the CPUs busy; only
    at a terminal (a person who can close them), never into a log or a test's captured output."""
    if not sys.stderr.isatty():
        return
    import psutil

    from nlpbias.book.runlog import busy_note

    note = busy_note(psutil.cpu_percent(interval=interval), psutil.cpu_count() or 1)
    if note:
        _say(note)


def _cmd_run(args: argparse.Namespace) -> None:
    if args.threads is not None:
        from nlpbias.core.sweep import THREAD_VARIABLES

        if args.threads < 1:
            raise runner.RunnerError(f"--threads must be >= 1, got {args.threads}")
        os.environ.update({name: str(args.threads) for name in THREAD_VARIABLES})  # the kernel's
    if args.threads is None or args.threads > 1:  # one thread is hardly slowed by a neighbour
        _say_if_busy()
    overrides = dict(runner.parse_override(p) for p in args.param)
    records = runner.run_many(
        args.study,
        args.profile,
        overrides=overrides,
        root=args.root,
        output_dir=args.output_dir,
        progress=sys.stderr.isatty(),
        report=_say,
    )
    for rec in records:
        print(f"{rec.study}: {rec.status} in {rec.duration_s:.1f} s -> {rec.output}")


def _cmd_book(args: argparse.Namespace) -> None:
    from nlpbias.book import build as book

    if not args.no_run:
        _say_if_busy()
    index = book.build(
        args.root,
        profile=None if args.no_run else args.profile,
        strict=args.strict,
        progress=sys.stderr.isatty(),
        report=_say,
    )
    print(f"book written to {index}")


def _cmd_data(args: argparse.Namespace) -> None:
    from nlpbias import data

    names = args.names or list(data.datasets())
    if args.action == "list":
        table = data.list_datasets()
        print(table.to_string(index=False))
        home = data.data_home()
        print(f"data home: {home}")
        known = set(table["name"])
        extra = sorted(p.name for p in home.iterdir() if p.is_dir()) if home.is_dir() else []
        extra = [name for name in extra if name not in known]
        if extra:
            print(
                "in the data home but not in the registry (no loader reads them): "
                + ", ".join(extra)
            )
    elif args.action == "verify":
        table = data.verify() if not args.names else _concat(data.verify(n) for n in names)
        print(table.to_string(index=False))
        bad = table[table["status"] != "ok"]
        if len(bad):
            raise data.DataError(
                f"{len(bad)} of {len(table)} files are missing or corrupt under "
                f"{data.data_home()}: run `nlpbias data fetch` or set NLPBIAS_DATA"
            )
    else:
        for name in names:
            print(f"{name}: {data.fetch(name, force=args.force)}")


def _cmd_cache(args: argparse.Namespace) -> None:
    from nlpbias.core import cache

    if args.action == "list":
        table = cache.cache_summary()
        print(table.to_string(index=False))
        print(f"cache folder: {table.attrs['location']}")
        if table.attrs["other"]:
            print(
                f"other folders (older cache layouts): {', '.join(table.attrs['other'])}; "
                "`nlpbias cache clear` removes them"
            )
        return
    cache.clear_cache(study=args.study)
    what = f"the {args.study} part of" if args.study else "everything in"
    print(f"cleared {what} {cache.cache_dir()}")


def _concat(frames):
    import pandas as pd

    return pd.concat(list(frames), ignore_index=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``nlpbias`` console script."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    from nlpbias.core.cache import CacheError
    from nlpbias.data import DataError

    commands = {
        "run": _cmd_run,
        "book": _cmd_book,
        "data": _cmd_data,
        "cache": _cmd_cache,
    }
    try:
        commands[args.command](args)
    except (runner.RunnerError, DataError, CacheError) as exc:
        print(f"nlpbias: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
