"""The repository address: one setting ($NLPBIAS_REPOSITORY_URL); without it, no buttons."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from nlpbias.book import build as book

ROOT = Path(__file__).resolve().parents[2]


def test_the_project_config_names_no_repository() -> None:
    text = (ROOT / "_config.yml").read_text(encoding="utf-8")
    config = yaml.safe_load(text)
    assert "github.com/nlpbias" not in text and "repository" not in config
    assert not {
        k for k in config.get("html", {}) if k.endswith("_button") and k != "use_download_button"
    }
    assert not {k for k in config.get("launch_buttons", {}) if k.endswith("_url")}


@pytest.mark.parametrize("url", [None, "", "  "])
def test_without_the_setting_every_repository_and_launch_button_is_off(url) -> None:
    settings = book.repository_settings(url)
    assert "repository" not in settings
    assert not any(settings["html"].values())
    assert not any(settings["launch_buttons"].values())


@pytest.mark.parametrize(
    ("url", "repository", "branch", "colab"),
    [
        ("https://github.com/me/book", "https://github.com/me/book", "main", True),
        ("https://github.com/me/book.git/", "https://github.com/me/book", "main", True),
        ("https://github.com/me/book/tree/gh-src", "https://github.com/me/book", "gh-src", True),
        ("https://gitlab.com/me/book", "https://gitlab.com/me/book", "main", False),
    ],
)
def test_with_the_setting_the_buttons_point_at_it(url, repository, branch, colab) -> None:
    settings = book.repository_settings(url)
    assert settings["repository"] == {"url": repository, "path_to_book": "", "branch": branch}
    assert settings["html"]["use_repository_button"] and settings["html"]["use_issues_button"]
    assert settings["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert bool(settings["launch_buttons"]["colab_url"]) is colab  # Colab opens GitHub only


@pytest.mark.parametrize("url", ["github.com/me/book", "https://github.com/me", "ftp://x/y/z"])
def test_a_malformed_address_is_a_one_line_error_naming_the_setting(url, one_line) -> None:
    with pytest.raises(book.BookError) as err:
        book.repository_settings(url)
    msg = one_line(err)
    assert msg.startswith(f"NLPBIAS_REPOSITORY_URL={url!r} is not a repository address: set it")


def test_the_assembled_config_gets_the_settings_and_keeps_the_rest(tmp_path: Path) -> None:
    config = tmp_path / "_config.yml"
    shutil.copy2(ROOT / "_config.yml", config)
    before = yaml.safe_load(config.read_text())
    book.write_repository_config(config, None)
    after = yaml.safe_load(config.read_text())
    assert "repository" not in after and after["sphinx"] == before["sphinx"]
    assert after["html"]["use_download_button"] and not after["html"]["use_repository_button"]
    book.write_repository_config(config, "https://github.com/me/book")
    after = yaml.safe_load(config.read_text())
    assert after["repository"]["url"] == "https://github.com/me/book"
    assert after["launch_buttons"]["notebook_interface"] == "jupyterlab"  # kept from the project


def _tiny_book(root: Path, url: str | None) -> str:
    """Build a one-notebook book with the project's config; return the notebook page's HTML."""
    (root / "book" / "_static").mkdir(parents=True)
    shutil.copy2(ROOT / "book" / "references.bib", root / "book" / "references.bib")
    shutil.copy2(ROOT / "book" / "_static" / "nlpbias.css", root / "book" / "_static")
    (root / "book" / "intro.md").write_text("# Intro\n\nA book.\n")
    (root / "notebooks").mkdir()
    cells = [nbformat.v4.new_markdown_cell("# Tiny"), nbformat.v4.new_code_cell("1 + 1")]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"})]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, root / "notebooks" / "tiny.ipynb")
    (root / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n  - file: notebooks/tiny\n"
    )
    shutil.copy2(ROOT / "_config.yml", root / "_config.yml")
    book.write_repository_config(root / "_config.yml", url)
    exe = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run(
        [str(exe), "build", str(root), "--path-output", str(root), "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return (root / "_build" / "html" / "notebooks" / "tiny.html").read_text(encoding="utf-8")


@pytest.mark.slow  # two Jupyter Book builds, ~15 s each
def test_built_pages_link_to_the_repository_only_with_the_setting(tmp_path: Path) -> None:
    html = _tiny_book(tmp_path / "without", None)
    assert "github.com" not in html and "mybinder.org" not in html and "colab" not in html
    html = _tiny_book(tmp_path / "with", "https://github.com/me/book")
    assert 'href="https://github.com/me/book"' in html  # the repository button
    assert "https://github.com/me/book/issues/new" in html
    assert "https://mybinder.org/v2/gh/me/book/main?urlpath=lab/tree/notebooks/tiny.ipynb" in html
    assert "https://colab.research.google.com/github/me/book/blob/main/notebooks/tiny.ipynb" in html
    assert "github.com/nlpbias" not in html
