"""The perturbation study's documents: loading them, and ``prepare`` / ``Prepared``."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from perturbation_corpus import FILLER, N_DOCS, WINDOW, WORDS_PER_DOC, make_documents

from nlpbias.core.text import tokenize
from nlpbias.studies.perturbation import documents as pt
from nlpbias.studies.perturbation.cooccurrence import build_vocabulary, cooccurrence, encode_corpus


@pytest.fixture(scope="module")
def docs() -> pd.DataFrame:
    return make_documents()


@pytest.fixture(scope="module")
def prepared(docs: pd.DataFrame) -> pt.Prepared:
    return pt.prepare(docs, min_count=1, window=WINDOW, show_progress=False, max_size=None)


# --------------------------------------------------------------------------- load_documents


def test_load_documents_wiki_first_summaries() -> None:
    from nlpbias.data.corpora import load_wiki_summaries

    docs = pt.load_documents("wiki", max_documents=50, parts=[1], block_tokens=1000)
    wiki = load_wiki_summaries()
    assert list(docs.columns) == ["title", "author", "text"]
    assert docs.index.name == "document"
    assert docs.index.tolist() == list(range(50))
    assert docs["title"].tolist() == wiki.index[:50].tolist()
    assert docs["text"].tolist() == wiki.iloc[:50].tolist()
    assert (docs["author"] == "").all()


def test_load_documents_gutenberg_is_blocks(use_data_home) -> None:
    from nlpbias.data.corpora import gutenberg_documents

    docs = pt.load_documents("gutenberg", parts=[1], block_tokens=300, max_documents=7)
    ref = gutenberg_documents(parts=[1], block_tokens=300, max_documents=7)
    assert list(docs.columns) == ["title", "author", "text"]
    assert docs.index.name == "document"
    assert docs.index.tolist() == list(range(7))
    for col in ("title", "author", "text"):
        assert docs[col].tolist() == ref[col].tolist()


def test_load_documents_rejects_unknown_source(one_line) -> None:
    with pytest.raises(ValueError, match="source must be one of") as err:
        pt.load_documents("nyt", parts=[1], block_tokens=1000, max_documents=None)
    assert "wiki" in one_line(err)


# --------------------------------------------------------------------------- prepare / Prepared


def test_prepare_equals_a_direct_build(docs: pd.DataFrame, prepared: pt.Prepared) -> None:
    tokens = [tokenize(t) for t in docs["text"]]
    vocab = build_vocabulary(tokens, min_count=1, max_size=None)
    corpus = encode_corpus(tokens, vocab)
    X = cooccurrence(corpus, window=WINDOW, show_progress=False)
    assert prepared.vocab.words == vocab.words
    np.testing.assert_array_equal(prepared.vocab.counts, vocab.counts)
    np.testing.assert_array_equal(prepared.corpus.ids, corpus.ids)
    np.testing.assert_array_equal(prepared.corpus.offsets, corpus.offsets)
    assert (prepared.X != X).nnz == 0
    assert prepared.window == WINDOW
    assert prepared.documents is docs
    # lowercased: the capitalised first word of each text is in the vocabulary lowercased
    assert all(w == w.lower() for w in prepared.vocab.words)


def test_prepare_passes_min_count_and_max_size(docs: pd.DataFrame) -> None:
    tokens = [tokenize(t) for t in docs["text"]]
    p = pt.prepare(docs, min_count=20, max_size=12, window=2, show_progress=False)
    ref = build_vocabulary(tokens, min_count=20, max_size=12)
    assert p.vocab.words == ref.words
    assert len(p.vocab) == 12
    ref_X = cooccurrence(encode_corpus(tokens, ref), window=2, show_progress=False)
    assert (p.X != ref_X).nnz == 0


def test_prepare_needs_a_text_column(docs: pd.DataFrame, one_line) -> None:
    with pytest.raises(ValueError, match="'text' column") as err:
        pt.prepare(
            docs.rename(columns={"text": "body"}),
            show_progress=False,
            min_count=20,
            max_size=None,
            window=8,
        )
    one_line(err)


def test_summary_counts(prepared: pt.Prepared) -> None:
    s = prepared.summary()
    assert s.name == "value"
    assert s["documents"] == N_DOCS
    assert s["tokens (in vocabulary)"] == N_DOCS * WORDS_PER_DOC  # min_count 1: every token
    assert s["vocabulary"] == len(FILLER) + 32  # filler + the 32 words of science_arts
    assert s["non-zeros of X"] == prepared.X.nnz
    assert s["window"] == WINDOW


def test_key_names_the_corpus_and_window(docs: pd.DataFrame, prepared: pt.Prepared) -> None:
    key = prepared.key
    assert re.fullmatch(r"[0-9a-f]{16}", key)

    def prep(d, w=WINDOW):
        return pt.prepare(d, min_count=1, max_size=None, window=w, show_progress=False)

    assert prep(docs.copy()).key == key
    # metadata and punctuation/case do not change the encoded corpus
    other_meta = docs.assign(title="x", author="y", text=docs["text"].str.upper() + "!!")
    assert prep(other_meta).key == key
    changed = docs.copy()
    changed.loc[3, "text"] = " ".join(reversed(docs.loc[3, "text"].split()))  # word order
    assert prep(changed).key != key
    assert prep(docs.iloc[::-1].reset_index(drop=True)).key != key  # document order
    assert prep(docs.iloc[:-1]).key != key  # one document fewer
    assert prep(docs, w=WINDOW + 1).key != key
    assert (
        pt.prepare(docs, min_count=30, window=WINDOW, show_progress=False, max_size=None).key != key
    )
