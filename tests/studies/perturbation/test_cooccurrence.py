"""Tests for nlpbias.studies.perturbation.cooccurrence: vocabulary, encoding, per-document
co-occurrences."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from nlpbias.studies.perturbation import cooccurrence as cm
from nlpbias.studies.perturbation.cooccurrence import (
    build_vocabulary,
    cooccurrence,
    document_rows,
    encode_corpus,
)


def _brute_force(docs_ids: list[list[int]], V: int, window: int) -> np.ndarray:
    """The co-occurrence matrix by a double loop over the token pairs of each document."""
    X = np.zeros((V, V))
    for ids in docs_ids:
        for p in range(len(ids)):
            for q in range(p + 1, min(len(ids), p + window + 1)):
                X[ids[p], ids[q]] += 1.0 / (q - p)
                X[ids[q], ids[p]] += 1.0 / (q - p)
    return X


def _random_docs(seed: int = 0, n_docs: int = 7) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(9)]
    lengths = [0, 1, 2, 5, 11, 17, 8, 3, 12, 6][:n_docs]
    docs = [list(rng.choice(words, size=n)) for n in lengths]
    docs[4].insert(3, "oov")  # occurs once: out of the vocabulary with min_count=2
    docs[5][6:6] = ["oov2", "oov3"]
    return docs


@pytest.fixture
def corpus():
    docs = _random_docs()
    vocab = build_vocabulary(docs, min_count=2, max_size=None)
    return docs, vocab, encode_corpus(docs, vocab)


def _in_vocab_ids(docs, vocab) -> list[list[int]]:
    return [[vocab.index[t] for t in doc if t in vocab] for doc in docs]


# --------------------------------------------------------------------------- vocabulary


def test_vocabulary_order_counts_and_ids():
    docs = [["b", "a", "c", "b"], ["c", "a", "d", "b"], ["e"]]
    v = build_vocabulary(docs, min_count=1, max_size=None)
    # b: 3; a, c: 2 (tie broken by the word); d, e: 1
    assert v.words == ("b", "a", "c", "d", "e")
    assert v.counts.tolist() == [3, 2, 2, 1, 1]
    assert len(v) == 5
    assert "d" in v and "z" not in v
    assert v.ids(["e", "z", "b"]).tolist() == [4, -1, 0]
    assert v.index == {"b": 0, "a": 1, "c": 2, "d": 3, "e": 4}


def test_vocabulary_min_count_and_max_size():
    docs = [["b", "a", "c", "b"], ["c", "a", "d", "b"], ["e"]]
    assert build_vocabulary(docs, min_count=2, max_size=None).words == ("b", "a", "c")
    assert build_vocabulary(docs, min_count=3, max_size=None).words == ("b",)
    v = build_vocabulary(docs, min_count=1, max_size=2)
    assert v.words == ("b", "a")
    assert v.counts.tolist() == [3, 2]
    # max_size larger than the vocabulary keeps everything
    assert len(build_vocabulary(docs, min_count=1, max_size=50)) == 5


def test_vocabulary_nothing_survives(one_line):
    with pytest.raises(ValueError, match="min_count=4") as err:
        build_vocabulary([["a", "b", "a"]], min_count=4, max_size=None)
    one_line(err)
    with pytest.raises(ValueError, match="min_count") as err:
        build_vocabulary([], min_count=1, max_size=None)
    one_line(err)


@pytest.mark.parametrize("kw", [{"min_count": 0}, {"min_count": True}, {"max_size": 0}])
def test_vocabulary_bad_parameters(kw, one_line):
    with pytest.raises(ValueError) as err:
        build_vocabulary([["a"]], **{"min_count": 1, "max_size": None, **kw})
    one_line(err)


def test_string_document_rejected(one_line):
    with pytest.raises(TypeError, match="document 1") as err:
        build_vocabulary([["a"], "a b"], min_count=1, max_size=None)
    one_line(err)
    v = build_vocabulary([["a"]], min_count=1, max_size=None)
    with pytest.raises(TypeError, match="document 0") as err:
        encode_corpus(["a a"], v)
    one_line(err)


# --------------------------------------------------------------------------- corpus


def test_encode_corpus_drops_oov_before_windowing():
    docs = [["a", "z", "b", "y", "c"], ["a", "b", "c", "a"], ["c", "b"]]
    v = build_vocabulary(docs, min_count=2, max_size=None)
    assert v.words == ("a", "b", "c")
    c = encode_corpus(docs, v)
    assert c.ids.tolist() == [0, 1, 2, 0, 1, 2, 0, 2, 1]
    assert c.offsets.tolist() == [0, 3, 7, 9]
    assert c.lengths().tolist() == [3, 4, 2]
    assert len(c) == 3 and c.n_tokens == 9
    assert c.document(1).tolist() == [0, 1, 2, 0]
    # Document 0 alone, window 1: a-b and b-c are adjacent once "z" and "y" are gone
    # (with the OOV tokens kept as gaps, nothing would be within distance 1).
    X0 = cooccurrence(c, window=1, documents=[0], show_progress=False).toarray()
    np.testing.assert_array_equal(X0, [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    # window 2 adds a-c at distance 2
    X0 = cooccurrence(c, window=2, documents=[0], show_progress=False).toarray()
    np.testing.assert_array_equal(X0, [[0, 1, 0.5], [1, 0, 1], [0.5, 1, 0]])


def test_hand_computed_matrix_with_repeated_word():
    # a b c a, window 3: a-b 1, a-c 1/2, a-a 1/3 (counted both ways: 2/3 on the diagonal),
    # b-c 1, b-a 1/2, c-a 1 -> X[a,b] = 1 + 1/2, X[a,c] = 1/2 + 1, X[b,c] = 1
    v = build_vocabulary([["a", "b", "c", "a"]], min_count=1, max_size=None)
    c = encode_corpus([["a", "b", "c", "a"]], v)
    X = cooccurrence(c, window=3, show_progress=False)
    expected = np.array([[2 / 3, 1.5, 1.5], [1.5, 0, 1], [1.5, 1, 0]])
    np.testing.assert_allclose(X.toarray(), expected, rtol=1e-12)
    assert X.dtype == np.float64 and sp.isspmatrix_csr(X)
    assert X.has_sorted_indices


def test_subset_keeps_the_given_order(corpus):
    _, _, c = corpus
    sub = c.subset([4, 1])
    assert len(sub) == 2
    assert sub.document(0).tolist() == c.document(4).tolist()
    assert sub.document(1).tolist() == c.document(1).tolist()
    assert sub.n_tokens == len(c.document(4)) + len(c.document(1))
    assert len(c.subset([])) == 0


# --------------------------------------------------------------------------- co-occurrence


@pytest.mark.parametrize("window", [1, 3, 8])
def test_cooccurrence_equals_brute_force(corpus, window):
    docs, vocab, c = corpus
    X = cooccurrence(c, window=window, show_progress=False)
    expected = _brute_force(_in_vocab_ids(docs, vocab), len(vocab), window)
    assert expected.sum() > 0
    np.testing.assert_allclose(X.toarray(), expected, rtol=1e-12, atol=0)
    # symmetric (up to the order in which the 1/d terms are summed)
    assert (X != 0).toarray().tolist() == (X.T != 0).toarray().tolist()
    np.testing.assert_allclose(X.toarray(), X.T.toarray(), rtol=1e-14)


def test_cooccurrence_small_chunks_equal_brute_force(corpus, monkeypatch):
    """Chunking (cut at document boundaries) does not change the result."""
    docs, vocab, c = corpus
    monkeypatch.setattr(cm, "_CHUNK_TOKENS", 4)
    X = cooccurrence(c, window=3, show_progress=False)
    expected = _brute_force(_in_vocab_ids(docs, vocab), len(vocab), 3)
    np.testing.assert_allclose(X.toarray(), expected, rtol=1e-12)


def test_windows_never_cross_documents():
    v = build_vocabulary([["a", "b"]], min_count=1, max_size=None)
    c = encode_corpus([["a", "a"], ["b", "b"], ["a"], ["b"]], v)
    X = cooccurrence(c, window=8, show_progress=False).toarray()
    # only a-a (doc 0) and b-b (doc 1), never a-b across the boundaries
    np.testing.assert_array_equal(X, [[2.0, 0.0], [0.0, 2.0]])


def test_sum_of_document_matrices_is_x(corpus):
    _, _, c = corpus
    X = cooccurrence(c, window=3, show_progress=False)
    total = sum(
        cooccurrence(c, window=3, documents=[k], show_progress=False) for k in range(len(c))
    )
    np.testing.assert_allclose(total.toarray(), X.toarray(), rtol=1e-12, atol=1e-12)
    # and the complement: X minus a document equals the matrix of the other documents
    rest = cooccurrence(c, window=3, documents=[0, 1, 2, 3, 5, 6], show_progress=False)
    minus = X - cooccurrence(c, window=3, documents=[4], show_progress=False)
    np.testing.assert_allclose(minus.toarray(), rest.toarray(), atol=1e-12)


def test_empty_selection_gives_zero_matrix(corpus):
    _, vocab, c = corpus
    X = cooccurrence(c, window=3, documents=[], show_progress=False)
    assert X.shape == (len(vocab), len(vocab)) and X.nnz == 0


# --------------------------------------------------------------------------- document rows


def test_document_rows_blocks_and_sums(corpus):
    _, vocab, c = corpus
    rows = np.array([3, 0, 5])
    R, V = rows.size, len(vocab)
    out = document_rows(c, rows, window=3)
    assert out.shape == (len(c) * R, V)
    X = cooccurrence(c, window=3, show_progress=False)
    for k in range(len(c)):
        Xk = cooccurrence(c, window=3, documents=[k], show_progress=False)
        np.testing.assert_allclose(
            out[k * R : (k + 1) * R].toarray(), Xk[rows].toarray(), rtol=1e-12, atol=0
        )
    summed = sum(out[k * R : (k + 1) * R] for k in range(len(c)))
    np.testing.assert_allclose(summed.toarray(), X[rows].toarray(), rtol=1e-12, atol=1e-12)


def test_document_rows_hand_computed():
    v = build_vocabulary([["a", "b", "c"]], min_count=1, max_size=None)
    c = encode_corpus([["a", "b", "a"], ["c", "a"]], v)
    out = document_rows(c, [0], window=2).toarray()
    # doc 0: a-b 1 twice, a-a 1/2 both ways; doc 1: a-c 1
    np.testing.assert_allclose(out, [[1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])


def test_document_rows_groups(corpus):
    _, vocab, c = corpus
    rows = np.array([1, 2])
    R = rows.size
    groups = np.array([1, -1, 0, 1, 0, -1, 1])
    out = document_rows(c, rows, window=3, groups=groups)
    assert out.shape == (2 * R, len(vocab))
    for g in (0, 1):
        members = np.flatnonzero(groups == g)
        Xg = cooccurrence(c, window=3, documents=members, show_progress=False)
        np.testing.assert_allclose(
            out[g * R : (g + 1) * R].toarray(), Xg[rows].toarray(), rtol=1e-12, atol=1e-12
        )
    # all documents left out: no group at all
    none = document_rows(c, rows, window=3, groups=np.full(len(c), -1))
    assert none.shape == (0, len(vocab))


def test_document_rows_errors(corpus, one_line):
    _, vocab, c = corpus
    with pytest.raises(ValueError, match="repeat") as err:
        document_rows(c, [1, 2, 1], window=8)
    one_line(err)
    with pytest.raises(IndexError, match="rows") as err:
        document_rows(c, [0, len(vocab)], window=8)
    one_line(err)
    with pytest.raises(ValueError, match="groups") as err:
        document_rows(c, [0], groups=[0, 1], window=8)
    one_line(err)
    with pytest.raises(ValueError, match="window") as err:
        document_rows(c, [0], window=0)
    one_line(err)


@pytest.mark.parametrize("window", [0, -2, 1.5, True, "3"])
def test_bad_window(corpus, window, one_line):
    _, _, c = corpus
    with pytest.raises(ValueError, match="window") as err:
        cooccurrence(c, window=window, show_progress=False)
    one_line(err)


@pytest.mark.parametrize("documents", [[len(_random_docs())], [-1], [0, 99]])
def test_out_of_range_document(corpus, documents, one_line):
    _, _, c = corpus
    with pytest.raises(IndexError, match="document indices") as err:
        cooccurrence(c, window=3, documents=documents, show_progress=False)
    one_line(err)
