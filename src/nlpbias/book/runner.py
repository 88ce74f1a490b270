"""Execute the book's notebooks with papermill, one profile at a time.

``notebooks/profiles.yml`` says which notebook belongs to which study and which parameters each
profile injects into it. :func:`run` checks every parameter against the notebook's own
``parameters`` cell (names and types, :mod:`nlpbias.book.parameters`), executes a copy of the
notebook into the build tree (the template is never written), and records what ran (profile,
parameters, package versions, git commit, duration, and which cached steps were hits) in the
executed notebook's metadata and in ``_build/runs.jsonl``.
The cached steps come from the cache's run log: the kernel inherits ``$NLPBIAS_CACHE_LOG``
naming a fresh file, to which every cached call appends a line (:mod:`nlpbias.core.cache`).

A run writes ``<chapter>.ipynb`` only when it succeeds: it executes into
``<chapter>.running.ipynb``, moved into place at the end; a failed run is kept as
``<chapter>.failed.ipynb`` and the last good notebook stays. ``<chapter>.lock``
(:mod:`nlpbias.book.runlock`) refuses a second run of a chapter while one runs. A successful run
also keeps the chapter's headline rows per profile (:mod:`nlpbias.book.headlines`); malformed
rows fail the run. Besides the studies, profiles.yml may list ``pages``: notebooks that are not
studies (the scorecard), run after every study by ``all``.

Examples
--------
>>> from nlpbias import runner
>>> record = runner.run("data", "smoke", overrides={"random_state": 1})  # doctest: +SKIP
>>> record.output  # doctest: +SKIP
PosixPath('.../_build/notebooks/data.ipynb')
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from nlpbias.book import headlines, runlog
from nlpbias.book.parameters import check_value, parameter_specs, yaml_text
from nlpbias.book.runlock import LockError, chapter_lock
from nlpbias.core import repro
from nlpbias.core.cache import LOG_ENV
from nlpbias.core.paths import checkout_dir

PROFILES_FILE = Path("notebooks") / "profiles.yml"
BUILD_DIR = Path("_build")
EXECUTED_DIR = BUILD_DIR / "notebooks"
RUNS_LOG = BUILD_DIR / "runs.jsonl"
KERNEL = "python3"
VERSIONED_PACKAGES = (
    "nlpbias",
    "numpy",
    "scipy",
    "pandas",
    "scikit-learn",
    "torch",
    "transformers",
    "gensim",
    "papermill",
    "jupyter-book",
)
# Environment of the kernel: progress bars carry timings, which would make two runs differ.
KERNEL_ENV = {"TQDM_DISABLE": "1", "PYTHONHASHSEED": "0", "MPLBACKEND": "inline"}
#: Set in the kernel to the folder the executed notebooks go to (the scorecard reads them there).
EXECUTED_ENV = "NLPBIAS_EXECUTED_DIR"


class RunnerError(Exception):
    """A run could not start or a notebook failed; the message is one line that says what to do."""


@dataclass(frozen=True)
class RunRecord:
    """What one execution of one notebook was: written to notebook metadata and runs.jsonl."""

    study: str
    notebook: str
    profile: str
    parameters: dict[str, Any]
    output: str
    status: str
    started: str
    duration_s: float
    git_commit: str | None
    versions: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    #: Cached steps of the run: ``hits``, ``misses`` and ``steps`` (see :func:`read_cache_log`).
    cache: dict[str, Any] = field(default_factory=dict)
    #: The CPU, instruction set and BLAS/torch builds (:func:`nlpbias.core.repro.machine`): numbers
    #: of trained models are bit-identical on one machine, not necessarily across these.
    machine: dict[str, Any] = field(default_factory=dict)


def project_root(start: str | Path | None = None) -> Path:
    """The project folder: the first parent of ``start`` (default: cwd) with notebooks/profiles.yml.

    Falls back to the checkout this package was installed from (editable install).
    """
    here = Path(start or Path.cwd()).resolve()
    for cand in (here, *here.parents):
        if (cand / PROFILES_FILE).is_file():
            return cand
    installed = checkout_dir()
    if installed is not None and (installed / PROFILES_FILE).is_file():
        return installed
    raise RunnerError(
        f"no {PROFILES_FILE} found above {here}: run nlpbias from the project folder or pass --root"
    )


def load_config(root: Path) -> dict[str, Any]:
    """Read and check ``notebooks/profiles.yml``."""
    file = root / PROFILES_FILE
    try:
        config = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RunnerError(f"cannot read {file}: {exc}".replace("\n", " ")) from exc
    if not isinstance(config, dict) or not {"studies", "profiles"} <= set(config):
        raise RunnerError(f"{file} must have top-level keys 'studies' and 'profiles'")
    return config


def studies(root: Path) -> list[str]:
    """Study names in book order."""
    return list(load_config(root)["studies"])


def _notebooks(config: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Every notebook entry: the studies, then the pages (profiles.yml's optional ``pages``)."""
    return {**config["studies"], **(config.get("pages") or {})}


def chapters(root: Path) -> list[str]:
    """Every notebook of the book in the order ``all`` runs them: the studies, then the pages."""
    return list(_notebooks(load_config(root)))


def beside(root: Path) -> dict[str, list[str]]:
    """Which studies ``all`` runs at the same time as another: host -> its companions.

    profiles.yml marks a companion ``beside: HOST``. Chapters that keep fewer cores busy than
    the machine has (one gensim thread; a process pool idle between its sweeps) finish sooner
    side by side than one after the other (:func:`run_side_by_side`).
    """
    config = load_config(root)
    hosts: dict[str, list[str]] = {}
    for name, entry in config["studies"].items():
        host = (entry or {}).get("beside")
        if host is None:
            continue
        if host not in config["studies"] or host == name or config["studies"][host].get("beside"):
            raise RunnerError(
                f"study '{name}' in {PROFILES_FILE} says beside: {host!r}; name another study "
                "that is not itself beside one"
            )
        hosts.setdefault(host, []).append(name)
    return hosts


def schedule(root: Path, names: Sequence[str]) -> list[list[str]]:
    """``names`` as ``all`` runs them: one list per step, a chapter alone or a host followed by
    those of its companions (:func:`beside`) that are in ``names``, which run at the same time as
    it. A companion whose host is not in ``names`` runs alone, in its place."""
    hosts = beside(root)
    host_of = {c: h for h, group in hosts.items() for c in group}
    return [
        [name, *(c for c in hosts.get(name, []) if c in names)]
        for name in names
        if host_of.get(name) not in names
    ]


def profiles(root: Path) -> list[str]:
    """Profile names defined in profiles.yml."""
    return list(load_config(root)["profiles"])


def notebook_path(root: Path, study: str) -> Path:
    """The template notebook of a study; one-line error for an unknown study."""
    entries = _notebooks(load_config(root))
    if study not in entries:
        known = ", ".join(entries)
        raise RunnerError(f"unknown study '{study}': choose one of {known}, or 'all'")
    return root / "notebooks" / entries[study]["notebook"]


def notebook_parameters(notebook: Path) -> dict[str, Any]:
    """Names and defaults of the variables in the notebook's cell tagged ``parameters``."""
    import papermill

    params = papermill.inspect_notebook(str(notebook))
    return {name: spec["default"] for name, spec in params.items()}


def parse_override(text: str) -> tuple[str, Any]:
    """Parse one ``-p key=value``; the value is read as YAML (``5`` → int, ``[a, b]`` → list)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise RunnerError(f"bad parameter '{text}': write it as -p name=value")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    return key.strip(), parsed


def resolve_parameters(
    root: Path, study: str, profile: str, overrides: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Profile parameters of a study merged with overrides, all checked against the notebook."""
    config = load_config(root)
    notebook = notebook_path(root, study)
    if profile not in config["profiles"]:
        known = ", ".join(config["profiles"])
        raise RunnerError(f"unknown profile '{profile}': choose one of {known}")
    params = dict((config["profiles"][profile] or {}).get(study) or {})
    overrides = dict(overrides or {})
    params.update(overrides)
    specs = parameter_specs(notebook)
    unknown = sorted(set(params) - set(specs))
    if unknown:
        raise RunnerError(
            f"unknown parameter {', '.join(map(repr, unknown))} for study '{study}' "
            f"({notebook.name}): its parameters cell defines {', '.join(specs) or 'nothing'}"
        )
    for name, value in params.items():
        spec = specs[name]
        problem = check_value(value, spec.default, none_ok=spec.none_ok)
        if problem is None:
            continue
        if name in overrides:
            where = f"-p {name}={yaml_text(value)}"
            fix = f"write it like -p {name}={yaml_text(spec.default)}"
        else:
            where = f"{PROFILES_FILE}, profile '{profile}'"
            fix = f"fix it in {PROFILES_FILE}"
        raise RunnerError(
            f"parameter '{name}' of study '{study}' ({notebook.name}) {problem}, from {where}; "
            f"{fix}"
        )
    return {"profile": profile, **params} if "profile" in specs else params


def package_versions() -> dict[str, str]:
    """Versions of the packages whose behaviour the results depend on."""
    versions = {"python": platform.python_version()}
    for name in VERSIONED_PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    return versions


def git_commit(root: Path) -> str | None:
    """``HEAD`` of the checkout, with ``-dirty`` when tracked files changed; None outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")


def read_cache_log(path: str | Path) -> dict[str, Any]:
    """Summarise a cache run log (``$NLPBIAS_CACHE_LOG``): which cached steps were hits.

    Parameters
    ----------
    path : str or Path
        A file of JSON lines ``{"function", "study", "hit", "seconds", "key"}``, one per cached
        call, in call order (nested calls and sweep tasks included). A missing file is a run
        without cached calls; unreadable lines are skipped.

    Returns
    -------
    dict
        ``hits`` and ``misses`` (counts) and ``steps`` (the lines, in order).

    Examples
    --------
    >>> read_cache_log("/nonexistent/log.jsonl")
    {'hits': 0, 'misses': 0, 'steps': []}
    """
    steps = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    for line in lines:
        try:
            step = json.loads(line)
        except ValueError:
            continue
        if isinstance(step, dict) and isinstance(step.get("hit"), bool):
            steps.append(step)
    hits = sum(step["hit"] for step in steps)
    return {"hits": hits, "misses": len(steps) - hits, "steps": steps}


@contextlib.contextmanager
def _kernel_environment(profile: str, cache_log: Path, executed: Path) -> Iterator[None]:
    """Environment the kernel inherits while a notebook runs (restored afterwards)."""
    env = {**KERNEL_ENV, "NLPBIAS_PROFILE": profile, LOG_ENV: str(cache_log)}
    env[EXECUTED_ENV] = str(executed)
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _failure_message(exc: Exception, notebook: Path, output: Path | None) -> str:
    from papermill.exceptions import PapermillExecutionError

    see = f" (see {output})" if output is not None else ""
    if isinstance(exc, PapermillExecutionError):
        evalue = " ".join(str(exc.evalue).split())
        where = f"cell {exc.cell_index} (In [{exc.exec_count}])"
        return f"{notebook.name} failed in {where}: {exc.ename}: {evalue}{see}"
    return f"{notebook.name} failed: {type(exc).__name__}: {' '.join(str(exc).split())}{see}"


def run(
    study: str,
    profile: str,
    *,
    overrides: Mapping[str, Any] | None = None,
    root: str | Path | None = None,
    output_dir: str | Path | None = None,
    progress: bool = False,
    parameters: Mapping[str, Any] | None = None,
) -> RunRecord:
    """Execute one study's notebook on a profile into the build tree.

    Parameters
    ----------
    study : str
        A key of ``studies`` in profiles.yml (e.g. ``"data"``).
    profile : str
        ``smoke``, ``demo``, ``paper`` or ``full`` (any profile defined in profiles.yml).
    overrides : mapping, optional
        Parameters that replace the profile's; each must exist in the notebook's parameters cell
        and have the type of its default there.
    root : path, optional
        Project folder (default: found from the current directory).
    output_dir : path, optional
        Where the executed notebook goes (default ``<root>/_build/notebooks``).
    progress : bool
        Show papermill's per-cell progress bar.
    parameters : mapping, optional
        The parameters as :func:`resolve_parameters` returned them (then ``overrides`` is
        unused): :func:`run_many` checks every notebook's before the first one runs.

    Returns
    -------
    RunRecord
        Also stored in the notebook metadata (key ``nlpbias``) and appended to runs.jsonl.

    Raises
    ------
    RunnerError
        Unknown study, profile or parameter, a value of the wrong type, a run of the same
        chapter in progress, or a failing cell (notebook, cell, error and where the failed
        notebook is, in one line).
    """
    root = project_root(root)
    template = notebook_path(root, study)
    if parameters is None:
        parameters = resolve_parameters(root, study, profile, overrides)
    parameters = dict(parameters)
    out_dir = Path(output_dir) if output_dir is not None else root / EXECUTED_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    output = (out_dir / template.name).resolve()
    if output == template.resolve():
        raise RunnerError(f"refusing to overwrite the template {template}: choose another output")
    try:
        with chapter_lock(output, study, profile):
            return _execute(study, profile, template, output, parameters, root, progress)
    except LockError as exc:
        raise RunnerError(str(exc)) from None


def _execute(
    study: str,
    profile: str,
    template: Path,
    output: Path,
    parameters: dict[str, Any],
    root: Path,
    progress: bool,
) -> RunRecord:
    """Run the notebook into ``<chapter>.running.ipynb``; move it into place or aside."""
    import nbformat
    import papermill

    from nlpbias.book.injected import use_book_translator
    from nlpbias.book.kernel import QuietKernelManager

    use_book_translator(KERNEL)  # the injected parameters fit the book's column
    running = output.with_suffix(".running.ipynb")
    failed = output.with_suffix(".failed.ipynb")
    running.unlink(missing_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    commit = git_commit(root)  # the code the run starts from, not the HEAD when it ends
    t0 = time.perf_counter()
    error = None
    fd, name = tempfile.mkstemp(prefix=f"cache-{study}-", suffix=".jsonl")
    os.close(fd)
    cache_log = Path(name)
    try:
        with _kernel_environment(profile, cache_log, output.parent):
            papermill.execute_notebook(
                str(template),
                str(running),
                parameters=parameters,
                kernel_name=KERNEL,
                cwd=str(template.parent),
                progress_bar=progress,
                kernel_manager_class=QuietKernelManager,
            )
    except Exception as exc:  # papermill raises many kinds; all end the run the same way
        error = _failure_message(exc, template, failed if running.is_file() else None)
    finally:
        cache = read_cache_log(cache_log)
        cache_log.unlink(missing_ok=True)
    nb = nbformat.read(running, as_version=4) if running.is_file() else None
    rows = None
    if nb is not None and not error:
        try:
            rows = headlines.notebook_rows(nb, study, profile=profile)
        except headlines.HeadlineError as exc:
            error = f"{template.name} failed: {exc} (see {failed})"
    final = failed if error else output
    record = RunRecord(
        study=study,
        notebook=template.name,
        profile=profile,
        parameters=parameters,
        output=str(final),
        status="failed" if error else "ok",
        started=started,
        duration_s=round(time.perf_counter() - t0, 2),
        git_commit=commit,
        versions=package_versions(),
        error=error,
        cache=cache,
        machine=repro.machine(),
    )
    if nb is not None:
        nb.metadata["nlpbias"] = asdict(record)
        nbformat.write(nb, running)
        os.replace(running, final)
    if not error:
        failed.unlink(missing_ok=True)  # an older failure is no longer the chapter's state
        headlines.save_rows(root, profile, study, rows, record=asdict(record))
    log_file = root / RUNS_LOG
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(asdict(record), default=str) + "\n")
    if error:
        kept = f"; the last good run is still {output}" if output.is_file() else ""
        raise RunnerError(error + kept)
    return record


def run_many(
    study: str,
    profile: str,
    *,
    overrides: Mapping[str, Any] | None = None,
    root: str | Path | None = None,
    output_dir: str | Path | None = None,
    progress: bool = False,
    report: Callable[[str], None] | None = None,
) -> list[RunRecord]:
    """Run one study, or every study in book order when ``study == "all"``.

    With ``all``, an override applies only to the notebooks that define it. Every notebook's
    parameters are checked (names and types) before the first one runs.

    Parameters
    ----------
    report : callable, optional
        Called with one line as each chapter starts and ends (name, profile, elapsed time and
        the time its last run on this profile took, from ``runs.jsonl``; see
        :mod:`nlpbias.book.runlog`); e.g. ``print``.
    """
    root = project_root(root)
    names = [study] if study != "all" else chapters(root)
    overrides = dict(overrides or {})
    if study == "all" and overrides:
        defined = set().union(*(notebook_parameters(notebook_path(root, s)) for s in names))
        unknown = sorted(set(overrides) - defined)
        if unknown:
            raise RunnerError(
                f"unknown parameter {', '.join(map(repr, unknown))}: no notebook defines it"
            )
    resolved, overrides_of = {}, {}
    for name in names:
        mine = overrides
        if study == "all":
            own = set(notebook_parameters(notebook_path(root, name)))
            mine = {k: v for k, v in overrides.items() if k in own}
        resolved[name] = resolve_parameters(root, name, profile, mine)
        overrides_of[name] = mine
    lines = runlog.ChapterLines(names, profile, root / RUNS_LOG, report)
    records: dict[str, RunRecord] = {}
    for step in schedule(root, names):
        if len(step) > 1:
            records.update(run_side_by_side(
                step, profile, {n: overrides_of[n] for n in step}, root=root,
                output_dir=output_dir, lines=lines,
            ))  # fmt: skip
            continue
        with lines.chapter(step[0]):
            kw = {"root": root, "output_dir": output_dir, "progress": progress}
            records[step[0]] = run(step[0], profile, parameters=resolved[step[0]], **kw)
    return [records[name] for name in names]


#: Native threads (OpenMP, BLAS, torch) of each chapter's kernel while chapters run side by
#: side. With one each, no chapter waits at a parallel region for a thread the other chapter
#: holds: a serial torch loop that took 29 s alone took 107 s beside a busy process at the
#: lowest (``SCHED_IDLE``) priority and 428 s beside one at ``nice 19`` (2 cores, 2026-11-28).
#: The chapters that run side by side give the same numbers with one thread as with two.
SIDE_BY_SIDE_THREADS = 1


def run_side_by_side(
    names: Sequence[str],
    profile: str,
    overrides: Mapping[str, Mapping[str, Any]],
    *,
    root: Path,
    output_dir: str | Path | None,
    lines: runlog.ChapterLines,
) -> dict[str, RunRecord]:
    """Run ``names[0]`` and, at the same time, ``names[1:]`` one after another.

    Each chapter is its own ``nlpbias run --threads 1`` process (:data:`SIDE_BY_SIDE_THREADS`),
    its process pools unchanged. Returns the records read back from the executed notebooks;
    the first failure is raised (as :class:`RunnerError`) once both lanes have ended. A Ctrl-C
    ends every process the lanes started.
    """
    import nbformat

    out_dir = Path(output_dir) if output_dir is not None else root / EXECUTED_DIR
    running: list[subprocess.Popen[str]] = []
    records: dict[str, RunRecord] = {}

    def one(name: str) -> None:
        cmd = [sys.executable, "-m", "nlpbias.book.cli", "run", name, "--profile", profile,
               "--root", str(root), "--output-dir", str(out_dir),
               "--threads", str(SIDE_BY_SIDE_THREADS)]  # fmt: skip
        for key, value in overrides[name].items():
            cmd += ["--param", f"{key}={yaml_text(value)}"]
        with lines.chapter(name, estimate=False):
            proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                start_new_session=True,  # its kernel and workers: one process group
            )  # fmt: skip
            running.append(proc)
            _, err = proc.communicate()
            if proc.returncode != 0:
                said = [ln for ln in err.splitlines() if ln.startswith("nlpbias: error: ")]
                why = said[-1].removeprefix("nlpbias: error: ") if said else err.strip()[-500:]
                raise RunnerError(why)
        nb = nbformat.read(out_dir / notebook_path(root, name).name, as_version=4)
        records[name] = RunRecord(**nb.metadata["nlpbias"])

    def lane(group: Sequence[str]) -> None:
        for name in group:
            one(name)

    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="nlpbias-side")
    futures = [pool.submit(lane, [names[0]]), pool.submit(lane, list(names[1:]))]
    try:
        errors = [f.exception() for f in futures]  # waits for both lanes
    finally:
        for proc in running:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        pool.shutdown(wait=True)
    for error in errors:
        if error is not None:
            raise error
    return records
