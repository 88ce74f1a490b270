"""What the pinned-AUC chapter's CNN epoch cap costs and buys: the chapter twice, two caps.

Runs the pinned-AUC chapter on a profile (default ``paper``) twice from empty caches, once with
the CNN's ``max_epochs`` at the baseline value and once at the candidate, the other model
parameters as the profile sets them, one after the other in this process's machine. Prints the
two wall times and their ratio, then checks the candidate against the tolerance issue 28 set:
each family mean of the chapter's scenario table (every scenario, metric and term set) should lie
inside the baseline run's 95 % interval over seeds, and each headline row should keep its verdict.
Nothing is asserted: this is a measurement.

    NLPBIAS_DATA=../shared/data .venv/bin/python benchmarks/pinned_epochs.py \
        --baseline 8 --candidate 4

On 2026-11-27 (2 cores, nothing else running) the `paper` chapter took 617 s with 8 epochs and
461 s with 4; 71 of 72 family means stayed inside the 8-epoch intervals and all 7 headline rows
kept their verdicts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CELL = re.compile(r"^\s*(-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\]\s*$")


class _Table(HTMLParser):
    """Rows of a pandas HTML table with row headers (``th``) and cells (``td``) as text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[list[str], list[str]]] = []
        self._tag: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append(([], []))
        if tag in ("th", "td"):
            self._tag = tag
            self.rows[-1][0 if tag == "th" else 1].append("")

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            self._tag = None

    def handle_data(self, data):
        if self._tag and self.rows:
            cells = self.rows[-1][0 if self._tag == "th" else 1]
            cells[-1] += data


def scenario_means(notebook: Path) -> dict[tuple[str, ...], tuple[float, float, float]]:
    """(scenario, terms, metric, family) -> (mean, low, high) from the scenario table's HTML."""
    nb = json.loads(notebook.read_text())
    html = next(
        "".join(out["data"]["text/html"])
        for cell in nb["cells"]
        if cell["cell_type"] == "code"
        and "".join(cell["source"]).startswith("study.scenario_table")
        for out in cell["outputs"]
        if "text/html" in out.get("data", {})
    )
    table = _Table()
    table.feed(html)
    header = next(th for th, td in table.rows if th and th[-1] == "bias mitigated")
    families = header[-3:]
    keys: list[str] = ["", "", ""]
    means = {}
    for th, td in table.rows:
        if not td:
            continue
        keys = keys[: 3 - len(th)] + th  # row headers span rows: the missing ones repeat
        for family, text in zip(families, td, strict=True):
            m = CELL.match(text)
            if m:
                means[(*keys, family)] = tuple(float(v) for v in m.groups())
    return means


def verdicts(notebook: Path) -> dict[str, str]:
    import nbformat

    from nlpbias.book import headlines

    rows = headlines.notebook_rows(nbformat.read(notebook, 4), "pinned_auc", profile="paper")
    return dict(zip(rows["key"], rows["verdict"], strict=True))


def run(profile: str, max_epochs: int, out: Path) -> float:
    profiles = yaml.safe_load((ROOT / "notebooks" / "profiles.yml").read_text())["profiles"]
    params = dict(profiles[profile]["pinned_auc"].get("model_params") or {})
    params["max_epochs"] = max_epochs
    env = dict(os.environ, NLPBIAS_CACHE=tempfile.mkdtemp(prefix="pinned-epochs-"))
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "nlpbias.book.cli", "run", "pinned_auc", "--profile", profile,
         "-p", f"model_params={json.dumps(params)}", "--output-dir", str(out)],
        cwd=ROOT, env=env, check=True,
    )  # fmt: skip
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="paper")
    parser.add_argument("--baseline", type=int, default=8, help="max_epochs of the baseline run")
    parser.add_argument("--candidate", type=int, default=4, help="max_epochs to test")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pinned-epochs-out-"))
    seconds, books = {}, {}
    for cap in (args.baseline, args.candidate):
        books[cap] = work / f"epochs{cap}"
        seconds[cap] = run(args.profile, cap, books[cap])
        print(f"max_epochs {cap:>2}: {seconds[cap]:7.1f} s", flush=True)
    print(f"ratio candidate / baseline: {seconds[args.candidate] / seconds[args.baseline]:.2f}")
    base = scenario_means(books[args.baseline] / "pinned_auc.ipynb")
    cand = scenario_means(books[args.candidate] / "pinned_auc.ipynb")
    outside = [
        f"  {' / '.join(k)}: {base[k][0]:.3f} [{base[k][1]:.3f}, {base[k][2]:.3f}]"
        f" -> {cand[k][0]:.3f}"
        for k in base
        if not base[k][1] <= cand[k][0] <= base[k][2]
    ]
    print(f"{len(base) - len(outside)} of {len(base)} family means inside the baseline's interval")
    print("\n".join(outside))
    vb = verdicts(books[args.baseline] / "pinned_auc.ipynb")
    vc = verdicts(books[args.candidate] / "pinned_auc.ipynb")
    changed = [f"  {k}: {vb[k]} -> {vc.get(k)}" for k in vb if vb[k] != vc.get(k)]
    print(f"{len(vb) - len(changed)} of {len(vb)} headline verdicts unchanged")
    print("\n".join(changed))


if __name__ == "__main__":
    main()
