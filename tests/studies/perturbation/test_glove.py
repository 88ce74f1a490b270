"""Tests for nlpbias.studies.perturbation.glove: weighting, AdaGrad fit, loss and its per-row
derivatives."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from nlpbias.studies.perturbation import glove as glove_module
from nlpbias.studies.perturbation.glove import (
    GloVe,
    build_vocabulary,
    cooccurrence,
    encode_corpus,
    glove_weight,
)

CLUSTERS = (
    ("apple", "pear", "plum", "fig"),
    ("car", "bus", "train", "tram"),
    ("red", "blue", "green", "pink"),
)
FILLER = ("the", "of", "and", "a", "to", "in")


def planted_docs(seed: int = 0, n_docs: int = 90) -> list[list[str]]:
    """Documents about one cluster each: 70 % its words, 20 % shared filler, 10 % the others.

    GloVe's loss ignores the pairs that never co-occur, so clusters whose words *never* meet
    are not pinned apart; the rare cross-cluster co-occurrences (much weaker than the
    within-cluster ones) are what makes the planted structure identifiable.
    """
    rng = np.random.default_rng(seed)
    docs = []
    for n in range(n_docs):
        own = list(CLUSTERS[n % 3])
        others = [w for c in CLUSTERS if list(c) != own for w in c]
        words = own + others + list(FILLER)
        p = np.r_[np.full(4, 0.7 / 4), np.full(8, 0.1 / 8), np.full(6, 0.2 / 6)]
        docs.append(list(rng.choice(words, size=15, p=p)))
    return docs


@pytest.fixture(scope="module")
def planted():
    docs = planted_docs()
    vocab = build_vocabulary(docs, min_count=1, max_size=None)
    corpus = encode_corpus(docs, vocab)
    X = cooccurrence(corpus, window=3, show_progress=False)
    return vocab, corpus, X


@pytest.fixture(scope="module")
def fitted(planted):
    _, _, X = planted
    return GloVe(vector_size=5, epochs=30, show_progress=False).fit(X)


def _as_float64(model: GloVe) -> GloVe:
    """A copy of a fitted model with float64 parameters (for finite differences)."""
    m = GloVe(vector_size=model.vector_size, x_max=model.x_max, alpha=model.alpha)
    m.W_, m.U_ = model.W_.astype(np.float64), model.U_.astype(np.float64)
    m.b_, m.c_ = model.b_.astype(np.float64), model.c_.astype(np.float64)
    m.n_words_ = model.n_words_
    return m


def _loss_numpy(model: GloVe, X: sp.spmatrix) -> float:
    """Σ f(x)(wᵀu + b + c − log x)² over the non-zeros, from the dense matrix."""
    D = X.toarray()
    i, j = np.nonzero(D)
    x = D[i, j]
    f = np.minimum(1.0, (x / model.x_max) ** model.alpha)
    W, U = model.W_.astype(np.float64), model.U_.astype(np.float64)
    e = (W[i] * U[j]).sum(axis=1) + model.b_[i].astype(np.float64)
    e += model.c_[j].astype(np.float64) - np.log(x)
    return float((f * e**2).sum())


# --------------------------------------------------------------------------- weighting


def test_glove_weight_values():
    w = glove_weight([0, 1, 50, 100, 400, -3])
    expected = [0.0, 0.01**0.75, 0.5**0.75, 1.0, 1.0, 0.0]
    np.testing.assert_allclose(w, expected, rtol=1e-12)
    np.testing.assert_allclose(glove_weight([2.5, 10, 20], x_max=10, alpha=0.5), [0.5, 1, 1])
    assert glove_weight(5.0).shape == ()


# --------------------------------------------------------------------------- initialisation


def test_init_params_depend_only_on_seed_size_and_dimension():
    a = GloVe(vector_size=4, random_state=3).init_params(7)
    b = GloVe(vector_size=4, random_state=3, learning_rate=0.2, epochs=2, x_max=5).init_params(7)
    for key in ("W", "U", "b", "c"):
        np.testing.assert_array_equal(a[key], b[key])
    assert a["W"].shape == (7, 4) and a["U"].shape == (7, 4)
    assert a["b"].shape == (7,) and a["c"].shape == (7,)
    assert a["W"].dtype == np.float32
    for v in a.values():
        assert np.abs(v).max() <= 0.5 / 4
    # the reference draws W, U, b, c in that order, uniform in [-0.5, 0.5) / d
    rng = np.random.default_rng(3)
    np.testing.assert_allclose(a["W"], (rng.random((7, 4)) - 0.5) / 4, rtol=1e-6)
    other = GloVe(vector_size=4, random_state=4).init_params(7)
    assert not np.allclose(a["W"], other["W"])


def test_entry_order_is_per_entry():
    """An entry's sort key does not depend on the other entries (the refit property)."""
    entries = np.array([3, 17, 40, 41, 99, 250], dtype=np.int64)
    keys = glove_module._entry_order(entries, 5, 2)
    subset = np.array([0, 2, 3, 5])
    np.testing.assert_array_equal(glove_module._entry_order(entries[subset], 5, 2), keys[subset])
    # another epoch or seed reorders
    assert not np.array_equal(glove_module._entry_order(entries, 5, 3), keys)
    assert not np.array_equal(glove_module._entry_order(entries, 6, 2), keys)


# --------------------------------------------------------------------------- fitting


def test_fit_is_deterministic_per_seed(planted):
    _, _, X = planted
    kw = {"vector_size": 4, "epochs": 5, "batch_size": 64, "show_progress": False}
    a = GloVe(random_state=1, **kw).fit(X)
    b = GloVe(random_state=1, **kw).fit(X)
    c = GloVe(random_state=2, **kw).fit(X)
    for attr in ("W_", "U_", "b_", "c_"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    assert a.loss_ == b.loss_
    assert np.abs(a.W_ - c.W_).max() > 1e-3
    assert a.W_.shape == (X.shape[0], 4) and a.W_.dtype == np.float32
    assert a.b_.shape == (X.shape[0],) and a.n_words_ == X.shape[0]
    assert len(a.loss_) == 5 and a.fit_time_ >= 0


def test_loss_decreases_and_matches_numpy(planted, fitted):
    _, _, X = planted
    assert len(fitted.loss_) == 30
    assert fitted.loss_[-1] < 0.2 * fitted.loss_[0]
    # (rel 1e-6: the model adds the float32 biases before promoting them to float64)
    assert fitted.loss(X) == pytest.approx(_loss_numpy(fitted, X), rel=1e-6)
    # loss_[e] is the loss before epoch e's (single, full-batch) update, so the loss after
    # the last epoch is lower still
    assert fitted.loss(X) < fitted.loss_[-1]
    # the loss on the initial parameters is the first recorded loss
    start = GloVe(vector_size=5, show_progress=False)
    p = start.init_params(X.shape[0])
    start.W_, start.U_, start.b_, start.c_ = p["W"], p["U"], p["b"], p["c"]
    start.n_words_ = X.shape[0]
    assert start.loss(X) == pytest.approx(fitted.loss_[0], rel=1e-5)


def test_residuals_match_definition(planted, fitted):
    _, _, X = planted
    e = fitted.residuals(X)
    assert e.shape == X.shape and e.nnz == X.nnz
    i, j = 3, int(X[3].indices[2])
    W, U = fitted.W_.astype(np.float64), fitted.U_.astype(np.float64)
    expected = W[i] @ U[j] + float(fitted.b_[i]) + float(fitted.c_[j]) - np.log(X[i, j])
    assert e[i, j] == pytest.approx(expected, rel=1e-6, abs=1e-6)


def test_row_gradient_matches_finite_differences(planted, fitted):
    _, _, X = planted
    m = _as_float64(fitted)
    rows = [2, 9]
    grad = m.row_gradient(X, rows)
    assert grad.shape == (2, 5) and grad.dtype == np.float64
    h = 1e-5
    W0 = m.W_.copy()
    for n, i in enumerate(rows):
        fd = np.empty(5)
        for k in range(5):
            m.W_ = W0.copy()
            m.W_[i, k] += h
            up = m.loss(X)
            m.W_[i, k] -= 2 * h
            fd[k] = (up - m.loss(X)) / (2 * h)
        np.testing.assert_allclose(grad[n], fd, rtol=1e-5, atol=1e-6)
    assert np.abs(grad).max() > 1e-3  # not trivially zero


def test_row_hessian_matches_finite_differences(planted, fitted):
    _, _, X = planted
    m = _as_float64(fitted)
    rows = [0, 11]
    H = m.row_hessian(X, rows)
    assert H.shape == (2, 5, 5)
    h = 1e-4
    W0 = m.W_.copy()
    for n, i in enumerate(rows):
        fd = np.empty((5, 5))
        for k in range(5):
            m.W_ = W0.copy()
            m.W_[i, k] += h
            up = m.row_gradient(X, [i])[0]
            m.W_[i, k] -= 2 * h
            fd[:, k] = (up - m.row_gradient(X, [i])[0]) / (2 * h)
        np.testing.assert_allclose(H[n], fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(H[n], H[n].T)
        assert np.linalg.eigvalsh(H[n]).min() > 0
    m.W_ = W0


def test_planted_nearest_neighbours(planted):
    vocab, _, X = planted
    model = GloVe(vector_size=5, epochs=50, show_progress=False).fit(X)
    assert model.loss_[-1] < model.loss_[0]
    kv = model.to_keyed_vectors(vocab)
    for cluster in CLUSTERS:
        for word in cluster:
            neighbour = kv.most_similar(word, topn=1)[0][0]
            assert neighbour in cluster, (word, neighbour)
    assert kv.get_vecattr("apple", "count") == vocab.counts[vocab.index["apple"]]
    np.testing.assert_array_equal(kv["car"], model.W_[vocab.index["car"]])


@pytest.mark.parametrize("corpus_seed", [1, 2])
@pytest.mark.parametrize("seed", [0, 3])
def test_planted_nearest_neighbours_other_seeds(corpus_seed, seed):
    docs = planted_docs(corpus_seed, n_docs=60)
    vocab = build_vocabulary(docs, min_count=1, max_size=None)
    X = cooccurrence(encode_corpus(docs, vocab), window=3, show_progress=False)
    W = GloVe(vector_size=5, epochs=50, random_state=seed, show_progress=False).fit(X).W_
    W = W / np.linalg.norm(W, axis=1, keepdims=True)
    S = W @ W.T
    np.fill_diagonal(S, -np.inf)
    for cluster in CLUSTERS:
        for word in cluster:
            assert vocab.words[int(S[vocab.index[word]].argmax())] in cluster


def test_refit_without_a_document_stays_close():
    """Same seed, entries removed: close to the full fit (same start, same relative order)."""
    docs = planted_docs(0, n_docs=45)
    docs += [["omega", "sigma", "the", "of", "and"], ["omega", "apple", "sigma", "car"]]
    vocab = build_vocabulary(docs, min_count=1, max_size=None)
    corpus = encode_corpus(docs, vocab)
    X = cooccurrence(corpus, window=3, show_progress=False)
    k = len(corpus) - 1
    X_k = X - cooccurrence(corpus, window=3, documents=[k], show_progress=False)
    X_k.data[X_k.data < 1e-9] = 0.0
    X_k.eliminate_zeros()
    assert X_k.nnz < X.nnz  # the document's removal deletes entries, not only lowers them
    kw = {"vector_size": 5, "epochs": 20, "batch_size": 32, "show_progress": False}
    full = GloVe(random_state=0, **kw).fit(X)
    removed = GloVe(random_state=0, **kw).fit(X_k)
    other = GloVe(random_state=1, **kw).fit(X)
    near = np.linalg.norm(full.W_ - removed.W_)
    far = np.linalg.norm(full.W_ - other.W_)
    assert near < 0.1 * far, (near, far)


def test_divergence_raises(planted, one_line):
    _, _, X = planted
    with pytest.raises(FloatingPointError, match="learning_rate") as err:
        GloVe(vector_size=5, epochs=20, learning_rate=50, show_progress=False).fit(X)
    one_line(err)


# --------------------------------------------------------------------------- errors


def test_bad_matrices(planted, one_line):
    _, _, X = planted
    model = GloVe(vector_size=3, epochs=1, show_progress=False)
    with pytest.raises(TypeError, match="scipy.sparse") as err:
        model.fit(X.toarray())
    one_line(err)
    with pytest.raises(ValueError, match="square") as err:
        model.fit(X[:5])
    one_line(err)
    with pytest.raises(ValueError, match="non-negative") as err:
        model.fit(-X)
    one_line(err)
    with pytest.raises(ValueError, match="no co-occurrences") as err:
        model.fit(sp.csr_matrix((4, 4)))
    one_line(err)


@pytest.mark.parametrize(
    "kw",
    [
        {"vector_size": 0},
        {"epochs": 0},
        {"learning_rate": 0},
        {"x_max": -1.0},
        {"batch_size": 2.5},
        {"random_state": -1},
    ],
)
def test_bad_parameters(planted, kw, one_line):
    _, _, X = planted
    with pytest.raises(ValueError) as err:
        GloVe(**{"show_progress": False, **kw}).fit(X)
    one_line(err)


def test_unfitted_and_mismatched_model(planted, fitted, one_line):
    vocab, _, X = planted
    model = GloVe(vector_size=3)
    for call in (
        lambda: model.loss(X),
        lambda: model.residuals(X),
        lambda: model.row_gradient(X, [0]),
        lambda: model.row_hessian(X, [0]),
        lambda: model.to_keyed_vectors(vocab),
    ):
        with pytest.raises(RuntimeError, match="not fitted") as err:
            call()
        one_line(err)
    with pytest.raises(ValueError, match="same vocabulary") as err:
        fitted.loss(X[:5, :5])
    one_line(err)
    small = build_vocabulary([["a", "b"]], min_count=1, max_size=None)
    with pytest.raises(ValueError, match="vocab has 2 words") as err:
        fitted.to_keyed_vectors(small)
    one_line(err)


def _unsorted(X: sp.csr_matrix) -> sp.csr_matrix:
    """The same matrix with every row's column indices stored in reverse order."""
    Z = X.copy()
    for r in range(Z.shape[0]):
        s, e = Z.indptr[r], Z.indptr[r + 1]
        Z.indices[s:e] = Z.indices[s:e][::-1].copy()
        Z.data[s:e] = Z.data[s:e][::-1].copy()
    Z.has_sorted_indices = False
    return Z


def test_unsorted_indices_give_the_same_loss(planted, fitted):
    _, _, X = planted
    Z = _unsorted(X)
    np.testing.assert_array_equal(Z.toarray(), X.toarray())
    assert fitted.loss(Z) == pytest.approx(fitted.loss(X), rel=1e-12)
    np.testing.assert_allclose(fitted.row_gradient(Z, [1]), fitted.row_gradient(X, [1]))
