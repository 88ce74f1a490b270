"""device="auto" everywhere torch trains or infers: CUDA when present, CPU otherwise."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest
import torch

import nlpbias
from nlpbias.models.encoders import resolve_device


def _public_callables_with_a_device_parameter() -> dict[str, inspect.Parameter]:
    found = {}
    for info in pkgutil.walk_packages(nlpbias.__path__, prefix="nlpbias."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            target = obj.__init__ if inspect.isclass(obj) else obj
            if not callable(target):
                continue
            try:
                params = inspect.signature(target).parameters
            except (TypeError, ValueError):
                continue
            # entry points take a device *name* ("auto", "cpu", "cuda:1"); helpers that only
            # receive an already resolved torch.device are plumbing, not user-facing defaults
            if "device" in params and "str" in str(params["device"].annotation):
                found[f"{module.__name__}.{name}"] = params["device"]
    return found


DEVICE_PARAMS = _public_callables_with_a_device_parameter()


def test_the_torch_trainers_are_all_found() -> None:
    expected = {
        "nlpbias.studies.intrinsic_extrinsic.attract_repel.attract_repel",
        "nlpbias.models.cnn.CNNTextClassifier",
        "nlpbias.models.kim.KimCNNClassifier",
        "nlpbias.studies.logan.frozen.FrozenEncoderClassifier",
        "nlpbias.studies.logan.finetune.FineTunedEncoderClassifier",
        "nlpbias.studies.scoring.mlm.adapt_mlm",
        "nlpbias.studies.scoring.mlm.fine_tune_mlm",
        "nlpbias.studies.intrinsic_extrinsic.coref_model.MentionPairScorer",
    }
    missing = sorted(expected - set(DEVICE_PARAMS))
    assert not missing, f"no device parameter found on {missing}"


@pytest.mark.parametrize("name", sorted(DEVICE_PARAMS))
def test_every_public_device_parameter_defaults_to_auto(name: str) -> None:
    default = DEVICE_PARAMS[name].default
    assert default == "auto", f"{name}(device={default!r}): the default must be 'auto'"


def test_auto_is_cuda_when_present_else_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == torch.device("cuda")
    with pytest.raises(ValueError, match="device must be 'auto'"):
        resolve_device("gpu")


def test_auto_trains_on_the_cpu_here_and_matches_an_explicit_cpu() -> None:
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: 'auto' means CUDA, which this test does not compare")
    from nlpbias.models.classifiers import CNNTextClassifier

    texts = ["good day", "bad day", "good night", "bad night"] * 5
    y = np.array([0, 1, 0, 1] * 5)
    params = {"max_epochs": 2, "random_state": 0, "show_progress": False}
    auto = CNNTextClassifier(**params).fit(texts, y)
    cpu = CNNTextClassifier(device="cpu", **params).fit(texts, y)
    np.testing.assert_array_equal(auto.predict_proba(texts), cpu.predict_proba(texts))
