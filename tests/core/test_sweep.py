"""Tests for nlpbias.core.sweep: one function over many parameter dicts, any executor."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from nlpbias.core.cache import cached
from nlpbias.core.sweep import SweepError, run_sweep
from nlpbias.data.identity import load_identity_terms

TASKS = [{"n": n, "random_state": s} for n in (3, 5) for s in (0, 1, 2)]


def draw(n: int, random_state: int) -> float:
    """A seeded computation whose result depends on both parameters."""
    return float(np.random.default_rng(random_state).normal(size=n).sum())


def fails_on_two(x: int) -> int:
    if x == 2:
        raise ValueError("two is not allowed")
    return x


def expected() -> list[float]:
    return [draw(**t) for t in TASKS]


def test_serial_runs_in_task_order() -> None:
    assert run_sweep(draw, TASKS, executor="serial", show_progress=False) == expected()


def test_executor_object_gives_identical_results() -> None:
    with ThreadPoolExecutor(max_workers=3) as pool:
        got = run_sweep(draw, TASKS, executor=pool, show_progress=False)
    assert got == expected()


def test_process_pool_gives_identical_results() -> None:
    # spawned workers import the function by reference: numpy's is importable everywhere
    tasks = [{"start": i, "stop": i + 3} for i in range(3)]
    got = run_sweep(np.arange, tasks, executor="process", n_jobs=2, show_progress=False)
    assert [g.tolist() for g in got] == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]


def test_single_task_and_empty_sweep() -> None:
    assert run_sweep(draw, TASKS[:1], executor="process", show_progress=False) == expected()[:1]
    assert run_sweep(draw, [], show_progress=False) == []


@pytest.mark.parametrize("executor", ["serial", "threads"])
def test_failure_names_the_task(executor: str) -> None:
    tasks = [{"x": 1}, {"x": 2}, {"x": 3}]
    if executor == "threads":
        with ThreadPoolExecutor(max_workers=2) as pool, pytest.raises(SweepError) as err:
            run_sweep(fails_on_two, tasks, executor=pool, show_progress=False)
    else:
        with pytest.raises(SweepError) as err:
            run_sweep(fails_on_two, tasks, executor="serial", show_progress=False)
    msg = str(err.value)
    assert "task 1 (x=2)" in msg and "two is not allowed" in msg and "\n" not in msg


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="list of keyword-argument dicts"):
        run_sweep(draw, {"n": 1, "random_state": 0})
    with pytest.raises(TypeError, match="task 0 must be a dict"):
        run_sweep(draw, [3])
    with pytest.raises(ValueError, match="executor must be one of"):
        run_sweep(draw, TASKS, executor="cluster")
    with pytest.raises(TypeError, match="submit"):
        run_sweep(draw, TASKS, executor=object())
    with pytest.raises(ValueError, match="n_jobs"):
        run_sweep(draw, TASKS, executor="process", n_jobs=0)


def keyword_echo(key: str, pure: bool, workers: int) -> tuple:
    return key, pure, workers


def test_task_keys_do_not_clash_with_the_executors_own_options() -> None:
    # Client.submit(fn, key=..., pure=..., workers=...) would take these as its own options
    tasks = [{"key": "a", "pure": False, "workers": 3}]
    with ThreadPoolExecutor(max_workers=1) as pool:
        assert (
            run_sweep(keyword_echo, tasks * 2, executor=pool, show_progress=False)
            == [("a", False, 3)] * 2
        )


def test_dask_without_a_cluster_or_address_starts_a_local_one(monkeypatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.delenv("NLPBIAS_DASK_SCHEDULER", raising=False)
    tasks = [{"start": i, "stop": i + 2} for i in range(3)]
    got = run_sweep(np.arange, tasks, executor="dask", n_jobs=2, show_progress=False)
    assert [g.tolist() for g in got] == [[0, 1], [1, 2], [2, 3]]


def test_dask_unreachable_scheduler_fails_clearly(monkeypatch) -> None:
    pytest.importorskip("distributed")
    import dask

    monkeypatch.setenv("NLPBIAS_DASK_SCHEDULER", "tcp://127.0.0.1:9")
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(OSError, match="unset NLPBIAS_DASK_SCHEDULER"),
    ):
        run_sweep(np.arange, [{"stop": 1}, {"stop": 2}], executor="dask", show_progress=False)


class _Recorder:
    """A stand-in for a Dask client's scatter: records what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list = []

    def scatter(self, values: list, broadcast: bool, hash: bool) -> list[str]:
        assert broadcast and not hash
        self.sent.extend(values)
        return [f"future-{i}" for i in range(len(values))]


def test_a_value_shared_by_tasks_is_sent_to_dask_workers_once() -> None:
    from nlpbias.core.sweep import _shared_once

    corpus, own = np.arange(5), [1, 2]
    tasks = [
        {"corpus": corpus, "seed": s, "name": "x", "own": own if s == 0 else [3]} for s in (0, 1)
    ]
    client = _Recorder()
    sent = _shared_once(client, tasks)
    assert len(client.sent) == 1 and client.sent[0] is corpus
    assert [t["corpus"] for t in sent] == ["future-0", "future-0"]
    assert [t["seed"] for t in sent] == [0, 1] and sent[0]["own"] is own
    assert tasks[0]["corpus"] is corpus, "the caller's tasks are not modified"


# ------------------------------------------------------------------ cached steps and sweeps
@cached
def terms_in_workers(n: int) -> list:
    """A cached step whose data file is read only in the worker processes of its sweep."""
    tasks = [{"name": "dixon2018"}] * n
    return run_sweep(load_identity_terms, tasks, executor="process", n_jobs=2, show_progress=False)


@cached
def cached_draw(n: int, random_state: int) -> float:
    return draw(n, random_state)


def test_cached_steps_around_and_inside_a_process_sweep(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path))
    assert terms_in_workers(2)[1][:2] == ["lesbian", "gay"]
    assert terms_in_workers.check_call_in_cache(2)
    got = run_sweep(cached_draw, TASKS, executor="process", n_jobs=2, show_progress=False)
    assert got == expected()
    assert all(cached_draw.check_call_in_cache(**t) for t in TASKS)  # stored by the workers


def test_process_pool_workers_share_the_cores_without_oversubscribing() -> None:
    """Each of n workers runs cpu_count // n native threads (torch, BLAS, OpenMP), as loky's do."""
    import os

    from nlpbias.core.sweep import native_threads, worker_threads

    assert worker_threads(2, cpus=2) == 1 and worker_threads(4, cpus=16) == 4
    assert worker_threads(3, cpus=2) == 1  # never 0
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU: a 2-worker pool would run serially")
    got = run_sweep(native_threads, [{}, {}], executor="process", n_jobs=2, show_progress=False)
    limit = worker_threads(2)
    assert got == [{"torch": limit, "blas_openmp": limit}] * 2
