"""What the strict Sphinx build checks, so that the site check need not (tools/sitecheck).

The project's ``_config.yml`` with ``-W -n --keep-going`` (``make test``, ``make book STRICT=1``)
fails on a cell output written to stderr (myst-nb's ``nb_output_stderr: warn``), a link to a
page that does not exist and an image file that is missing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_the_config_turns_stderr_in_an_output_into_a_warning() -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["sphinx"]["config"]["nb_output_stderr"] == "warn"


@pytest.mark.slow  # one Jupyter Book build, ~15 s
def test_strict_build_fails_on_stderr_output_broken_link_and_missing_image(tmp_path: Path) -> None:
    (tmp_path / "book" / "_static").mkdir(parents=True)
    shutil.copy2(ROOT / "book" / "references.bib", tmp_path / "book" / "references.bib")
    shutil.copy2(ROOT / "book" / "_static" / "nlpbias.css", tmp_path / "book" / "_static")
    (tmp_path / "book" / "intro.md").write_text(
        "# Intro\n\nSee [the method](nowhere.md).\n\n![a figure](gone.png)\n"
    )
    (tmp_path / "notebooks").mkdir()
    cells = [nbformat.v4.new_markdown_cell("# Tiny"), nbformat.v4.new_code_cell("f()")]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.cells[1].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="10 words, 3 groups\n"),
        nbformat.v4.new_output("stream", name="stderr", text="x.py:3: UserWarning: few words\n"),
    ]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, tmp_path / "notebooks" / "tiny.ipynb")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n  - file: notebooks/tiny\n"
    )
    shutil.copy2(ROOT / "_config.yml", tmp_path / "_config.yml")
    exe = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run(
        [str(exe), "build", str(tmp_path), "--path-output", str(tmp_path), "-W", "-n"]
        + ["--keep-going"],
        capture_output=True,
        text=True,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, log[-2000:]
    warnings = sorted(line.split("WARNING: ")[1] for line in log.splitlines() if "WARNING" in line)
    assert [w.removesuffix("\x1b[39;49;00m") for w in warnings] == [
        "'myst' cross-reference target not found: 'nowhere.md' [myst.xref_missing]",
        "image file not readable: book/gone.png",
        "stderr was found in the cell outputs of cell 2 [mystnb.stderr]",
    ], log[-3000:]
