"""Tests for nlpbias.studies.perturbation.retraining: the actual ΔB of removing documents."""

from __future__ import annotations

import numpy as np
import pytest
from perturbation_cases import QUERY, WINDOW, make_docs

from nlpbias.studies.perturbation.glove import GloVe, build_vocabulary, cooccurrence, encode_corpus
from nlpbias.studies.perturbation.influence import effect_sizes, weat_index
from nlpbias.studies.perturbation.retraining import retrain_removals


@pytest.fixture(scope="module")
def toy():
    docs = make_docs()
    vocab = build_vocabulary(docs, min_count=1, max_size=None)
    return vocab, encode_corpus(docs, vocab)


def test_retrain_removals(toy):
    vocab, corpus = toy
    params = {"vector_size": 4, "epochs": 3}
    sets = {"one": [0], "three": [1, 2, 7]}
    out = retrain_removals(
        corpus,
        QUERY,
        sets,
        glove=params,
        seeds=[0, 5],
        window=WINDOW,
        show_progress=False,
        max_missing=0.2,
        executor="serial",
        n_jobs=None,
        random_state=0,
    )
    assert list(out.columns) == [
        "removed",
        "seed",
        "n_documents",
        "B_full",
        "B_removed",
        "actual",
        "fit_seconds",
    ]
    assert out[["removed", "seed"]].values.tolist() == [
        ["one", 0],
        ["one", 5],
        ["three", 0],
        ["three", 5],
    ]
    assert out["n_documents"].tolist() == [1, 1, 3, 3]
    np.testing.assert_allclose(out["actual"], out["B_full"] - out["B_removed"], rtol=1e-12)
    index = weat_index(QUERY, vocab, max_missing=0.2, random_state=0)
    X = cooccurrence(corpus, window=WINDOW, show_progress=False)
    for seed in (0, 5):
        m = GloVe(random_state=seed, show_progress=False, **params).fit(X)
        b_full = effect_sizes(m.W_[index.rows], index)
        assert (out.loc[out["seed"] == seed, "B_full"] == b_full).all()
        keep = np.setdiff1d(np.arange(len(corpus)), sets["three"])
        X_t = cooccurrence(corpus, window=WINDOW, documents=keep, show_progress=False)
        m = GloVe(random_state=seed, show_progress=False, **params).fit(X_t)
        b_rem = out.loc[(out["seed"] == seed) & (out["removed"] == "three"), "B_removed"]
        assert float(b_rem.iloc[0]) == pytest.approx(effect_sizes(m.W_[index.rows], index), 1e-4)
    # a different seed changes the fit
    assert out["B_full"].iloc[0] != out["B_full"].iloc[1]
