"""Tests for nlpbias.studies.perturbation.kernels: the compiled loops give the reference's numbers.

The GloVe engines must agree bit for bit (same parameters, same losses); the co-occurrence
engines to the last bit of a float64 sum; the epoch order must be numpy's argsort exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from nlpbias.studies.perturbation import glove as glove_module
from nlpbias.studies.perturbation import kernels
from nlpbias.studies.perturbation.cooccurrence import (
    build_vocabulary,
    cooccurrence,
    encode_corpus,
)
from nlpbias.studies.perturbation.glove import GloVe

pytest.importorskip("numba", reason="the compiled engine needs numba (requirements.txt)")


def _docs(seed: int, n_docs: int = 60, vocab_size: int = 40) -> list[list[str]]:
    """Documents of Zipf-distributed words and varied lengths (some empty, some of one word)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab_size + 1)
    words = np.array([f"w{i}" for i in range(vocab_size)])
    lengths = rng.integers(0, 40, size=n_docs)
    lengths[:3] = [0, 1, 2]
    return [list(rng.choice(words, size=int(n), p=p / p.sum())) for n in lengths]


@pytest.fixture(scope="module")
def corpus():
    docs = _docs(0)
    return encode_corpus(docs, build_vocabulary(docs, min_count=2, max_size=None))


def _params(model: GloVe) -> dict[str, np.ndarray]:
    return {k: getattr(model, k) for k in ("W_", "U_", "b_", "c_")}


def _assert_identical(a: GloVe, b: GloVe) -> None:
    for key, value in _params(a).items():
        np.testing.assert_array_equal(getattr(b, key), value, err_msg=key)
        assert getattr(b, key).dtype == value.dtype
    assert a.loss_ == b.loss_


# --------------------------------------------------------------------------- GloVe engines


@pytest.mark.parametrize(
    ("vector_size", "batch_size", "epochs", "seed"),
    [
        (5, 64, 6, 0),  # many batches, the last one short
        (8, 7, 3, 3),  # tiny batches
        (13, 100_000, 4, 1),  # one batch holds every entry (full-batch AdaGrad)
        (50, 333, 3, 2),  # the chapter's dimension; a batch size that divides nothing
    ],
)
def test_numba_engine_is_bit_identical_to_numpy(corpus, vector_size, batch_size, epochs, seed):
    X = cooccurrence(corpus, window=4, engine="numpy", show_progress=False)
    kw = {
        "vector_size": vector_size,
        "batch_size": batch_size,
        "epochs": epochs,
        "learning_rate": 0.05,
        "random_state": seed,
        "show_progress": False,
    }
    ref = GloVe(engine="numpy", **kw).fit(X)
    fast = GloVe(engine="numba", **kw).fit(X)
    _assert_identical(ref, fast)
    # and the fit learned something (the comparison is not between two untouched starts)
    start = GloVe(**kw).init_params(X.shape[0])["W"]
    assert np.abs(fast.W_ - start).max() > 1e-3


def test_numba_engine_matches_after_removing_documents(corpus):
    """The retraining check refits a matrix with entries removed: same agreement there."""
    keep = np.setdiff1d(np.arange(len(corpus)), [5, 9, 20])
    X = cooccurrence(corpus, window=8, documents=keep, engine="numpy", show_progress=False)
    kw = {"vector_size": 6, "batch_size": 50, "epochs": 5, "learning_rate": 0.2}
    ref = GloVe(engine="numpy", show_progress=False, **kw).fit(X)
    fast = GloVe(engine="auto", show_progress=False, **kw).fit(X)
    _assert_identical(ref, fast)


def test_a_wrong_kernel_would_be_caught(corpus, monkeypatch):
    """The comparison above is sharp: the same sums in another order fail it."""
    X = cooccurrence(corpus, window=4, engine="numpy", show_progress=False)
    kw = {"vector_size": 5, "batch_size": 64, "epochs": 3, "show_progress": False}
    ref = GloVe(engine="numpy", **kw).fit(X)
    records = kernels.epoch_records

    def shuffled_within_batches(recs, V, salt, batch_size, out):
        """The right batches, their entries in another order (rows' sums reordered)."""
        records(recs, V, salt, batch_size, out)
        for s in range(0, out.shape[0], batch_size):
            part = out[s : s + batch_size]
            part[:] = part[np.lexsort((-part[:, 1], part[:, 0]))]  # columns descending

    monkeypatch.setattr(kernels, "epoch_records", shuffled_within_batches)
    wrong = GloVe(engine="numba", **kw).fit(X)
    assert not all(np.array_equal(getattr(wrong, k), v) for k, v in _params(ref).items())
    assert np.abs(wrong.W_ - ref.W_).max() < 1e-4  # ... though by rounding only


def test_engine_parameter(corpus, one_line, monkeypatch):
    X = cooccurrence(corpus, window=4, show_progress=False)
    assert GloVe().get_params()["engine"] == "auto"
    assert GloVe(engine="numpy")._engine() == "numpy"
    with pytest.raises(ValueError, match="engine") as err:
        GloVe(engine="cuda", epochs=1, show_progress=False).fit(X)
    one_line(err)
    monkeypatch.setattr(kernels, "AVAILABLE", False)
    assert GloVe()._engine() == "numpy"
    with pytest.raises(ImportError, match="numba") as err:
        GloVe(engine="numba", epochs=1, show_progress=False).fit(X)
    one_line(err)


# --------------------------------------------------------------------------- epoch order


@pytest.mark.parametrize("n", [1, 2, 1000, 60_000])
@pytest.mark.parametrize("batch_size", [1, 8192, 977])
def test_epoch_records_are_argsort_then_sorted_batches(n, batch_size):
    rng = np.random.default_rng(n)
    V = 40_000
    entry = np.sort(rng.choice(V * V, size=n, replace=False)).astype(np.int64)
    rows, cols = entry // V, entry % V
    records = kernels.pack_entries(rows, cols, rng.random(n), rng.random(n))
    for seed, epoch in ((0, 0), (4, 7)):
        # (60,000 keys: some batch boundaries fall inside a 16-bit bucket, as on real data)
        expected = np.argsort(glove_module._entry_order(entry, seed, epoch))
        for s in range(0, n, batch_size):
            expected[s : s + batch_size].sort()
        salt = glove_module._splitmix64(np.array([seed * 1_000_003 + epoch], dtype=np.uint64))
        out = np.empty_like(records)
        kernels.epoch_records(records, V, salt[0], batch_size, out)
        np.testing.assert_array_equal(out, records[expected])


# --------------------------------------------------------------------------- co-occurrence


@pytest.mark.parametrize("window", [1, 2, 8])
def test_cooccurrence_engines_agree(corpus, window):
    ref = cooccurrence(corpus, window=window, engine="numpy", show_progress=False)
    fast = cooccurrence(corpus, window=window, engine="numba", show_progress=False)
    assert fast.has_canonical_format and fast.dtype == np.float64
    np.testing.assert_array_equal(fast.indptr, ref.indptr)
    np.testing.assert_array_equal(fast.indices, ref.indices)
    np.testing.assert_array_equal(fast.data, ref.data)
    # on a subset of the documents, too (what retraining builds)
    keep = np.arange(1, len(corpus), 3)
    sub_ref = cooccurrence(corpus, window=window, documents=keep, engine="numpy")
    sub = cooccurrence(corpus, window=window, documents=keep, engine="numba")
    np.testing.assert_array_equal(sub.indices, sub_ref.indices)
    np.testing.assert_array_equal(sub.data, sub_ref.data)


def test_cooccurrence_engine_on_edge_corpora(one_line):
    vocab = build_vocabulary([["a", "b", "a"]], min_count=1, max_size=None)
    empty = encode_corpus([[], []], vocab)
    X = cooccurrence(empty, engine="numba", window=8)
    assert X.shape == (2, 2) and X.nnz == 0
    same = encode_corpus([["a", "a", "a"]], vocab)  # the diagonal: 2 (1/1 + 1/1) + 2 (1/2)
    np.testing.assert_allclose(
        cooccurrence(same, window=2, engine="numba").toarray(), [[5, 0], [0, 0]]
    )
    with pytest.raises(ValueError, match="engine") as err:
        cooccurrence(same, engine="gpu", window=8)
    one_line(err)


def test_cooccurrence_entries_are_correctly_rounded():
    """Each entry is Σ 1/d rounded once (exact integer sums), whatever the engine."""
    from fractions import Fraction

    docs = _docs(7, n_docs=300, vocab_size=200)
    c = encode_corpus(docs, build_vocabulary(docs, min_count=1, max_size=None))
    fast = cooccurrence(c, engine="numba", window=8)
    np.testing.assert_array_equal(
        cooccurrence(c, engine="numpy", show_progress=False, window=8).data, fast.data
    )
    exact: dict[tuple[int, int], Fraction] = {}
    for k in range(len(c)):
        ids = c.document(k).tolist()
        for p in range(len(ids)):
            for q in range(p + 1, min(len(ids), p + 9)):
                for key in ((ids[p], ids[q]), (ids[q], ids[p])):
                    exact[key] = exact.get(key, Fraction(0)) + Fraction(1, q - p)
    coo = fast.tocoo()
    assert coo.nnz == len(exact)
    got = {(int(i), int(j)): v for i, j, v in zip(coo.row, coo.col, coo.data, strict=True)}
    assert all(got[key] == float(value) for key, value in exact.items())
