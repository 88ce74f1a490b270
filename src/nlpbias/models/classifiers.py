"""Every text classifier of the book by name, and :func:`make_classifier`, the factory.

- :class:`~nlpbias.models.cnn.CNNTextClassifier` — the CNN of Dixon et al. (2018);
- :class:`~nlpbias.models.kim.KimCNNClassifier` — Kim's (2014) sentence CNN (a subclass of the
  former: same vocabulary, embedding, masking, training loop and scikit-learn API);
- :func:`~nlpbias.models.linear.linear_baseline` — TF-IDF + logistic regression, for smoke runs
  and comparisons.

All are importable from here; each lives in its own module.
"""

from __future__ import annotations

from typing import Any, Literal

from nlpbias.core.checks import check_choice
from nlpbias.models.cnn import PAD, UNK, CNNTextClassifier
from nlpbias.models.kim import KimCNNClassifier
from nlpbias.models.linear import linear_baseline

__all__ = [
    "PAD",
    "UNK",
    "CNNTextClassifier",
    "KINDS",
    "KimCNNClassifier",
    "linear_baseline",
    "make_classifier",
]

#: The classifiers :func:`make_classifier` builds, by name.
KINDS = ("cnn", "kim", "linear")


def make_classifier(kind: Literal["cnn", "kim", "linear"] = "cnn", **kwargs: Any) -> Any:
    """A fresh classifier by name: ``"cnn"`` (:class:`~nlpbias.models.cnn.CNNTextClassifier`,
    Dixon et al.), ``"kim"`` (:class:`~nlpbias.models.kim.KimCNNClassifier`) or ``"linear"``
    (:func:`~nlpbias.models.linear.linear_baseline`).

    Parameters
    ----------
    kind : {"cnn", "kim", "linear"}
    **kwargs
        Passed to the class or function.

    Returns
    -------
    CNNTextClassifier, KimCNNClassifier or sklearn.pipeline.Pipeline

    Examples
    --------
    >>> make_classifier("linear", C=0.5).named_steps["logreg"].C
    0.5
    >>> make_classifier("kim", n_filters=10).kernel_sizes
    (3, 4, 5)
    """
    check_choice(kind, "kind", KINDS)
    if kind == "cnn":
        return CNNTextClassifier(**kwargs)
    if kind == "kim":
        return KimCNNClassifier(**kwargs)
    return linear_baseline(**kwargs)
