"""Run one function over a list of parameter dicts: the sweeps of the studies.

A sweep (embeddings × grid points × seeds) is written once, as a list of keyword-argument dicts,
and executed by :func:`run_sweep` through an *executor*:

- ``"process"`` (the default): a local :class:`concurrent.futures.ProcessPoolExecutor` with
  ``n_jobs`` workers, started with the ``spawn`` method (a forked child of a process whose torch
  or OpenMP threads are running can deadlock; spawned workers import the function afresh, so it
  must be defined at module level in an importable module);
- ``"serial"``: in this process, one task after the other (the ``smoke`` profile, debugging);
- ``"dask"``: a Dask cluster through :mod:`dask.distributed` — the client already active in
  this process (``Client(cluster)``, e.g. a ``LocalCluster`` or a dask-jobqueue
  ``SLURMCluster``), else a client connected to the scheduler at ``$NLPBIAS_DASK_SCHEDULER``
  (``tcp://host:8786``), else a ``LocalCluster`` of ``n_jobs`` single-threaded worker processes
  started for the duration of the sweep;
- any object with a ``submit(fn, *args)`` method that returns futures with ``result()``: an
  already running :class:`concurrent.futures.Executor` or a ``dask.distributed.Client``.

Each worker of a ``"process"`` pool (:func:`process_pool`) runs its native thread pools (BLAS,
OpenMP, torch's intra-op threads) with ``cpu_count // workers`` threads, as joblib's loky
workers do: two workers that each start as many threads as there are cores leave threads waiting
for a core that the other worker holds. On 2 cores, two Attract-Repel runs side by side in 2
such workers took 305 s each against 15 s for one run alone, and 15 s each with the limit
(``benchmarks/attract_repel_speed.py``, 2026-11-27).

Every task carries its own seed in its parameters, so the results do not depend on the
executor, on the number of workers, or on the order in which tasks finish; :func:`run_sweep`
returns them in the order of the tasks. The book's "Reproduce at scale" page shows how to point
the ``full`` profile at a cluster.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from nlpbias.core.progress import progress

__all__ = [
    "SweepError",
    "local_cluster",
    "native_threads",
    "process_pool",
    "run_sweep",
    "worker_threads",
]

logger = logging.getLogger(__name__)

_NAMED = ("process", "serial", "dask")
SCHEDULER_ENV = "NLPBIAS_DASK_SCHEDULER"


class SweepError(RuntimeError):
    """A task of a sweep failed; the message names the task's parameters."""


def _describe(task: Mapping[str, Any], limit: int = 200) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in task.items())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_tasks(tasks: object) -> list[dict[str, Any]]:
    if isinstance(tasks, Mapping) or not isinstance(tasks, Sequence):
        raise TypeError(
            "tasks must be a list of keyword-argument dicts, got "
            f"{type(tasks).__name__}; wrap a single dict in a list"
        )
    out = []
    for i, task in enumerate(tasks):
        if not isinstance(task, Mapping):
            raise TypeError(f"task {i} must be a dict of keyword arguments, got {task!r}")
        out.append(dict(task))
    return out


#: The environment variables that size native thread pools when a library is first loaded.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)


def worker_threads(workers: int, cpus: int | None = None) -> int:
    """Native threads per worker when ``workers`` processes share ``cpus`` cores (at least 1).

    >>> worker_threads(2, cpus=2), worker_threads(2, cpus=16), worker_threads(8, cpus=2)
    (1, 8, 1)
    """
    cpus = (os.cpu_count() or 1) if cpus is None else cpus
    return max(1, cpus // max(1, workers))


def _limit_threads(n: int) -> None:
    """Pool initializer: ``n`` native threads in this worker, for libraries loaded now or later."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(n)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=n)  # BLAS / OpenMP libraries already loaded
    if "torch" in sys.modules:  # else torch reads OMP_NUM_THREADS when it is imported
        sys.modules["torch"].set_num_threads(n)


def native_threads() -> dict[str, int]:
    """The native threads this process would use: torch's intra-op threads and the largest
    BLAS / OpenMP pool loaded (threadpoolctl). What a :func:`process_pool` worker reports."""
    import torch
    from threadpoolctl import threadpool_info

    pools = [int(info["num_threads"]) for info in threadpool_info()]
    return {"torch": torch.get_num_threads(), "blas_openmp": max(pools, default=1)}


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A spawned pool of ``workers`` processes, each with :func:`worker_threads` native threads.

    ``spawn``, not ``fork``: a forked child of a process whose torch or OpenMP threads are
    running can deadlock. The thread limit changed no result of this project's sweeps: their
    torch models already train on one thread, and the 196 tasks of the intrinsic-vs-extrinsic
    chapter's ``paper`` sweep gave identical values with and without it (2026-11-27).
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_limit_threads,
        initargs=(worker_threads(workers),),
    )


def _fail(i: int, task: Mapping[str, Any], exc: BaseException) -> SweepError:
    msg = f"task {i} ({_describe(task)}) failed: {type(exc).__name__}: {exc}"
    return SweepError(msg.replace("\n", " "))


def run_sweep(
    fn: Callable[..., Any],
    tasks: Sequence[Mapping[str, Any]],
    *,
    executor: str | Any = "process",
    n_jobs: int | None = None,
    show_progress: bool = True,
    desc: str | None = None,
) -> list[Any]:
    """Call ``fn(**task)`` for every task and return the results in task order.

    Parameters
    ----------
    fn : callable
        A module-level function (it is pickled by reference for process and Dask executors).
    tasks : list of dict
        Keyword arguments of each call. Put the seed (``random_state``) in the task.
    executor : {"process", "serial", "dask"} or executor object, default "process"
        Where the calls run; see the module docstring. An object (and the client that
        ``"dask"`` finds active) is used as it is and not shut down: its owner closes it.
    n_jobs : int, optional
        Workers of the ``"process"`` pool, or of the ``LocalCluster`` that ``"dask"`` starts when
        it finds no cluster; default ``os.cpu_count()``, never more than the number of tasks.
        Ignored otherwise.
    show_progress : bool, default True
        A progress bar over finished tasks.
    desc : str, optional
        The bar's label (default: the function's name).

    Returns
    -------
    list
        ``[fn(**tasks[0]), fn(**tasks[1]), ...]``.

    Raises
    ------
    SweepError
        When a task raises; the message names the task and the original error (the first
        failure in task order; the remaining tasks are cancelled where the executor allows).

    Examples
    --------
    >>> tasks = [{"number": 2.71828, "ndigits": d} for d in (1, 3)]
    >>> run_sweep(round, tasks, executor="serial", show_progress=False)
    [2.7, 2.718]
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    task_list = _check_tasks(tasks)
    label = desc or getattr(fn, "__name__", "sweep")
    if isinstance(executor, str):
        if executor not in _NAMED:
            raise ValueError(
                f"executor must be one of {list(_NAMED)} or an object with submit(), "
                f"got {executor!r}"
            )
        if executor == "serial":
            return _serial(fn, task_list, show_progress, label)
        workers = (os.cpu_count() or 1) if n_jobs is None else n_jobs
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"n_jobs must be a positive int, got {n_jobs!r}")
        workers = max(1, min(workers, len(task_list)))
        if executor == "dask":
            return _dask(fn, task_list, show_progress, label, workers)
        if len(task_list) <= 1:
            return _serial(fn, task_list, show_progress, label)
        if workers == 1:
            return _serial(fn, task_list, show_progress, label)
        with process_pool(workers) as pool:
            return _submitted(pool, fn, task_list, show_progress, label)
    if not callable(getattr(executor, "submit", None)):
        raise TypeError(
            f"executor must be one of {list(_NAMED)} or an object with submit(), got {executor!r}"
        )
    return _submitted(executor, fn, task_list, show_progress, label)


def _serial(fn: Callable[..., Any], tasks: list[dict], show: bool, label: str) -> list[Any]:
    out = []
    for i, task in enumerate(progress(tasks, desc=label, enabled=show)):
        try:
            out.append(fn(**task))
        except Exception as exc:
            raise _fail(i, task, exc) from exc
    return out


def _shared_once(client: Any, tasks: list[dict]) -> list[dict]:
    """Send values that several tasks share (the same object, e.g. a corpus) to the workers once.

    A Dask client would otherwise serialise such a value into every task; the scattered future
    that replaces it is resolved to the value on the worker.
    """
    seen: dict[int, tuple[Any, int]] = {}
    for task in tasks:
        for value in task.values():
            if not isinstance(value, str | bytes | int | float | bool | type(None)):
                obj, count = seen.get(id(value), (value, 0))
                seen[id(value)] = (obj, count + 1)
    shared = {key: obj for key, (obj, count) in seen.items() if count > 1}
    if not shared:
        return tasks
    # hash=False: a content-hashed key would be shared with an earlier sweep's scatter of the
    # same object, whose release could then delete the data under this sweep's tasks
    sent = client.scatter(list(shared.values()), broadcast=True, hash=False)
    futures = dict(zip(shared, sent, strict=True))
    return [{k: futures.get(id(v), v) for k, v in task.items()} for task in tasks]


def _submitted(pool: Any, fn: Callable[..., Any], tasks: list[dict], show: bool, label: str):
    sent = _shared_once(pool, tasks) if callable(getattr(pool, "scatter", None)) else tasks
    # fn and the task travel as positional arguments: a task key such as ``key`` or ``pure``
    # would otherwise be taken by Client.submit as one of its own options
    futures = [pool.submit(_call, fn, task) for task in sent]
    results: list[Any] = [None] * len(tasks)
    bar = progress(total=len(tasks), desc=label, enabled=show)
    try:
        for i, fut in enumerate(futures):
            try:
                results[i] = fut.result()
            except Exception as exc:
                for other in futures[i + 1 :]:
                    other.cancel()
                raise _fail(i, tasks[i], exc) from exc
            bar.update(1)
    finally:
        bar.close()
    return results


def _call(fn: Callable[..., Any], task: Mapping[str, Any]) -> Any:
    """Run one task where the executor put it."""
    return fn(**task)


def _dask(
    fn: Callable[..., Any], tasks: list[dict], show: bool, label: str, workers: int
) -> list[Any]:
    try:
        from distributed import Client, get_client
    except ImportError as exc:  # pragma: no cover - distributed is in the pinned requirements
        raise ImportError(
            "executor='dask' needs dask.distributed: pip install distributed "
            "(it is pinned in requirements.txt)"
        ) from exc
    try:
        client = get_client()
    except ValueError:  # no client in this process
        client = None
    if client is not None:
        logger.info("running %d tasks on the active Dask client %s", len(tasks), client)
        return _submitted(client, fn, tasks, show, label)
    address = os.environ.get(SCHEDULER_ENV, "").strip()
    if address:
        logger.info("connecting to the Dask scheduler at %s", address)
        try:
            client = Client(address)
        except OSError as exc:
            raise ConnectionError(
                f"cannot reach the Dask scheduler at {address} (${SCHEDULER_ENV}): {exc}; start "
                f"the scheduler, or unset {SCHEDULER_ENV} to run on a local cluster"
            ) from exc
        with client:
            return _submitted(client, fn, tasks, show, label)
    logger.info("no Dask cluster given: starting a LocalCluster of %d workers", workers)
    with local_cluster(workers) as cluster, Client(cluster) as client:
        return _submitted(client, fn, tasks, show, label)


def local_cluster(n_workers: int = 2, **kwargs: Any) -> Any:
    """A ``dask.distributed.LocalCluster`` of single-threaded worker processes for the sweeps.

    Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536``, which makes glibc
    return freed memory to the system after every large temporary array. The GloVe fits of the
    perturbation sweep allocate such arrays all the time and ran about 4x slower under it
    (``benchmarks/sweep_executors.py``), so the workers started here keep glibc's default. Dask
    also leaves the variable in this process's environment once it has started a cluster, where
    later workers would inherit it; it is taken out while these workers start. For a cluster you
    start yourself, remove it from ``distributed.nanny.pre-spawn-environ`` in Dask's
    configuration.

    Parameters
    ----------
    n_workers : int, default 2
    **kwargs
        Passed to ``LocalCluster`` (default ``threads_per_worker=1``, ``processes=True``,
        ``dashboard_address=None``).

    Returns
    -------
    distributed.LocalCluster
        Use it as a context manager, and connect a ``Client`` to it.
    """
    import dask
    from distributed import LocalCluster

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    environ.pop(_TRIM, None)
    options = {"threads_per_worker": 1, "processes": True, "dashboard_address": None, **kwargs}
    leaked = os.environ.pop(_TRIM, None)
    try:
        with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
            return LocalCluster(n_workers=n_workers, **options)
    finally:
        if leaked is not None:
            os.environ[_TRIM] = leaked


_TRIM = "MALLOC_TRIM_THRESHOLD_"
