"""Write (or check) the expanded modification word sets of the intrinsic-vs-extrinsic chapter.

Usage (the dialect filter needs the TwitterAAE model of the data home, ``$NLPBIAS_DATA``)::

    python tools/expand_wordsets.py --neighbours glove-6b-50d          # write the files
    python tools/expand_wordsets.py --neighbours wefe-word2vec-13k --check   # exit 1 if stale

One file per modification word set of the study (every family, both modification sets), in
``data/wordsets/expansion/<neighbours>/``, from the reviewed settings in
``data/wordsets/expansion/settings.yaml`` (:mod:`nlpbias.studies.intrinsic_extrinsic.
expanded_sets`). Each file lists per set the added words and every candidate a filter removed,
with the reason; after a change to the settings, write the files, read what changed
(``git diff``), and review it.
"""

from __future__ import annotations

import argparse
import sys

from nlpbias.studies.intrinsic_extrinsic.expanded_sets import (
    NEIGHBOURS,
    expand_query,
    expansion_path,
    write_expansion,
)
from nlpbias.studies.intrinsic_extrinsic.expansion import read_expansion
from nlpbias.studies.intrinsic_extrinsic.families import FAMILIES, MODSETS, modification_query


def study_queries() -> list:
    """Every modification word set of the study, once each."""
    queries = {}
    for family in FAMILIES.values():
        for modset in MODSETS:
            q = modification_query(family, modset)
            queries.setdefault(q.name, q)
    return list(queries.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neighbours", choices=sorted(NEIGHBOURS), required=True)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    stale = []
    for query in study_queries():
        if args.check:
            path = expansion_path(query.name, args.neighbours)
            fresh = expand_query(query, neighbours=args.neighbours)
            if not path.is_file() or read_expansion(path).sets != fresh.sets:
                stale.append(str(path))
            continue
        path = write_expansion(query, neighbours=args.neighbours)
        summary = read_expansion(path).summary()
        print(f"{path}\n{summary.to_string()}\n")
    if stale:
        print("stale (regenerate without --check):\n  " + "\n  ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
