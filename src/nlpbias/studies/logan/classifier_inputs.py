"""Checks of the MiniLM classifiers' inputs: the encoder's name and two-class labels.

Shared by the frozen-encoder (:mod:`nlpbias.studies.logan.frozen`) and the fine-tuned
(:mod:`nlpbias.studies.logan.finetune`) classifiers; each raises a one-line ``ValueError`` that
names the argument.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nlpbias.models.encoders import MINILM_ALIASES, MINILM_NAME

__all__ = ["check_labels", "check_model_name"]


def check_model_name(model: object) -> str:
    """``model`` stripped, with MiniLM's aliases mapped to its one name."""
    if not isinstance(model, str) or not model.strip():
        raise ValueError(
            f"model must be a model name or folder such as {MINILM_NAME!r}, got {model!r}"
        )
    name = model.strip()
    return MINILM_NAME if name.lower() in MINILM_ALIASES else name


def check_labels(y: object, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Classes (sorted, exactly two) and the 0/1 target (1 = ``classes[1]``)."""
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) != n:
        raise ValueError(
            f"y must be 1-D with one label per text: X has {n} texts, y has shape {labels.shape}"
        )
    if pd.isna(labels).any():
        raise ValueError("y contains missing labels; drop those texts first")
    classes = np.unique(labels)
    if len(classes) != 2:
        raise ValueError(
            f"y must hold exactly two classes, got {len(classes)}: {classes[:5].tolist()}"
        )
    return classes, (labels == classes[1]).astype(np.int64)
