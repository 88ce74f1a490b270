"""Regenerate the PMI candidate tables of the Davidson word sets, next to their recorded selection.

Usage (needs the data home, ``$NLPBIAS_DATA``)::

    python tools/extract_wordsets.py gender            # table on stdout
    python tools/extract_wordsets.py race --out race.csv
    python tools/extract_wordsets.py race --check      # exit 1 if the record no longer matches

The table has one row per candidate (:func:`nlpbias.data.pmi.davidson_candidates`, with the
``top_k`` and ``min_df`` of the selection file unless given) and the columns ``decision`` and
``reason`` of ``data/wordsets/selection/davidson_<family>.yaml`` (empty for candidates below the
last chosen word). The selection itself is the recorded data: to redo it, read the table, edit
the selection file and ``data/wordsets/davidson_<family>.yaml``, and run the tests
(``tests/data/test_pmi.py`` checks that every chosen word is a candidate of its set).
"""

from __future__ import annotations

import argparse
import logging
import sys

import pandas as pd

from nlpbias.data.pmi import davidson_candidates, load_selection


def candidate_table(family: str, top_k: int | None = None, min_df: int | None = None):
    """Candidates of ``family`` merged with the recorded decisions; also the selection record."""
    selection = load_selection(f"davidson_{family}")
    top_k = selection.attrs["top_k"] if top_k is None else top_k
    min_df = selection.attrs["min_df"] if min_df is None else min_df
    cand = davidson_candidates(family, top_k=top_k, min_df=min_df)
    recorded = selection[["set", "word", "decision", "reason"]]
    table = cand.merge(recorded, on=["set", "word"], how="left")
    table[["decision", "reason"]] = table[["decision", "reason"]].fillna("")
    return table, selection


def check(table: pd.DataFrame, selection: pd.DataFrame) -> list[str]:
    """Problems of the record against fresh candidates (empty when it still matches)."""
    fresh = table.set_index(["set", "word"])
    problems = []
    for row in selection.itertuples():
        key = (row.set, row.word)
        if key not in fresh.index:
            problems.append(f"{row.set}: {row.word!r} is no longer a candidate")
            continue
        got = fresh.loc[key]
        if int(got["rank"]) != row.rank or abs(float(got["pmi"]) - row.pmi) > 1e-3:
            problems.append(
                f"{row.set}: {row.word!r} recorded at rank {row.rank} (PMI {row.pmi:.4f}), "
                f"now rank {int(got['rank'])} (PMI {float(got['pmi']):.4f})"
            )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("family", choices=["gender", "race"])
    parser.add_argument("--top-k", type=int, default=None, help="default: the selection file's")
    parser.add_argument("--min-df", type=int, default=None, help="default: the selection file's")
    parser.add_argument("--out", help="write the table as CSV here instead of printing it")
    parser.add_argument("--check", action="store_true", help="compare with the selection file")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    table, selection = candidate_table(args.family, args.top_k, args.min_df)
    if args.check:
        problems = check(table, selection)
        for p in problems:
            logging.error(p)
        logging.info("%d recorded decisions checked, %d problems", len(selection), len(problems))
        return 1 if problems else 0
    if args.out:
        table.to_csv(args.out, index=False)
        logging.info("wrote %d rows to %s", len(table), args.out)
    else:
        with pd.option_context("display.max_rows", None, "display.width", 200):
            sys.stdout.write(table.drop(columns="n_texts").to_string(index=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
