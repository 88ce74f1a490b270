"""Tests for nlpbias.studies.perturbation.reduction: seed 004's Table 6, full vs reduced corpus."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from perturbation_corpus import WINDOW, WS, make_documents

from nlpbias.studies.perturbation import study as pt
from nlpbias.studies.perturbation.cooccurrence import cooccurrence
from nlpbias.studies.perturbation.documents import prepare
from nlpbias.studies.perturbation.glove import GloVe
from nlpbias.studies.perturbation.reduction import COLUMNS, full_vs_reduced, reduction_sets

PARAMS = {"vector_size": 8, "epochs": 20, "learning_rate": 0.2}


@pytest.fixture(scope="module")
def prepared():
    return prepare(make_documents(), min_count=1, window=WINDOW, show_progress=False, max_size=None)


@pytest.fixture(scope="module")
def model(prepared):
    return GloVe(**PARAMS, show_progress=False).fit(prepared.X)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))


def _toy_tables() -> dict[str, pd.DataFrame]:
    return {
        "a": pd.DataFrame({"delta_b": [0.5, 0.0, -1.0, 0.2, 0.1, 0.0, 0.0, 0.3, 0.0, 0.0]}),
        "b": pd.DataFrame({"delta_b": [0.1, 0.3, 0.0, 0.0, 0.9, 0.0, 0.0, 0.0, 0.0, -0.2]}),
    }


def test_reduction_sets_union_of_each_tests_top():
    sets = reduction_sets(_toy_tables(), top=0.2, random_state=0)
    # top 2 of a: docs 0 (0.5) and 7 (0.3); of b: docs 4 (0.9) and 1 (0.3); the most
    # bias-decreasing document (a's doc 2, -1.0) is never removed
    assert sets["reduced"].tolist() == [0, 1, 4, 7]
    assert len(sets["random"]) == 4 and len(set(sets["random"].tolist())) == 4
    again = reduction_sets(_toy_tables(), top=0.2, random_state=0)
    assert again["random"].tolist() == sets["random"].tolist()
    other = reduction_sets(_toy_tables(), top=0.2, random_state=1)
    assert other["random"].tolist() != sets["random"].tolist()


def test_reduction_sets_errors(one_line):
    with pytest.raises(ValueError) as err:
        reduction_sets(_toy_tables(), top=0.0, random_state=0)
    assert "top" in one_line(err)
    with pytest.raises(ValueError) as err:
        reduction_sets({}, top=0.1, random_state=0)
    assert "no ΔB tables" in one_line(err)
    bad = {"a": _toy_tables()["a"], "b": _toy_tables()["b"].iloc[:5]}
    with pytest.raises(ValueError) as err:
        reduction_sets(bad, top=0.1, random_state=0)
    assert "other documents" in one_line(err)


def test_full_vs_reduced_is_a_refit_without_the_documents(model, prepared, cache):
    table = pt.score_documents(
        model, prepared, [WS], show_progress=False, max_missing=0.2, random_state=0
    )
    sets = reduction_sets(table, top=0.1, random_state=0)
    out = full_vs_reduced(
        model, prepared, [WS], sets, glove=PARAMS, max_missing=0.2, n_permutations=999,
        random_state=0, executor="serial", n_jobs=None, show_progress=False,
    )  # fmt: skip
    assert out.index.tolist() == [("reduced", WS), ("random", WS)]
    assert list(out.columns) == [
        "n_removed", "B_full", "p_full", "B_reduced", "p_reduced", *COLUMNS
    ]  # fmt: skip
    base = pt.baseline_table(
        model, prepared, [WS], n_permutations=999, max_missing=0.2, random_state=0
    )
    # the full row is the chapter's own baseline: same vectors, words and permutations
    assert (out["B_full"] == base.loc[WS, "effect_size"]).all()
    assert (out["p_full"] == base.loc[WS, "p_value"]).all()
    # the reduced row is GloVe refitted from the same seed on the remaining documents
    keep = np.setdiff1d(np.arange(len(prepared.corpus)), sets["reduced"])
    X = cooccurrence(prepared.corpus, window=WINDOW, documents=keep, show_progress=False)
    refit = GloVe(**PARAMS, show_progress=False).fit(X)
    from nlpbias.studies.perturbation.influence import effect_sizes, weat_index

    idx = weat_index(WS, prepared.vocab, max_missing=0.2, random_state=0)
    b_red = out.loc[("reduced", WS), "B_reduced"]
    assert b_red == pytest.approx(effect_sizes(refit.W_[idx.rows], idx), abs=1e-9)
    row = out.loc[("reduced", WS)]
    assert row["delta_effect_sizes"] == pytest.approx(row["B_full"] - row["B_reduced"])
    assert row["delta_p_values"] == pytest.approx(row["p_reduced"] - row["p_full"])
    assert row["effect_sizes_ratio"] == pytest.approx(row["delta_effect_sizes"] / row["B_full"])
    assert row["p_values_ratio"] == pytest.approx(row["delta_p_values"] / row["p_full"])
    # removing the most bias-increasing documents lowers the bias more than random removal
    assert out.loc[("reduced", WS), "delta_effect_sizes"] > 0
    assert (
        out.loc[("reduced", WS), "delta_effect_sizes"]
        > out.loc[("random", WS), "delta_effect_sizes"]
    )
    assert set(out.attrs["fit_seconds"]) == {"reduced", "random"}


def test_full_vs_reduced_refits_the_full_corpus_for_other_parameters(model, prepared, cache):
    sets = {"some": [0, 1]}
    other = {**PARAMS, "epochs": 5}
    out = full_vs_reduced(
        model, prepared, [WS], sets, glove=other, max_missing=0.2, n_permutations=99,
        random_state=0, executor="serial", n_jobs=None, show_progress=False,
    )  # fmt: skip
    full = GloVe(**other, show_progress=False).fit(prepared.X)
    from nlpbias.studies.perturbation.influence import effect_sizes, weat_index

    idx = weat_index(WS, prepared.vocab, max_missing=0.2, random_state=0)
    assert out["B_full"].iloc[0] == pytest.approx(effect_sizes(full.W_[idx.rows], idx), abs=1e-9)
    assert "__full__" in out.attrs["fit_seconds"]


def test_doctests():
    import doctest

    from nlpbias.studies.perturbation import reduction as module

    failed, attempted = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted > 0 and failed == 0
