"""A linear text classifier: TF-IDF over the project's tokens + logistic regression.

For smoke runs and as a reference point for the CNNs of :mod:`nlpbias.models.cnn` and
:mod:`nlpbias.models.kim`; :func:`linear_baseline` is also importable from
:mod:`nlpbias.models.classifiers`, whose :func:`~nlpbias.models.classifiers.make_classifier` builds
it by the name ``"linear"``.
"""

from __future__ import annotations

import math

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.text import tokenize

__all__ = ["linear_baseline"]


def linear_baseline(
    *,
    max_features: int = 20_000,
    ngram_range: tuple[int, int] = (1, 2),
    C: float = 1.0,
    random_state: int | None = None,
) -> Pipeline:
    """TF-IDF over the project's tokens (uni- and bigrams) + logistic regression.

    Fast (seconds on 20k tweets) and deterministic: a smoke-test stand-in for the CNN and a
    reference point for it.

    Parameters
    ----------
    max_features : int, default 20_000
        Most frequent n-grams kept.
    ngram_range : tuple of int, default (1, 2)
    C : float, default 1.0
        Inverse L2 regularisation strength.
    random_state : int, optional
        Passed to :class:`~sklearn.linear_model.LogisticRegression` (lbfgs does not use it).

    Returns
    -------
    sklearn.pipeline.Pipeline
        Steps ``tfidf`` (:class:`~sklearn.feature_extraction.text.TfidfVectorizer` with
        :func:`nlpbias.core.text.tokenize`, sublinear tf) and ``logreg`` (lbfgs, ``max_iter=1000``).

    Examples
    --------
    >>> clf = linear_baseline().fit(["you idiot", "nice day", "idiot", "nice"], [1, 0, 1, 0])
    >>> clf.predict(["what an idiot"]).tolist()
    [1]
    """
    check_int(max_features, "max_features", minimum=1)
    check_number(C, "C", low=0.0, high=math.inf, low_open=True, high_open=True)
    return Pipeline(
        [
            (
                "tfidf",
                TfidfVectorizer(
                    tokenizer=tokenize,
                    token_pattern=None,
                    lowercase=False,  # tokenize lower-cases
                    ngram_range=ngram_range,
                    max_features=max_features,
                    sublinear_tf=True,
                ),
            ),
            ("logreg", LogisticRegression(C=C, max_iter=1000, random_state=random_state)),
        ]
    )
