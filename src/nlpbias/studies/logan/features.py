"""Which features LOGAN clusters: the pretrained encoder's or the fine-tuned classifier's.

The paper (Zhao & Chang, 2020) clusters two feature sets of the same evaluation rows, with the
same classifier predictions (a BERT fine-tuned on the Jigsaw comments) in both:

- ``"pretrained"``: the second-to-last layer of the *pretrained* encoder, mean-pooled over the
  non-padding tokens (the main text, Tables 1-9);
- ``"fine-tuned"``: the same layer of the *fine-tuned* encoder of the classifier under audit
  (Appendix A.4, Tables 10-11).

:func:`feature_sets_for` builds them for the book's MiniLM classifiers: the classifier's own
features (:func:`nlpbias.studies.logan.study.load_logan_data` gets them with its predictions)
and the frozen MiniLM's (:func:`nlpbias.studies.logan.frozen.encoder_features`, cached on disk).
With the frozen classifier (``classifier="frozen"``) the encoder is never fine-tuned: both names
are the same array, encoded once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from nlpbias.core.checks import check_choice

__all__ = ["FEATURE_SETS", "PRETRAINED_LAYER", "check_feature_sets", "feature_sets_for"]

#: The feature sets of the real data, in the paper's words (see the module docstring).
FEATURE_SETS = ("fine-tuned", "pretrained")

#: Hidden state clustered as the pretrained features: the second-to-last layer (the paper's).
PRETRAINED_LAYER = -2

_WHAT = {
    "fine-tuned": "the classifier's encoder after fine-tuning, 2nd-to-last layer, mean-pooled "
    "(the paper's Appendix A.4, Tables 10-11)",
    "pretrained": "the pretrained (frozen) MiniLM, 2nd-to-last layer, mean-pooled (the paper's "
    "main text, Tables 1-9)",
}


def check_feature_sets(feature_sets: Sequence[str]) -> tuple[str, ...]:
    """``feature_sets`` as a tuple of distinct names of :data:`FEATURE_SETS`, at least one.

    The first is the data's main set (its ``X``).

    Examples
    --------
    >>> check_feature_sets(["pretrained", "fine-tuned"])
    ('pretrained', 'fine-tuned')
    >>> check_feature_sets(["pretrained", "pretrained"])
    Traceback (most recent call last):
    ...
    ValueError: feature_sets names 'pretrained' twice; give each of ('fine-tuned', 'pretrained') at most once
    """  # noqa: E501
    if isinstance(feature_sets, str) or not isinstance(feature_sets, Sequence):
        raise TypeError(
            f"feature_sets must be a list of names from {FEATURE_SETS}, got {feature_sets!r} "
            "(a single name goes in a list: ['fine-tuned'])"
        )
    names = tuple(check_choice(n, "feature_sets", FEATURE_SETS) for n in feature_sets)
    if not names:
        raise ValueError(f"feature_sets is empty; name at least one of {FEATURE_SETS}")
    for n in names:
        if names.count(n) > 1:
            raise ValueError(
                f"feature_sets names {n!r} twice; give each of {FEATURE_SETS} at most once"
            )
    return names


def feature_sets_for(
    texts: Sequence[str],
    classifier_X: np.ndarray,
    *,
    classifier: str,
    classifier_params: Mapping[str, Any],
    feature_sets: Sequence[str],
) -> tuple[dict[str, np.ndarray], str]:
    """The feature sets of the evaluation rows ``texts``, and a note saying which is which.

    Parameters
    ----------
    texts : sequence of str
        The evaluation rows, in the order of ``classifier_X``.
    classifier_X : numpy.ndarray, shape (len(texts), hidden_size)
        The trained classifier's own features of ``texts`` (its second-to-last layer,
        mean-pooled): the ``"fine-tuned"`` set.
    classifier : {"frozen", "finetune"}
        The classifier kind. ``"frozen"``: the encoder is the pretrained MiniLM itself, so both
        sets are ``classifier_X`` (the same array: nothing is encoded again) and the note says so.
    classifier_params : mapping
        The classifier's parameters; the pretrained features use its ``model``, ``max_length``,
        ``device`` and ``show_progress`` (the class defaults where not given).
    feature_sets : sequence of str
        Names from :data:`FEATURE_SETS` (:func:`check_feature_sets`).

    Returns
    -------
    features : dict
        Name → array, in the order of ``feature_sets``.
    note : str

    Examples
    --------
    >>> X = np.ones((2, 3))
    >>> sets, note = feature_sets_for(["a", "b"], X, classifier="frozen", classifier_params={},
    ...                               feature_sets=["fine-tuned", "pretrained"])
    >>> sets["pretrained"] is sets["fine-tuned"] is X
    True
    """
    names = check_feature_sets(feature_sets)
    check_choice(classifier, "classifier", ("frozen", "finetune"))
    items = list(texts)
    if len(classifier_X) != len(items):
        raise ValueError(
            f"classifier_X has {len(classifier_X)} rows for {len(items)} texts; pass the "
            "classifier's features of these texts, in their order"
        )
    if classifier == "frozen":
        note = (
            "the frozen classifier's encoder is the pretrained MiniLM, never fine-tuned: "
            f"{' and '.join(repr(n) for n in names)} are the same features (encoded once)"
            if len(names) > 1
            else f"{names[0]!r}: the frozen classifier's features (the pretrained MiniLM)"
        )
        return dict.fromkeys(names, classifier_X), note
    out: dict[str, np.ndarray] = {}
    for name in names:
        out[name] = classifier_X if name == "fine-tuned" else _pretrained(items, classifier_params)
    note = "; ".join(f"{n!r}: {_WHAT[n]}" for n in names) + (
        "; both cluster the same rows, and the predictions are the fine-tuned classifier's"
        if len(names) > 1
        else ""
    )
    return out, note


def _pretrained(texts: list[str], params: Mapping[str, Any]) -> np.ndarray:
    """The frozen encoder's features, with the fine-tuned classifier's encoder and lengths."""
    from nlpbias.studies.logan.finetune import FineTunedEncoderClassifier
    from nlpbias.studies.logan.frozen import encoder_features

    clf = FineTunedEncoderClassifier(**params)  # its defaults where params say nothing
    return encoder_features(
        texts,
        model=clf.model,
        layer=PRETRAINED_LAYER,
        max_length=clf.max_length,
        device=clf.device,
        show_progress=clf.show_progress,
    )
