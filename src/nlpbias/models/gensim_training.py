"""Train word2vec (SGNS) and fastText vectors with gensim on token lists (not cached).

:func:`train_word2vec_on` / :func:`train_fasttext_on` train on token lists in memory; the cached
trainers of :mod:`nlpbias.models.training` call the same :func:`fit_vectors`.
:func:`corpus_sha256` hashes token lists (the content key of the cached trainers); every returned
vector set has ``training_info["corpus_sha256"]``.

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
from collections.abc import Iterable
from typing import Any

import gensim
from gensim.models import FastText, KeyedVectors, Word2Vec
from gensim.models.callbacks import CallbackAny2Vec

from nlpbias.core.checks import check_choice, check_int, check_number
from nlpbias.core.progress import progress as progress_bar

__all__ = [
    "ALGORITHMS",
    "MAX_SENTENCE_TOKENS",
    "check_sentences",
    "corpus_sha256",
    "fit_vectors",
    "gensim_params",
    "train_fasttext_on",
    "train_word2vec_on",
]

logger = logging.getLogger(__name__)

#: gensim's per-sentence limit (``MAX_WORDS_IN_BATCH``); longer token lists are cut.
MAX_SENTENCE_TOKENS = 10_000

#: The gensim model class of each algorithm name.
ALGORITHMS = {"word2vec": Word2Vec, "fasttext": FastText}


def gensim_params(
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
    """Check the training parameters and return them as gensim keyword arguments.

    ``extra`` holds fastText's ``min_n``, ``max_n`` and ``bucket`` (all three or none).

    Examples
    --------
    >>> p = gensim_params(vector_size=8, window=5, min_count=1, sg=1, negative=5, epochs=1,
    ...                   workers=1, random_state=0, sample=0)
    >>> p["seed"], p["sample"]
    (0, 0.0)
    """
    out = {
        name: check_int(value, name, minimum=1)
        for name, value in (
            ("vector_size", vector_size),
            ("window", window),
            ("min_count", min_count),
            ("negative", negative),
            ("epochs", epochs),
            ("workers", workers),
        )
    }
    out["sg"] = int(check_choice(sg, "sg", [1, 0]))
    out["seed"] = check_int(random_state, "random_state", minimum=0, maximum=2**32 - 1)
    out["sample"] = check_number(sample, "sample", low=0.0, high=1.0, high_open=True)
    if "min_n" in extra:
        out["min_n"] = check_int(extra["min_n"], "min_n", minimum=1)
        out["max_n"] = check_int(extra["max_n"], "max_n", minimum=1)
        if out["max_n"] < out["min_n"]:
            raise ValueError(
                f"max_n must be >= min_n, got min_n={out['min_n']}, max_n={out['max_n']}"
            )
        out["bucket"] = check_int(extra["bucket"], "bucket", minimum=1)
    return out


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


def check_sentences(sentences: Iterable[list[str]]) -> list[list[str]]:
    """``sentences`` as a list of token lists (lists of str); a one-line TypeError otherwise."""
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


def fit_vectors(
    kind: str,
    sentences: list[list[str]],
    params: dict[str, Any],
    show_progress: bool,
    desc: str,
    digest: str | None = None,
) -> KeyedVectors:
    """Build the vocabulary, train, and return the model's vectors with ``training_info``.

    Parameters
    ----------
    kind : {'word2vec', 'fasttext'}
        A key of :data:`ALGORITHMS`.
    sentences : list of list of str
        Checked token lists (:func:`check_sentences`).
    params : dict
        Output of :func:`gensim_params`.
    show_progress : bool
        Show a tqdm bar over epochs.
    desc : str
        Name on the progress bar and in the log.
    digest : str, optional
        :func:`corpus_sha256` of ``sentences`` when the caller has it already.
    """
    digest = corpus_sha256(sentences) if digest is None else digest
    chunks = _chunks(sentences)
    n_tokens = sum(len(s) for s in chunks)
    model = ALGORITHMS[kind](**params, hs=0)
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
        As in :func:`nlpbias.models.training.train_word2vec`.

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
    )
    return fit_vectors("word2vec", check_sentences(sentences), params, show_progress, "word2vec")


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
    """Train fastText on token lists (not cached); parameters as in
    :func:`nlpbias.models.training.train_fasttext`.

    Parameters
    ----------
    sentences : iterable of list of str
    vector_size, window, min_count, sg, negative, epochs, workers, random_state, sample, \
min_n, max_n, bucket, show_progress
        As in :func:`nlpbias.models.training.train_fasttext`.

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
        min_n=min_n,
        max_n=max_n,
        bucket=bucket,
    )
    return fit_vectors("fasttext", check_sentences(sentences), params, show_progress, "fasttext")
