"""Build the HTML book from notebooks that the runner executed.

Jupyter Book never executes anything here (``execute_notebooks: off``). :func:`build` assembles a
source tree under ``_build/src`` that mirrors the repository — ``book/``, ``_config.yml``,
``_toc.yml`` and ``notebooks/<name>.ipynb`` — but with each notebook replaced by its executed copy
from ``_build/notebooks``. Page paths therefore match the repository (the Binder and repository
buttons point at the real notebooks), and the HTML goes to ``_build/html``.

The repository's address comes from one setting, ``$NLPBIAS_REPOSITORY_URL`` (``make book
REPOSITORY_URL=...``): :func:`repository_settings` adds the repository, issues and launch
(Binder, Colab) buttons to the assembled ``_config.yml`` when it is set, and none without it.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nlpbias.book import runlog, runner

log = logging.getLogger(__name__)
MATHJAX = Path("book") / "_static" / "mathjax" / "tex-mml-chtml.js"
REPOSITORY_ENV = "NLPBIAS_REPOSITORY_URL"
BINDER = "https://mybinder.org"
COLAB = "https://colab.research.google.com"
_REPOSITORY = re.compile(r"^(https?://[^/\s]+)/([^/\s]+)/([^/\s]+?)(?:\.git)?(?:/tree/(\S+))?/?$")


class BookError(runner.RunnerError):
    """The book could not be assembled or built."""


def _jupyter_book() -> list[str]:
    exe = Path(sys.executable).with_name("jupyter-book")
    found = str(exe) if exe.is_file() else shutil.which("jupyter-book")
    if not found:
        raise BookError("jupyter-book is not installed: run `make book` (it creates .venv)")
    return [found]


def assemble(root: Path, executed_dir: Path | None = None) -> Path:
    """Copy the book sources and the executed notebooks into ``<root>/_build/src``."""
    root = Path(root)
    executed_dir = Path(executed_dir or root / runner.EXECUTED_DIR)
    if not (root / MATHJAX).is_file():
        raise BookError(f"{MATHJAX} is missing: run `make mathjax` (MathJax is served locally)")
    src = root / runner.BUILD_DIR / "src"
    if src.exists():
        shutil.rmtree(src)
    (src / "notebooks").mkdir(parents=True)
    shutil.copytree(root / "book", src / "book")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(root / name, src / name)
    write_repository_config(src / "_config.yml", os.environ.get(REPOSITORY_ENV))
    for study in runner.chapters(root):  # the studies and the pages (the scorecard)
        name = runner.notebook_path(root, study).name
        executed = executed_dir / name
        if not executed.is_file():
            raise BookError(
                f"study '{study}' has not been executed ({executed} is missing): "
                f"run `nlpbias run {study} --profile PROFILE` first"
            )
        _check_executed(study, executed)
        shutil.copy2(executed, src / "notebooks" / name)
    return src


def repository_settings(url: str | None) -> dict[str, Any]:
    """The ``_config.yml`` settings that link the book to its repository (none without ``url``).

    Parameters
    ----------
    url : str or None
        The repository's web address, ``https://HOST/OWNER/REPO`` (a trailing ``.git`` is
        dropped; ``.../tree/BRANCH`` picks the branch, default ``main``). ``None`` or ``""``: the
        book gets no repository, issues or launch buttons.

    Returns
    -------
    dict
        ``repository``, ``launch_buttons`` and ``html`` entries to merge into the configuration:
        with a URL, the repository and issues buttons and the Binder launch button (plus Colab
        on github.com); without one, all of them off.

    Raises
    ------
    BookError
        When ``url`` is not a repository address (one line naming it and the fix).

    Examples
    --------
    >>> repository_settings(None)["html"]
    {'use_repository_button': False, 'use_issues_button': False, 'use_edit_page_button': False}
    >>> repository_settings("https://github.com/me/book/tree/pages")["repository"]
    {'url': 'https://github.com/me/book', 'path_to_book': '', 'branch': 'pages'}
    """
    buttons = ("use_repository_button", "use_issues_button", "use_edit_page_button")
    url = (url or "").strip()
    if not url:
        return {
            "launch_buttons": {"binderhub_url": "", "colab_url": ""},
            "html": dict.fromkeys(buttons, False),
        }
    match = _REPOSITORY.match(url)
    if match is None:
        raise BookError(
            f"{REPOSITORY_ENV}={url!r} is not a repository address: set it to "
            "https://github.com/OWNER/REPO (optionally .../tree/BRANCH), or leave it unset for a "
            "book without repository and launch buttons"
        )
    host, owner, repo, branch = match.groups()
    launch = {"binderhub_url": BINDER, "colab_url": COLAB if host == "https://github.com" else ""}
    return {
        "repository": {
            "url": f"{host}/{owner}/{repo}",
            "path_to_book": "",
            "branch": branch or "main",
        },
        "launch_buttons": launch,
        "html": {
            "use_repository_button": True,
            "use_issues_button": True,
            "use_edit_page_button": False,
        },
    }


def write_repository_config(config_file: Path, url: str | None) -> dict[str, Any]:
    """Merge :func:`repository_settings` of ``url`` into the YAML ``config_file``; return it.

    Only the assembled copy under ``_build/src`` is written: the project's ``_config.yml`` holds
    no address, so a build without the setting has no repository or launch buttons.
    """
    import yaml

    config = yaml.safe_load(Path(config_file).read_text(encoding="utf-8")) or {}
    for key, value in repository_settings(url).items():
        config[key] = {**(config.get(key) or {}), **value} if isinstance(value, dict) else value
    Path(config_file).write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return config


def _check_executed(study: str, executed: Path) -> None:
    """Refuse a notebook the runner did not execute, or whose run failed (papermill keeps those)."""
    import nbformat

    record = nbformat.read(executed, as_version=4).metadata.get("nlpbias")
    if not record:
        raise BookError(
            f"{executed} was not executed by the runner (no run record in its metadata): "
            f"run `nlpbias run {study} --profile PROFILE`"
        )
    if record.get("status") != "ok":
        raise BookError(
            f"the last run of study '{study}' failed, so it is not published: {record.get('error')}"
            f" — fix it and run `nlpbias run {study} --profile {record.get('profile')}`"
        )


def build(
    root: str | Path | None = None,
    *,
    profile: str | None = "demo",
    strict: bool = False,
    progress: bool = False,
    report: Callable[[str], None] | None = None,
) -> Path:
    """Run every notebook on ``profile`` (skip with ``profile=None``) and build the HTML book.

    Parameters
    ----------
    root : path, optional
        Project folder (default: found from the current directory).
    profile : str or None
        Profile to execute the notebooks with; ``None`` reuses ``_build/notebooks`` as they are.
    strict : bool
        Turn Sphinx warnings into errors (``-W -n --keep-going``), as the tests do.
    progress : bool
        Show papermill's per-cell progress bars.
    report : callable, optional
        Receives one line as each chapter starts and ends (see :func:`runner.run_many`) and
        as the HTML build starts and ends; e.g. ``print``.

    Returns
    -------
    Path
        ``<root>/_build/html/index.html``.
    """
    root = runner.project_root(root)
    say = report or (lambda line: None)
    if profile is not None:
        runner.run_many("all", profile, root=root, progress=progress, report=report)
    src = assemble(root)
    cmd = [*_jupyter_book(), "build", str(src), "--path-output", str(root), "--all"]
    if strict:
        cmd += ["-W", "-n", "--keep-going"]
    log.info("building the book: %s", " ".join(cmd))
    say(f"[html] building the HTML from {runner.EXECUTED_DIR} (jupyter-book)")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    took = runlog.duration(time.perf_counter() - t0)
    done = "done" if proc.returncode == 0 else "FAILED"
    say(f"[html] {done} in {took}; log in _build/book-build.log")
    output = proc.stdout + proc.stderr
    (root / runner.BUILD_DIR / "book-build.log").write_text(output)
    warnings = [ln for ln in output.splitlines() if "WARNING" in ln or "ERROR" in ln]
    if proc.returncode != 0:
        lines = warnings or output.strip().splitlines()[-5:]
        raise BookError(
            f"jupyter-book build failed ({len(lines)} problem lines, full log in "
            f"_build/book-build.log): {' | '.join(lines[:5])}"
        )
    if warnings:
        log.warning(
            "the book built with %d Sphinx warnings (see _build/book-build.log): %s",
            len(warnings),
            " | ".join(warnings[:3]),
        )
    index = root / runner.BUILD_DIR / "html" / "index.html"
    if not index.is_file():
        raise BookError(f"the build finished but {index} is missing")
    return index
