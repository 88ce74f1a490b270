"""Train word2vec and fastText vectors, cached on disk by corpus name or content.

Entry points:

- :func:`train_word2vec` / :func:`train_fasttext` take a *named corpus*
  (:data:`nlpbias.data.training_corpora.CORPORA`): the texts are read and tokenised with
  :func:`nlpbias.core.text.sentences` (one token list per document, no sentence splitting)
  inside a cached function, so the cache key is the corpus name and the parameters, not a hash
  of millions of tokens. A re-run with the same arguments returns the stored vectors; any
  changed parameter trains again. Like every cached step, the key also holds the sources of the
  shared layers (the tokenizer, the corpus reader, the gensim training code among them), the
  project's data files and the gensim version (:mod:`nlpbias.core.cache`), so editing the
  tokenizer or the training code retrains. The corpus files themselves are checked by the data
  store (sha256), not by the cache.
- :func:`train_embedding` takes token lists (e.g. a balanced copy of a named corpus) and is
  cached by content: the key is the sha256 of the tokens
  (:func:`~nlpbias.models.gensim_training.corpus_sha256`, streamed over the token lists;
  0.02-0.1 s per million tokens on the project's machine, 0.09 s for the 0.9M-token ``tweets``
  corpus, against about 2 s to read and tokenise it), the algorithm, the parameters and the
  code. Equal token lists hit the cache however they were built; one changed token
  trains again.

Training on token lists without the cache is :mod:`nlpbias.models.gensim_training`
(:func:`~nlpbias.models.gensim_training.train_word2vec_on`, ``train_fasttext_on``), which also
says how the vectors are seeded and which gensim settings are used.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from gensim.models import KeyedVectors

from nlpbias.core.cache import cached
from nlpbias.core.checks import check_bool, check_choice, check_int
from nlpbias.data.training_corpora import corpus_sentences, corpus_spec, resolve_corpus
from nlpbias.models.gensim_training import (
    ALGORITHMS,
    check_sentences,
    corpus_sha256,
    fit_vectors,
    gensim_params,
)

__all__ = [
    "train_embedding",
    "train_fasttext",
    "train_word2vec",
]

logger = logging.getLogger(__name__)


@cached(ignore=("show_progress",))
def _train_named(
    kind: str,
    spec: str,
    max_docs: int | None,
    lowercase: bool,
    params: dict[str, Any],
    show_progress: bool,
) -> KeyedVectors:
    start = time.perf_counter()
    sents = corpus_sentences(spec, max_docs=max_docs, lowercase=lowercase)
    tokenize_seconds = time.perf_counter() - start
    logger.info("%s: %d documents tokenised in %.1f s", spec, len(sents), tokenize_seconds)
    kv = fit_vectors(kind, sents, params, show_progress, desc=f"{kind} on {spec}")
    kv.training_info.update(
        corpus=spec,
        max_docs=max_docs,
        lowercase=lowercase,
        tokenize_seconds=round(tokenize_seconds, 2),
    )
    return kv


def _named(kind: str, corpus: str, max_docs: int | None, lowercase: bool, **kw: Any) -> Any:
    spec = corpus_spec(corpus)
    if max_docs is not None:
        check_int(max_docs, "max_docs", minimum=1)
    lowercase = check_bool(lowercase, "lowercase")
    show = kw.pop("show_progress")
    params = gensim_params(**kw)
    spec = resolve_corpus(spec)  # for 'tweets', the sources present are part of the cache key
    return _train_named(kind, spec, max_docs, lowercase, params, show)


def train_word2vec(
    corpus: str,
    *,
    max_docs: int | None = None,
    lowercase: bool = True,
    vector_size: int = 100,
    window: int = 5,
    min_count: int = 5,
    sg: int = 1,
    negative: int = 5,
    epochs: int = 5,
    workers: int = 1,
    random_state: int = 0,
    sample: float = 1e-3,
    show_progress: bool = True,
) -> KeyedVectors:
    """Train word2vec on a named corpus, cached on disk by name and parameters.

    Parameters
    ----------
    corpus : str
        ``'wiki_summaries'``, ``'gutenberg:1'`` (parts 1-3, e.g. ``'gutenberg:1,2'``) or
        ``'tweets'`` (or ``'tweets:S'``); see :data:`nlpbias.data.training_corpora.CORPORA`.
        Gutenberg and the tweets need the data home (``$NLPBIAS_DATA``). For ``'tweets'`` the
        sources present in the data home are part of the cache key (``training_info["corpus"]``
        names them, e.g. ``'tweets:trump,davidson,mlma'``).
    max_docs : int, optional
        Use only the first ``max_docs`` documents (summaries, paragraphs or tweets).
    lowercase : bool, default True
        Lower-case tokens (then look words up in lower case).
    vector_size : int, default 100
    window : int, default 5
        Maximum distance between a word and its context word.
    min_count : int, default 5
        Words seen fewer times are dropped from the vocabulary.
    sg : {1, 0}, default 1
        1 = skip-gram (SGNS), 0 = CBOW.
    negative : int, default 5
        Negative samples per positive pair.
    epochs : int, default 5
    workers : int, default 1
        Training threads. Only ``workers=1`` is reproducible; more threads are faster but the
        vectors vary slightly between runs.
    random_state : int, default 0
        gensim's seed.
    sample : float, default 1e-3
        Sub-sampling threshold: a word of corpus frequency ``f`` is kept with probability
        ``(sqrt(f / sample) + 1) * sample / f``; 0 keeps every token.
    show_progress : bool, default True
        Show a tqdm bar over epochs (not part of the cache key).

    Returns
    -------
    gensim.models.KeyedVectors
        The word vectors, with a ``training_info`` dict (corpus, documents, tokens,
        vocabulary size, seconds spent tokenising and training, parameters, gensim version)
        from the run that produced them. Corpus counts are kept:
        ``kv.get_vecattr(word, "count")``.

    Examples
    --------
    >>> kv = train_word2vec("wiki_summaries", epochs=1)  # doctest: +SKIP
    >>> kv.training_info["vocab_size"]  # doctest: +SKIP
    """
    return _named(
        "word2vec",
        corpus,
        max_docs,
        lowercase,
        vector_size=vector_size,
        window=window,
        min_count=min_count,
        sg=sg,
        negative=negative,
        epochs=epochs,
        workers=workers,
        random_state=random_state,
        sample=sample,
        show_progress=show_progress,
    )


def train_fasttext(
    corpus: str,
    *,
    max_docs: int | None = None,
    lowercase: bool = True,
    vector_size: int = 100,
    window: int = 5,
    min_count: int = 5,
    sg: int = 1,
    negative: int = 5,
    epochs: int = 5,
    workers: int = 1,
    random_state: int = 0,
    sample: float = 1e-3,
    min_n: int = 3,
    max_n: int = 6,
    bucket: int = 200_000,
    show_progress: bool = True,
) -> KeyedVectors:
    """Train fastText on a named corpus, cached on disk by name and parameters.

    Same parameters as :func:`train_word2vec`, plus the character n-gram settings.

    Parameters
    ----------
    corpus, max_docs, lowercase, vector_size, window, min_count, sg, negative, epochs, \
workers, random_state, sample, show_progress
        As in :func:`train_word2vec`.
    min_n, max_n : int, default 3 and 6
        Lengths of the character n-grams.
    bucket : int, default 200_000
        Hash buckets for n-gram vectors (gensim's default is 2,000,000, i.e. 800 MB at 100
        dimensions; 200,000 keeps the cached vectors near 80 MB).

    Returns
    -------
    gensim.models.fasttext.FastTextKeyedVectors
        With ``training_info``. Note: ``word in kv`` is True for *any* word (fastText builds
        vectors for unseen words from n-grams); test vocabulary membership with
        ``kv.has_index_for(word)`` or ``word in kv.key_to_index``.

    Examples
    --------
    >>> kv = train_fasttext("wiki_summaries", epochs=1)  # doctest: +SKIP
    """
    return _named(
        "fasttext",
        corpus,
        max_docs,
        lowercase,
        vector_size=vector_size,
        window=window,
        min_count=min_count,
        sg=sg,
        negative=negative,
        epochs=epochs,
        workers=workers,
        random_state=random_state,
        sample=sample,
        min_n=min_n,
        max_n=max_n,
        bucket=bucket,
        show_progress=show_progress,
    )


@cached(ignore=("sentences", "show_progress"))
def _train_hashed(
    kind: str,
    digest: str,
    params: dict[str, Any],
    sentences: list[list[str]],
    show_progress: bool,
) -> KeyedVectors:
    # the key holds (kind, digest, params) and the code: the token lists enter only via digest
    return fit_vectors(kind, sentences, params, show_progress, kind, digest=digest)


def train_embedding(
    sentences: Iterable[list[str]],
    *,
    algorithm: str = "word2vec",
    vector_size: int = 100,
    window: int = 5,
    min_count: int = 5,
    sg: int = 1,
    negative: int = 5,
    epochs: int = 5,
    workers: int = 1,
    random_state: int = 0,
    sample: float = 1e-3,
    min_n: int | None = None,
    max_n: int | None = None,
    bucket: int | None = None,
    show_progress: bool = True,
) -> KeyedVectors:
    """Train word2vec or fastText on token lists, cached on disk by their content.

    The cache key is the sha256 of the token lists
    (:func:`~nlpbias.models.gensim_training.corpus_sha256`), the algorithm, the parameters and
    the shared layers' sources and the gensim version (:mod:`nlpbias.core.cache`). So every
    modified corpus (e.g. each dataset-balancing level) gets its own entry, and calling again
    with equal token lists, however they were built, returns the stored vectors without
    training.

    Parameters
    ----------
    sentences : iterable of list of str
        E.g. :func:`~nlpbias.data.training_corpora.corpus_sentences` of a named corpus, after
        balancing; read into memory once.
    algorithm : {'word2vec', 'fasttext'}, default 'word2vec'
    vector_size, window, min_count, sg, negative, epochs, workers, random_state, sample, \
show_progress
        As in :func:`train_word2vec` (``show_progress`` is not part of the key).
    min_n, max_n, bucket : int, optional
        fastText only (defaults 3, 6 and 200,000, as in :func:`train_fasttext`); an error with
        ``algorithm='word2vec'``.

    Returns
    -------
    gensim.models.KeyedVectors
        With ``training_info`` (including ``corpus_sha256``) from the run that produced them.

    Examples
    --------
    >>> sents = [["he", "is", "a", "doctor"], ["she", "is", "a", "nurse"]] * 50
    >>> kv = train_embedding(sents, vector_size=8, min_count=1, show_progress=False)
    >>> kv.training_info["corpus_sha256"] == corpus_sha256(sents)
    True
    """
    check_choice(algorithm, "algorithm", ALGORITHMS)
    ngram = {"min_n": min_n, "max_n": max_n, "bucket": bucket}
    if algorithm == "word2vec":
        given = [k for k, v in ngram.items() if v is not None]
        if given:
            raise ValueError(f"{given} apply to fastText only; pass algorithm='fasttext'")
        extra: dict[str, int] = {}
    else:
        defaults = {"min_n": 3, "max_n": 6, "bucket": 200_000}
        extra = {k: defaults[k] if v is None else v for k, v in ngram.items()}
    params = gensim_params(
        vector_size=vector_size,
        window=window,
        min_count=min_count,
        sg=sg,
        negative=negative,
        epochs=epochs,
        workers=workers,
        random_state=random_state,
        sample=sample,
        **extra,
    )
    sents = check_sentences(sentences)
    start = time.perf_counter()
    digest = corpus_sha256(sents)
    logger.debug(
        "corpus sha256 of %d token lists in %.2f s", len(sents), time.perf_counter() - start
    )
    return _train_hashed(algorithm, digest, params, sents, show_progress)
