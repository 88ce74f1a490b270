"""Tests for nlpbias.core.repro."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
import torch

from nlpbias.core.repro import rng, seed_everything


def _draws():
    return (
        [random.random() for _ in range(3)],
        np.random.rand(3).tolist(),  # noqa: NPY002 -- the global state is under test
        torch.rand(3).tolist(),
        rng(None).integers(0, 1_000_000, size=3).tolist(),
    )


def test_seed_everything_repeats_all_generators():
    seed_everything(123)
    first = _draws()
    seed_everything(123)
    second = _draws()
    assert first == second
    assert os.environ["PYTHONHASHSEED"] == "123"
    seed_everything(124)
    third = _draws()
    for a, b in zip(first, third, strict=True):
        assert a != b


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, True])
def test_seed_everything_rejects_bad_seeds(seed):
    with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 4294967295\]"):
        seed_everything(seed)


def test_rng_accepts_int_generator_randomstate():
    assert rng(7).random(4).tolist() == np.random.default_rng(7).random(4).tolist()
    gen = np.random.default_rng(1)
    assert rng(gen) is gen
    a = rng(np.random.RandomState(5)).random(2)
    b = rng(np.random.RandomState(5)).random(2)
    np.testing.assert_array_equal(a, b)
    assert isinstance(rng(None), np.random.Generator)
    assert isinstance(rng(np.int64(3)), np.random.Generator)


@pytest.mark.parametrize(("bad", "error"), [(-3, ValueError), ("1", TypeError), (2.0, TypeError)])
def test_rng_rejects_bad_input(bad, error):
    with pytest.raises(error, match="random_state must be"):
        rng(bad)


_CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 106
model name\t: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz
stepping\t: 6
flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512_vnni

processor\t: 1
vendor_id\t: GenuineIntel
model name\t: something else
"""


def test_cpuinfo_reads_the_first_processor_and_its_vector_flags():
    from nlpbias.core.repro import _cpuinfo

    info = _cpuinfo(_CPUINFO)
    assert info["cpu_model"] == "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"
    assert info["cpu_family_model_stepping"] == "6/106/6"
    assert info["isa"] == ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni"]
    assert _cpuinfo("")["isa"] == []


def test_machine_names_the_cpu_and_the_blas_and_torch_builds():
    import json

    from nlpbias.core.repro import machine

    info = machine()
    json.dumps(info)  # kept in notebook metadata and runs.jsonl
    assert {"cpu_model", "isa", "cpus", "numpy_blas", "torch_cpu_capability", "torch_blas"} <= set(
        info
    )
    assert info["torch_cpu_capability"] in {"DEFAULT", "AVX2", "AVX512", "NO AVX", "ZVECTOR", "VSX"}
