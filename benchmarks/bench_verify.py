"""How much the verified-file cache saves: data.path() on the 60 MB Gutenberg corpus, cold vs warm.

Cold = the verified-file cache is empty, so all 63 MB are hashed; warm = size + mtime match the
cache, so nothing is hashed. Both run in this process on this machine; the ratio is what counts.

    NLPBIAS_DATA=../shared/data .venv/bin/python benchmarks/bench_verify.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from nlpbias import data
from nlpbias.data import store

DATASET = "gutenberg_top100authors_subset"


def _time(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cache = store._cache_file(data.data_home())

    def cold() -> None:
        cache.unlink(missing_ok=True)
        data.path(DATASET, download=False)

    def warm() -> None:
        data.path(DATASET, download=False)

    cold_s = _time(cold, args.repeat)
    warm_s = _time(warm, args.repeat)
    mb = data.get(DATASET).megabytes
    print(f"data.path({DATASET!r}), {mb:.0f} MB, median of {args.repeat}:")
    cold_ms, warm_ms = statistics.median(cold_s) * 1e3, statistics.median(warm_s) * 1e3
    print(f"  cold (hash every file): {cold_ms:9.1f} ms")
    print(f"  warm (size+mtime hit):  {warm_ms:9.1f} ms")
    print(f"  ratio cold/warm:        {cold_ms / warm_ms:9.0f}x")


if __name__ == "__main__":
    main()
