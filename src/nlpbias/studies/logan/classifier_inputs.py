"""Check of the MiniLM classifiers' model argument: the encoder's name or an alias of it.

Shared by the frozen-encoder (:mod:`nlpbias.studies.logan.frozen`) and the fine-tuned
(:mod:`nlpbias.studies.logan.finetune`) classifiers; each raises a one-line ``ValueError`` that
names the argument.
"""

from __future__ import annotations

from nlpbias.models.encoders import MINILM_ALIASES, MINILM_NAME

__all__ = ["check_model_name"]


def check_model_name(model: object) -> str:
    """``model`` stripped, with MiniLM's aliases mapped to its one name."""
    if not isinstance(model, str) or not model.strip():
        raise ValueError(
            f"model must be a model name or folder such as {MINILM_NAME!r}, got {model!r}"
        )
    name = model.strip()
    return MINILM_NAME if name.lower() in MINILM_ALIASES else name
