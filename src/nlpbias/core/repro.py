"""Reproducibility helpers: one call to seed every generator, one way to build a numpy Generator,
and a description of the machine a run's numbers depend on (:func:`machine`).

Seeds make a run repeatable on one machine. They do not make it repeatable across machines:
floating-point sums in BLAS kernels and in torch's CPU kernels are ordered by the instruction
set they dispatch to (AVX2, AVX-512, …), so a model trained over many steps can end elsewhere on
another processor. :func:`machine` records what decides that — the CPU, its vector
instructions, and the BLAS and torch builds — and the runner stores it with every run.
"""

from __future__ import annotations

import functools
import logging
import os
import platform
import random
import re
from pathlib import Path
from typing import Any

import numpy as np

from nlpbias.core.checks import check_int

__all__ = ["ISA_FLAGS", "machine", "rng", "seed_everything"]

logger = logging.getLogger(__name__)

_MAX_SEED = 2**32 - 1  # numpy's legacy global seed must fit in 32 bits


def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, numpy's global generator and torch (CPU and CUDA).

    Also sets ``PYTHONHASHSEED`` so that subprocesses (e.g. papermill kernels) hash strings the
    same way; the hash seed of the running interpreter cannot be changed after start-up.

    Parameters
    ----------
    seed : int
        A non-negative integer below 2**32.

    Examples
    --------
    >>> seed_everything(0)
    >>> a = np.random.rand()
    >>> seed_everything(0)
    >>> a == np.random.rand()
    True
    """
    seed = check_int(seed, "seed", minimum=0, maximum=_MAX_SEED)
    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 -- seeding the legacy global state is the point
    try:
        import torch
    except ModuleNotFoundError:  # torch is a dependency, but keep repro usable without it
        logger.debug("torch not installed; seeded random and numpy only")
        return
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def rng(
    random_state: None | int | np.random.Generator | np.random.RandomState = None,
) -> np.random.Generator:
    """Turn a ``random_state`` argument into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``None``: a Generator seeded from numpy's global state, so :func:`seed_everything`
        makes it repeatable; ``int``: a fresh Generator with that seed; ``Generator``: returned
        as is (draws advance the caller's generator); ``RandomState``: a Generator seeded from
        a draw of it.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> rng(42).integers(0, 10, size=3).tolist() == rng(42).integers(0, 10, size=3).tolist()
    True
    """
    if random_state is None:
        seed = np.random.randint(0, _MAX_SEED, dtype=np.int64)  # noqa: NPY002 -- global state
        return np.random.default_rng(seed)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, _MAX_SEED, dtype=np.int64))
    if isinstance(random_state, bool) or not isinstance(random_state, int | np.integer):
        raise TypeError(
            "random_state must be None, a non-negative int or a numpy Generator, "
            f"got {type(random_state).__name__}"
        )
    return np.random.default_rng(check_int(random_state, "random_state", minimum=0))


#: The vector-instruction flags of ``/proc/cpuinfo`` that change which kernels BLAS and torch run.
ISA_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
    "amx_bf16",
)


def _cpuinfo(text: str) -> dict[str, Any]:
    """Model, vendor, family/model/stepping and the :data:`ISA_FLAGS` of a ``/proc/cpuinfo``."""
    first = text.split("\n\n", 1)[0]  # every processor block repeats the same fields
    fields = {}
    for line in first.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    flags = set(fields.get("flags", "").split())
    return {
        "cpu_model": fields.get("model name", platform.processor() or "unknown"),
        "cpu_vendor": fields.get("vendor_id", "unknown"),
        "cpu_family_model_stepping": "/".join(
            fields.get(k, "?") for k in ("cpu family", "model", "stepping")
        ),
        "isa": [f for f in ISA_FLAGS if f in flags],
    }


@functools.lru_cache(maxsize=1)
def machine() -> dict[str, Any]:
    """What a run's numbers depend on beyond its code and data: CPU, instruction set, BLAS, torch.

    Returns a JSON-ready dict: ``cpu_model``, ``cpu_vendor``, ``cpu_family_model_stepping``,
    ``isa`` (the :data:`ISA_FLAGS` the CPU has), ``cpus`` (usable cores), ``platform``,
    ``numpy_blas`` (library, version and the kernel architecture it chose, from threadpoolctl)
    and, where torch is installed, ``torch_cpu_capability`` (the instruction set torch
    dispatches to, e.g. ``"AVX512"``), ``torch_blas`` and ``torch_threads``. Read once per
    process.
    """
    cpuinfo = Path("/proc/cpuinfo")
    text = cpuinfo.read_text(encoding="utf-8", errors="replace") if cpuinfo.is_file() else ""
    info: dict[str, Any] = _cpuinfo(text)
    info["cpus"] = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    )
    info["platform"] = platform.platform()
    try:
        from threadpoolctl import threadpool_info

        blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    except ModuleNotFoundError:  # a dependency of scikit-learn; keep repro usable without it
        blas = []
    info["numpy_blas"] = [
        f"{p.get('internal_api')} {p.get('version')} ({p.get('architecture', '?')})" for p in blas
    ]
    try:
        import torch
    except ModuleNotFoundError:
        return info
    config = torch.__config__.show()
    found = re.search(r"BLAS_INFO=(\w+)", config)
    info["torch_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    info["torch_blas"] = found.group(1) if found else "unknown"
    info["torch_threads"] = torch.get_num_threads()
    return info
