"""What LOGAN's clusters are about: the top words of each cluster's main LDA topic."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int
from nlpbias.studies.logan.group_metrics import check_vector

__all__ = ["topic_words"]

#: Tokens for topic words: two or more characters, starting with a letter.
_WORD_PATTERN = r"(?u)\b[^\W\d_]\w+\b"


def topic_words(
    texts: Sequence[str],
    labels: Any,
    *,
    clusters: Iterable[int] | None = None,
    n_words: int = 10,
    n_topics: int = 1,
    stop_words: str | Iterable[str] | None = "english",
    exclude: Iterable[str] = (),
    random_state: int | None,
) -> pd.DataFrame:
    """Top words of each cluster's main LDA topic, with ``exclude`` (group words) removed.

    One :class:`~sklearn.decomposition.LatentDirichletAllocation` is fitted per cluster on that
    cluster's texts; with ``n_topics > 1`` the topic with the largest total weight over the
    cluster's documents is the cluster's main topic. ``exclude`` terms are tokenised like the
    texts and added to the stop words, so they never reach the model.

    Returns
    -------
    pandas.DataFrame
        Columns ``cluster, rank, word, weight`` (weight: the word's probability in the topic).

    Examples
    --------
    >>> texts = ["black cats purr", "white cats purr", "dogs bark loudly", "dogs bark"]
    >>> t = topic_words(texts, [0, 0, 1, 1], n_words=2, exclude=["black", "white"],
    ...                 random_state=0)
    >>> sorted(t.loc[t.cluster == 0, "word"])
    ['cats', 'purr']
    """
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

    texts = list(texts)
    labels = check_vector(labels, "labels", None)
    if len(labels) != len(texts):
        raise ValueError(
            f"labels has {len(labels)} rows but texts has {len(texts)}; pass one label per text"
        )
    check_int(n_words, "n_words", minimum=1)
    check_int(n_topics, "n_topics", minimum=1)
    if isinstance(exclude, str):
        raise TypeError("exclude must be a list of words, got a str; wrap it in a list")
    analyzer = CountVectorizer(token_pattern=_WORD_PATTERN).build_analyzer()
    stops = set(ENGLISH_STOP_WORDS) if stop_words == "english" else set(stop_words or ())
    stops |= {tok for term in exclude for tok in analyzer(term)}
    clusters = np.unique(labels) if clusters is None else list(clusters)
    rows = []
    for c in clusters:
        docs = [t for t, lab in zip(texts, labels, strict=True) if lab == c]
        if not docs:
            raise ValueError(f"cluster {c!r} has no texts; pass clusters present in labels")
        # words start with a letter: drops numbers such as the codes of HTML entities ('&#128514;')
        vec = CountVectorizer(stop_words=sorted(stops) or None, token_pattern=_WORD_PATTERN)
        try:
            counts = vec.fit_transform(docs)
        except ValueError:
            raise ValueError(
                f"cluster {c!r} has no words left after stop words; check texts or exclude"
            ) from None
        lda = LatentDirichletAllocation(n_components=n_topics, random_state=random_state)
        doc_topic = lda.fit_transform(counts)
        topic = lda.components_[int(np.argmax(doc_topic.sum(axis=0)))]
        prob = topic / topic.sum()
        vocab = vec.get_feature_names_out()
        for rank, j in enumerate(np.argsort(-prob, kind="stable")[:n_words]):
            rows.append((c, rank, str(vocab[j]), float(prob[j])))
    return pd.DataFrame(rows, columns=["cluster", "rank", "word", "weight"])
