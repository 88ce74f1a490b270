"""Tests for nlpbias.studies.perturbation.influence: Brunet et al.'s (2019) differential bias of
documents."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from perturbation_cases import QUERY, WINDOW, make_docs

from nlpbias.metrics.query import OutOfVocabularyError, Query
from nlpbias.metrics.weat import weat_effect_size
from nlpbias.studies.perturbation.glove import GloVe, build_vocabulary, cooccurrence, encode_corpus
from nlpbias.studies.perturbation.influence import (
    WeatIndex,
    differential_bias,
    effect_sizes,
    predict_removals,
    weat_index,
)


@pytest.fixture(scope="module")
def setup():
    docs = make_docs()
    vocab = build_vocabulary(docs, min_count=1, max_size=None)
    corpus = encode_corpus(docs, vocab)
    X = cooccurrence(corpus, window=WINDOW, show_progress=False)
    model = GloVe(vector_size=4, epochs=40, show_progress=False).fit(X)
    return docs, vocab, corpus, X, model


def brute_force_delta_b(model, X, corpus, index, removed) -> tuple[float, float]:
    """(B, ΔB) for removing ``removed`` by recomputing X̃ and one Newton step per WEAT row."""
    keep = np.setdiff1d(np.arange(len(corpus)), removed)
    X_t = cooccurrence(corpus, window=WINDOW, documents=keep, show_progress=False)
    rows = index.rows
    H = model.row_hessian(X, rows)
    dg = model.row_gradient(X_t, rows) - model.row_gradient(X, rows)
    E = model.W_.astype(np.float64)[rows]
    E_t = E - np.stack([np.linalg.solve(H[n], dg[n]) for n in range(rows.size)])
    B = effect_sizes(E, index)
    return B, B - effect_sizes(E_t, index)


# --------------------------------------------------------------------------- weat_index


def test_weat_index_maps_words_to_ids():
    v = build_vocabulary(
        [["she", "he", "art", "math", "x", "man", "woman", "poetry"]], min_count=1, max_size=None
    )
    q = Query(
        targets={"sci": ["Math"], "arts": ["Poetry", "art"]},
        attributes={"m": ["he", "man"], "f": ["she", "WOMAN"]},
        name="mixed case",
    )
    idx = weat_index(q, v, max_missing=0.0, random_state=0)
    assert idx.name == "mixed case"
    # distinct ids of S, T, A, B in the query's order
    expected = [v.index[w] for w in ["math", "poetry", "art", "he", "man", "she", "woman"]]
    assert idx.rows.tolist() == expected
    assert [s.tolist() for s in idx.sets] == [[0], [1, 2], [3, 4], [5, 6]]
    assert idx.words == {
        "sci": ("Math",),
        "arts": ("Poetry", "art"),
        "m": ("he", "man"),
        "f": ("she", "WOMAN"),
    }
    assert all(d == () for d in idx.dropped.values())
    with pytest.raises(OutOfVocabularyError):
        weat_index(q, v, lowercase=False, max_missing=0.0, random_state=0)


def test_weat_index_drops_and_raises(one_line):
    v = build_vocabulary(
        [["he", "she", "art", "math", "poetry", "man"]], min_count=1, max_size=None
    )
    q = Query(
        targets={"sci": ["math", "physics"], "arts": ["poetry", "art"]},
        attributes={"m": ["he", "man"], "f": ["she", "woman"]},
    )
    idx = weat_index(q, v, max_missing=0.5, random_state=0)
    assert idx.dropped["sci"] == ("physics",)
    assert idx.dropped["f"] == ("woman",)
    # the targets are balanced: one arts word dropped at random
    assert len(idx.sets[0]) == len(idx.sets[1]) == 1
    assert len(idx.dropped["arts"]) == 1
    assert idx.words["f"] == ("she",)
    assert idx.rows[idx.sets[3]].tolist() == [v.index["she"]]
    with pytest.raises(OutOfVocabularyError, match="physics") as err:
        weat_index(q, v, max_missing=0.2, random_state=0)
    one_line(err)


# --------------------------------------------------------------------------- effect sizes


def _index(sizes=(2, 3, 2, 2)) -> WeatIndex:
    pos = np.cumsum((0, *sizes))
    sets = tuple(np.arange(pos[n], pos[n + 1]) for n in range(4))
    return WeatIndex("t", np.arange(pos[-1]), sets, {}, {})  # type: ignore[arg-type]


def test_effect_sizes_match_weat_effect_size():
    rng = np.random.default_rng(0)
    idx = _index()
    E = rng.normal(size=(9, 5)) * rng.uniform(0.5, 3, size=(9, 1))  # norms must not matter
    expected = weat_effect_size(*(E[s] for s in idx.sets), ddof=1)
    got = effect_sizes(E, idx)
    assert isinstance(got, float)
    assert got == pytest.approx(expected, rel=1e-12)
    batch = rng.normal(size=(6, 9, 5))
    got = effect_sizes(batch, idx)
    assert got.shape == (6,)
    for g in range(6):
        expected = weat_effect_size(*(batch[g][s] for s in idx.sets), ddof=1)
        assert got[g] == pytest.approx(expected, rel=1e-12)


def test_effect_sizes_errors(one_line):
    idx = _index((1, 1, 1, 1))
    E = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 0.2], [0.2, 1.0]])
    with pytest.raises(ValueError, match="zero vector") as err:
        effect_sizes(E, idx)
    one_line(err)
    E = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.2], [0.2, 1.0]])
    with pytest.raises(ValueError, match="zero spread") as err:
        effect_sizes(E, idx)
    one_line(err)


# --------------------------------------------------------------------------- differential bias


def test_differential_bias_matches_brute_force(setup):
    docs, vocab, corpus, X, model = setup
    table = differential_bias(
        model, X, corpus, QUERY, window=WINDOW, show_progress=False, max_missing=0.2, random_state=0
    )
    assert isinstance(table, pd.DataFrame)
    assert table.index.name == "document" and len(table) == len(corpus)
    assert list(table.columns) == ["delta_b", "delta_b_pct", "weat_tokens", "n_words"]
    index = weat_index(QUERY, vocab, max_missing=0.2, random_state=0)
    for k in (0, 3, 17, len(corpus) - 1):
        B, dB = brute_force_delta_b(model, X, corpus, index, [k])
        assert table.attrs["B"] == pytest.approx(B, rel=1e-12)
        assert dB != 0
        assert table["delta_b"].iloc[k] == pytest.approx(dB, rel=1e-6)
        assert table["delta_b_pct"].iloc[k] == pytest.approx(100 * dB / B, rel=1e-6)
    weat = set(vocab.words[i] for i in index.rows)
    assert table["weat_tokens"].tolist() == [sum(t in weat for t in d) for d in docs]
    assert table["n_words"].tolist() == [len(weat & set(d)) for d in docs]
    assert table.attrs["wordset"] == "toy"
    assert table.attrs["words"]["science"] == ("math", "physics")


def test_document_without_weat_words_has_zero_delta(setup):
    docs, _, corpus, X, model = setup
    table = differential_bias(
        model, X, corpus, QUERY, window=WINDOW, show_progress=False, max_missing=0.2, random_state=0
    )
    k = len(docs) - 2  # the filler-only document
    assert table["delta_b"].iloc[k] == 0.0
    assert table["weat_tokens"].iloc[k] == 0 and table["n_words"].iloc[k] == 0
    assert (table["delta_b"] != 0).sum() == len(docs) - 1


def test_small_batches_give_the_same_table(setup):
    _, _, corpus, X, model = setup
    kw = {"window": WINDOW, "show_progress": False}
    a = differential_bias(model, X, corpus, QUERY, **kw, max_missing=0.2, random_state=0)
    b = differential_bias(
        model, X, corpus, QUERY, batch_size=3, **kw, max_missing=0.2, random_state=0
    )
    np.testing.assert_allclose(a["delta_b"], b["delta_b"], rtol=1e-12, atol=1e-15)


def test_groups_and_predict_removals(setup):
    _, vocab, corpus, X, model = setup
    index = weat_index(QUERY, vocab, max_missing=0.2, random_state=0)
    groups = np.full(len(corpus), -1)
    groups[[0, 5, 9]] = 0
    groups[[2, 3]] = 1
    table = differential_bias(
        model,
        X,
        corpus,
        QUERY,
        window=WINDOW,
        groups=groups,
        show_progress=False,
        max_missing=0.2,
        random_state=0,
    )
    assert table.index.name == "group" and len(table) == 2
    for g, members in ((0, [0, 5, 9]), (1, [2, 3])):
        _, dB = brute_force_delta_b(model, X, corpus, index, members)
        assert table["delta_b"].iloc[g] == pytest.approx(dB, rel=1e-6)
    singles = differential_bias(
        model, X, corpus, QUERY, window=WINDOW, show_progress=False, max_missing=0.2, random_state=0
    )
    assert table["weat_tokens"].iloc[0] == singles["weat_tokens"].iloc[[0, 5, 9]].sum()
    pred = predict_removals(
        model,
        X,
        corpus,
        QUERY,
        {"first": [0, 5, 9], "second": [2, 3]},
        window=WINDOW,
        max_missing=0.2,
        random_state=0,
    )
    assert isinstance(pred, pd.Series) and pred.name == "predicted"
    assert pred.index.tolist() == ["first", "second"]
    np.testing.assert_allclose(pred.to_numpy(), table["delta_b"].to_numpy(), rtol=1e-12)


def test_newton_step_is_exact_when_weights_do_not_change(setup):
    """With f ≡ 1 (tiny x_max), W's WEAT rows at their exact optima for X, and a removal that
    zeroes no entry, the predicted vectors are the exact optima for X̃ (least squares)."""
    docs, vocab, _, _, _ = setup
    twice = docs + docs  # every document's entries also occur in its copy
    corpus = encode_corpus(twice, vocab)
    X = cooccurrence(corpus, window=WINDOW, show_progress=False)
    model = GloVe(vector_size=4, epochs=20, x_max=0.01, show_progress=False).fit(X)
    index = weat_index(QUERY, vocab, max_missing=0.2, random_state=0)
    U = model.U_ = model.U_.astype(np.float64)  # float64 throughout: exact to round-off
    b, c = model.b_, model.c_ = model.b_.astype(np.float64), model.c_.astype(np.float64)

    def optimum(M, i):
        r = M[int(i)]
        y = np.log(r.data) - b[i] - c[r.indices]
        return np.linalg.lstsq(U[r.indices], y, rcond=None)[0]

    W = model.W_.astype(np.float64)
    W[index.rows] = [optimum(X, i) for i in index.rows]
    model.W_ = W
    np.testing.assert_allclose(model.row_gradient(X, index.rows), 0, atol=1e-8)
    table = differential_bias(
        model, X, corpus, QUERY, window=WINDOW, show_progress=False, max_missing=0.2, random_state=0
    )
    B = effect_sizes(W[index.rows], index)
    assert table.attrs["B"] == pytest.approx(B, rel=1e-12)
    for k in (1, 6, 30):
        keep = np.setdiff1d(np.arange(len(corpus)), [k])
        X_t = cooccurrence(corpus, window=WINDOW, documents=keep, show_progress=False)
        assert X_t.nnz == X.nnz
        E_t = np.stack([optimum(X_t, i) for i in index.rows])
        expected = B - effect_sizes(E_t, index)
        assert table["delta_b"].iloc[k] == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_unsorted_indices_give_the_same_table(setup):
    _, _, corpus, X, model = setup
    Z = X.copy()
    for r in range(Z.shape[0]):  # the same matrix, each row's columns stored in reverse
        s, e = Z.indptr[r], Z.indptr[r + 1]
        Z.indices[s:e] = Z.indices[s:e][::-1].copy()
        Z.data[s:e] = Z.data[s:e][::-1].copy()
    Z.has_sorted_indices = False
    np.testing.assert_array_equal(Z.toarray(), X.toarray())
    kw = {"window": WINDOW, "show_progress": False}
    a = differential_bias(model, X, corpus, QUERY, **kw, max_missing=0.2, random_state=0)
    b = differential_bias(model, Z, corpus, QUERY, **kw, max_missing=0.2, random_state=0)
    np.testing.assert_allclose(b["delta_b"], a["delta_b"], rtol=1e-9)


def test_differential_bias_errors(setup, one_line):
    _, vocab, corpus, X, model = setup
    with pytest.raises(TypeError, match="fitted") as err:
        differential_bias(
            GloVe(),
            X,
            corpus,
            QUERY,
            show_progress=False,
            max_missing=0.2,
            random_state=0,
            window=8,
        )
    one_line(err)
    with pytest.raises(ValueError, match="damping") as err:
        differential_bias(
            model,
            X,
            corpus,
            QUERY,
            damping=-1.0,
            show_progress=False,
            max_missing=0.2,
            random_state=0,
            window=8,
        )
    one_line(err)
    other = encode_corpus(
        [["math", "he"]], build_vocabulary([["math", "he"]], min_count=1, max_size=None)
    )
    with pytest.raises(ValueError, match="corpus has 2 words") as err:
        differential_bias(
            model, X, other, QUERY, show_progress=False, max_missing=0.2, random_state=0, window=8
        )
    one_line(err)


def test_singular_hessian_needs_damping(one_line):
    docs = [["math", "he"], ["poetry", "she"], ["art", "woman", "man", "physics"]] * 3
    vocab = build_vocabulary(docs, min_count=1, max_size=None)
    corpus = encode_corpus(docs, vocab)
    X = cooccurrence(corpus, window=2, show_progress=False)
    model = GloVe(vector_size=6, epochs=5, show_progress=False).fit(X)
    with pytest.raises(ValueError, match="damping") as err:
        differential_bias(
            model, X, corpus, QUERY, window=2, show_progress=False, max_missing=0.2, random_state=0
        )
    one_line(err)
    table = differential_bias(
        model,
        X,
        corpus,
        QUERY,
        window=2,
        damping=1.0,
        show_progress=False,
        max_missing=0.2,
        random_state=0,
    )
    assert np.isfinite(table["delta_b"]).all()


def test_weat_index_refuses_multi_word_entries_as_a_skippable_error():
    from nlpbias.metrics.query import OutOfVocabularyError, Query
    from nlpbias.studies.perturbation.glove import build_vocabulary

    vocab = build_vocabulary([["european", "american", "african", "he", "she"]], min_count=1,
                             max_size=None)  # fmt: skip
    query = Query(
        targets={"ea": ["european american"], "aa": ["african american"]},
        attributes={"m": ["he"], "f": ["she"]},
        name="multi",
    )
    with pytest.raises(OutOfVocabularyError) as err:
        weat_index(query, vocab, max_missing=0.0, random_state=0)
    msg = str(err.value)
    assert "multi-word entries" in msg and "european american" in msg and "\n" not in msg
    assert err.value.missing == {"ea": ("european american",), "aa": ("african american",)}
