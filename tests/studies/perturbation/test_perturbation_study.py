"""The Brunet et al. (2019) study module on a tiny synthetic corpus."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from perturbation_corpus import N_DOCS, WINDOW, WS, make_documents
from scipy import stats

from nlpbias.core.text import tokenize
from nlpbias.data.reported import load_reported
from nlpbias.data.wordsets import load_wordset
from nlpbias.studies.perturbation import study as pt
from nlpbias.studies.perturbation.bias_concentration import concentration, concentration_table
from nlpbias.studies.perturbation.documents import Prepared, prepare
from nlpbias.studies.perturbation.glove import GloVe
from nlpbias.studies.perturbation.influence import (
    differential_bias,
    effect_sizes,
    predict_removals,
    weat_index,
)
from nlpbias.studies.perturbation.retraining import retrain_removals

PARAMS = {"vector_size": 8, "epochs": 20, "learning_rate": 0.2}


@pytest.fixture(scope="module")
def docs() -> pd.DataFrame:
    return make_documents()


@pytest.fixture(scope="module")
def prepared(docs: pd.DataFrame) -> Prepared:
    return prepare(docs, min_count=1, window=WINDOW, show_progress=False, max_size=None)


@pytest.fixture(scope="module")
def model(prepared: Prepared) -> GloVe:
    return GloVe(**PARAMS, show_progress=False).fit(prepared.X)


@pytest.fixture(scope="module")
def table(model: GloVe, prepared: Prepared, tmp_path_factory) -> pd.DataFrame:
    with pytest.MonkeyPatch.context() as mp:  # score_documents caches: keep it out of the project
        mp.setenv("NLPBIAS_CACHE", str(tmp_path_factory.mktemp("cache")))
        return pt.score_documents(
            model, prepared, [WS], show_progress=False, max_missing=0.2, random_state=0
        )[WS]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("NLPBIAS_CACHE", str(folder))
    return folder


# --------------------------------------------------------------------------- fit_glove


def test_fit_glove_is_our_glove_and_cached(prepared: Prepared, cache, monkeypatch) -> None:
    first = pt.fit_glove(prepared, show_progress=False, **PARAMS)
    ref = GloVe(**PARAMS, show_progress=False).fit(prepared.X)
    np.testing.assert_array_equal(first.W_, ref.W_)
    np.testing.assert_array_equal(first.U_, ref.U_)
    np.testing.assert_array_equal(first.b_, ref.b_)
    assert cache.is_dir() and any(cache.rglob("*"))

    class Boom:
        def __init__(self, *args, **kwargs):
            raise AssertionError("fit_glove refitted instead of reading the cache")

    monkeypatch.setattr(pt, "GloVe", Boom)
    # same corpus and params (in another order, other progress flag): a cache hit
    params = dict(reversed(list(PARAMS.items())))
    again = pt.fit_glove(prepared, show_progress=True, **params)
    np.testing.assert_array_equal(again.W_, first.W_)
    np.testing.assert_array_equal(again.c_, first.c_)
    with pytest.raises(AssertionError, match="refitted"):  # other params: a new fit
        pt.fit_glove(prepared, show_progress=False, **{**PARAMS, "random_state": 1})


def test_fit_glove_other_params_other_vectors(prepared: Prepared, cache) -> None:
    a = pt.fit_glove(prepared, show_progress=False, **PARAMS)
    b = pt.fit_glove(prepared, show_progress=False, **{**PARAMS, "random_state": 3})
    ref = GloVe(**PARAMS, random_state=3, show_progress=False).fit(prepared.X)
    np.testing.assert_array_equal(b.W_, ref.W_)
    assert not np.allclose(a.W_, b.W_)


# --------------------------------------------------------------------------- usable_wordsets


def test_usable_wordsets_splits_covered_and_not(prepared: Prepared) -> None:
    usable, skipped = pt.usable_wordsets(
        prepared, ["caliskan_weat6", WS, "instruments_weapons"], max_missing=0.2, random_state=0
    )
    assert usable == [WS]
    assert list(skipped.columns) == ["wordset", "reason"]
    assert skipped["wordset"].tolist() == ["caliskan_weat6", "instruments_weapons"]
    reason = skipped.set_index("wordset").loc["caliskan_weat6", "reason"]
    assert "\n" not in reason
    for word in load_wordset("caliskan_weat6").targets["male_names"]:
        assert word in reason  # the out-of-vocabulary words are named


def test_usable_wordsets_empty_input(prepared: Prepared) -> None:
    usable, skipped = pt.usable_wordsets(prepared, [], max_missing=0.2, random_state=0)
    assert usable == []
    assert list(skipped.columns) == ["wordset", "reason"] and skipped.empty


def test_usable_wordsets_respects_max_missing() -> None:
    p = prepare(
        make_documents(drop=("hers",)),
        min_count=1,
        window=WINDOW,
        show_progress=False,
        max_size=None,
    )
    assert "hers" not in p.vocab
    assert pt.usable_wordsets(p, [WS], max_missing=0.2, random_state=0)[0] == [
        WS
    ]  # 1/8 missing <= 0.2
    usable, skipped = pt.usable_wordsets(p, [WS], max_missing=0.1, random_state=0)
    assert usable == []
    assert skipped["wordset"].tolist() == [WS]
    assert "hers" in skipped["reason"].iloc[0]


def test_usable_wordsets_skips_a_test_with_one_target_word_left() -> None:
    science = load_wordset(WS).targets["science"]
    p = prepare(
        make_documents(drop=tuple(science[1:])),
        min_count=1,
        window=WINDOW,
        show_progress=False,
        max_size=None,
    )
    usable, skipped = pt.usable_wordsets(p, [WS], max_missing=0.95, random_state=0)
    assert usable == []
    # the targets are balanced by dropping arts words at random, so both sets keep one
    assert "fewer than 2 target words left (science: 1, arts: 1)" in skipped["reason"].iloc[0]


# --------------------------------------------------------------------------- baseline_table


def _exact_weat_p(E: np.ndarray, index) -> float:
    """One-sided exact permutation p of the WEAT statistic over all equal splits of targets."""
    E = E / np.linalg.norm(E, axis=1, keepdims=True)
    S, T, A, B = index.sets
    tgt = np.concatenate([S, T])
    s = (E[tgt] @ E[A].T).mean(axis=1) - (E[tgt] @ E[B].T).mean(axis=1)
    observed = s[: S.size].sum() - s[S.size :].sum()
    splits = np.array(list(itertools.combinations(range(tgt.size), S.size)))
    x = s[splits].sum(axis=1)
    null = x - (s.sum() - x)
    return float(np.mean(null >= observed - 1e-12))


def test_baseline_table_values(model: GloVe, prepared: Prepared) -> None:
    bt = pt.baseline_table(
        model, prepared, [WS], n_permutations=99, max_missing=0.2, random_state=0
    )
    assert bt.index.name == "wordset" and bt.index.tolist() == [WS]
    assert list(bt.columns) == ["effect_size", "p_value", "words", "dropped"]
    idx = weat_index(WS, prepared.vocab, max_missing=0.2, random_state=0)
    E = model.W_.astype(np.float64)[idx.rows]
    assert bt.loc[WS, "effect_size"] == pytest.approx(effect_sizes(E, idx), abs=1e-6)
    p = bt.loc[WS, "p_value"]
    assert 0 <= p <= 1
    # C(16, 8) = 12,870 splits: the test is exact
    assert p == pytest.approx(_exact_weat_p(E, idx), abs=2 / 12_870)
    assert bt.loc[WS, "words"] == 32
    assert bt.loc[WS, "dropped"] == "—"


def test_baseline_table_names_dropped_words() -> None:
    p = prepare(
        make_documents(drop=("hers",)),
        min_count=1,
        window=WINDOW,
        show_progress=False,
        max_size=None,
    )
    m = GloVe(**PARAMS, show_progress=False).fit(p.X)
    bt = pt.baseline_table(m, p, [WS], n_permutations=99, max_missing=0.2, random_state=0)
    assert bt.loc[WS, "words"] == 31
    assert bt.loc[WS, "dropped"] == "hers"
    idx = weat_index(WS, p.vocab, max_missing=0.2, random_state=0)
    E = m.W_.astype(np.float64)[idx.rows]
    assert bt.loc[WS, "effect_size"] == pytest.approx(effect_sizes(E, idx), abs=1e-6)


@pytest.mark.parametrize("wordsets", [[], (), WS])
def test_baseline_and_scores_need_word_sets(model, prepared, wordsets, one_line) -> None:
    with pytest.raises(ValueError, match="no word set") as err:
        pt.baseline_table(
            model, prepared, wordsets, n_permutations=9_999, max_missing=0.2, random_state=0
        )
    one_line(err)
    with pytest.raises(ValueError, match="no word set"):
        pt.score_documents(
            model, prepared, wordsets, show_progress=False, max_missing=0.2, random_state=0
        )


# --------------------------------------------------------------------------- score_documents


def test_score_documents_is_differential_bias(model, prepared, table, cache) -> None:
    scores = pt.score_documents(
        model, prepared, [WS, WS], show_progress=False, max_missing=0.2, random_state=0
    )
    assert list(scores) == [WS]
    ref = differential_bias(
        model,
        prepared.X,
        prepared.corpus,
        WS,
        window=WINDOW,
        show_progress=False,
        max_missing=0.2,
        random_state=0,
    )
    pd.testing.assert_frame_equal(scores[WS], ref)
    pd.testing.assert_frame_equal(table, ref)
    assert len(table) == N_DOCS
    assert (table["weat_tokens"] == 8).all()  # 4 target + 4 attribute words per document
    # the baseline of the scores is the baseline table's effect size
    bt = pt.baseline_table(model, prepared, [WS], n_permutations=9, max_missing=0.2, random_state=0)
    assert table.attrs["B"] == pytest.approx(bt.loc[WS, "effect_size"], abs=1e-6)
    # a second call is served from the disk cache, equal to the first
    assert any(cache.rglob("output.pkl"))
    again = pt.score_documents(
        model, prepared, [WS], show_progress=False, max_missing=0.2, random_state=0
    )
    pd.testing.assert_frame_equal(again[WS], scores[WS])


# --------------------------------------------------------------------------- removal_sets


@pytest.fixture
def toy_table() -> pd.DataFrame:
    delta = [0.3, -0.5, 0.9, 0.0, -0.1, 0.7, -0.8, 0.2, 0.05, -0.3, 0.4, -0.05]
    return pd.DataFrame({"delta_b": delta}, index=pd.Index(range(100, 112), name="document"))


def test_removal_sets_top_bottom_random(toy_table: pd.DataFrame) -> None:
    sets = pt.removal_sets(toy_table, sizes=(2, 3), n_random=2, random_state=5)
    assert list(sets) == [
        "increasing 2", "decreasing 2", "random 2 #1", "random 2 #2",
        "increasing 3", "decreasing 3", "random 3 #1", "random 3 #2",
    ]  # fmt: skip
    assert sets["increasing 2"].tolist() == [102, 105]  # ΔB 0.9, 0.7
    assert sets["increasing 3"].tolist() == [102, 105, 110]  # … 0.4
    assert sets["decreasing 2"].tolist() == [106, 101]  # ΔB -0.8, -0.5
    assert sets["decreasing 3"].tolist() == [106, 101, 109]  # … -0.3
    for name, v in sets.items():
        if name.startswith("random"):
            size = int(name.split()[1])
            assert len(v) == size == len(set(v.tolist()))
            assert set(v.tolist()) <= set(toy_table.index)
            assert v.tolist() == sorted(v.tolist())


def test_removal_sets_random_is_seeded(toy_table: pd.DataFrame) -> None:
    draw = lambda seed: pt.removal_sets(toy_table, sizes=(5,), n_random=3, random_state=seed)  # noqa: E731
    a, b, c = draw(0), draw(0), draw(1)
    rand = [k for k in a if k.startswith("random")]
    assert all(a[k].tolist() == b[k].tolist() for k in a)
    assert any(a[k].tolist() != c[k].tolist() for k in rand)
    assert a["increasing 5"].tolist() == c["increasing 5"].tolist()


def test_removal_sets_docstring_example() -> None:
    t = pd.DataFrame({"delta_b": [0.5, -0.2, 0.0, 0.1]})
    out = {
        k: v.tolist() for k, v in pt.removal_sets(t, sizes=[1], n_random=1, random_state=0).items()
    }
    assert out == {"increasing 1": [0], "decreasing 1": [1], "random 1 #1": [3]}


@pytest.mark.parametrize("size", [0, -1, 7])
def test_removal_sets_rejects_sizes(toy_table: pd.DataFrame, size: int, one_line) -> None:
    with pytest.raises(
        ValueError,
        match=r"each size \(for 12 documents, at most half\) must be an integer in \[1, 6\]",
    ) as err:
        pt.removal_sets(toy_table, sizes=(2, size), n_random=2, random_state=0)
    one_line(err)


def test_removal_sets_half_the_documents_is_allowed(toy_table: pd.DataFrame) -> None:
    sets = pt.removal_sets(toy_table, sizes=(6,), n_random=0, random_state=0)
    assert list(sets) == ["increasing 6", "decreasing 6"]
    assert set(sets["increasing 6"]).isdisjoint(sets["decreasing 6"])
    assert set(sets["increasing 6"]) | set(sets["decreasing 6"]) == set(toy_table.index)


# --------------------------------------------------------------------------- validate / agreement


def test_validate_predicted_and_actual(model, prepared, table, cache) -> None:
    kw = {"sizes": (2, 4), "n_random": 1, "random_state": 3}
    v = pt.validate(
        model,
        prepared,
        WS,
        table,
        glove=PARAMS,
        seeds=(0, 1),
        show_progress=False,
        **kw,
        max_missing=0.2,
        executor="serial",
        n_jobs=None,
    )
    sets = pt.removal_sets(table, **kw)
    assert v.index.name == "removed" and v.index.tolist() == list(sets)
    assert list(v.columns) == [
        "kind", "n_documents", "predicted", "actual", "deviation", "actual_sd", "seeds"
    ]  # fmt: skip
    np.testing.assert_allclose(v["deviation"], v["actual"] - v["predicted"], rtol=0, atol=0)
    assert v["kind"].tolist() == ["increasing", "decreasing", "random"] * 2
    assert v["n_documents"].tolist() == [2, 2, 2, 4, 4, 4]
    assert (v["seeds"] == 2).all()
    pred = predict_removals(
        model, prepared.X, prepared.corpus, WS, sets, window=WINDOW, max_missing=0.2, random_state=0
    )
    np.testing.assert_allclose(v["predicted"], pred.loc[list(sets)], rtol=1e-12)
    runs = retrain_removals(
        prepared.corpus,
        WS,
        sets,
        glove=PARAMS,
        seeds=[0, 1],
        window=WINDOW,
        show_progress=False,
        max_missing=0.2,
        executor="serial",
        n_jobs=None,
        random_state=0,
    )
    mean = runs.groupby("removed")["actual"].mean().loc[list(sets)]
    sd = runs.groupby("removed")["actual"].std().loc[list(sets)]
    np.testing.assert_allclose(v["actual"], mean, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(v["actual_sd"], sd, rtol=1e-9, atol=1e-12)
    cols = ["removed", "seed", "n_documents", "B_full", "B_removed", "actual"]
    pd.testing.assert_frame_equal(v.attrs["runs"][cols], runs[cols])
    # the full fit of seed 0 is the model's own fit
    full = runs.loc[runs["seed"] == 0, "B_full"].iloc[0]
    assert full == pytest.approx(table.attrs["B"], abs=1e-5)


def test_validate_with_one_seed_has_no_column_of_nan(model, prepared, table, cache) -> None:
    v = pt.validate(
        model, prepared, WS, table, glove=PARAMS, seeds=(0,), show_progress=False, sizes=(2,),
        n_random=1, random_state=3, max_missing=0.2, executor="serial", n_jobs=None,
    )  # fmt: skip
    assert "actual_sd" not in v.columns and not v.isna().all().any()
    assert (v["seeds"] == 1).all()


def test_validate_rejects_bad_sizes(model, prepared, table, cache) -> None:
    with pytest.raises(
        ValueError,
        match=r"each size \(for \d+ documents, at most half\) must be an integer in \[1, ",
    ):
        pt.validate(
            model,
            prepared,
            WS,
            table,
            glove=PARAMS,
            sizes=(30,),
            show_progress=False,
            n_random=2,
            seeds=(0, 1),
            max_missing=0.2,
            random_state=0,
            executor="serial",
            n_jobs=None,
        )


def test_agreement_is_pearson_and_spearman() -> None:
    rng = np.random.default_rng(1)
    p = rng.normal(size=9)
    a = 0.5 * p + rng.normal(scale=0.5, size=9)
    v = pd.DataFrame({"predicted": p, "actual": a})
    out = pt.agreement(v)
    assert out.name == "agreement"
    assert out.index.tolist() == ["pearson_r", "spearman_r", "n_sets"]
    assert out["pearson_r"] == pytest.approx(stats.pearsonr(p, a)[0], abs=1e-12)
    assert out["spearman_r"] == pytest.approx(stats.spearmanr(p, a)[0], abs=1e-12)
    assert out["n_sets"] == 9


def test_agreement_docstring_example() -> None:
    v = pd.DataFrame({"predicted": [1.0, 2, 3, 4], "actual": [1.1, 1.9, 3.2, 3.9]})
    assert pt.agreement(v).round(3).tolist() == [0.993, 1.0, 4.0]


@pytest.mark.parametrize("n", [0, 1, 2])
def test_agreement_needs_three_sets(n: int, one_line) -> None:
    v = pd.DataFrame({"predicted": np.arange(n, dtype=float), "actual": np.arange(n, dtype=float)})
    with pytest.raises(ValueError, match=f"at least 3 removal sets, got {n}") as err:
        pt.agreement(v)
    one_line(err)


# --------------------------------------------------------------------------- sentences and labels


def test_skipped_sentence_names_sets_by_title() -> None:
    skipped = pd.DataFrame({"wordset": ["instruments_weapons", "wajdalevie_likable"],
                            "reason": ["x", "y"]})  # fmt: skip
    text = pt.skipped_sentence(["science_arts", "caliskan_weat7"], skipped)
    assert text.startswith("Of the 4 word sets, 2 are usable in this vocabulary (Science vs arts")
    assert "and 2 are skipped (" in text and "instruments_weapons" not in text
    empty = pd.DataFrame(columns=["wordset", "reason"])
    assert pt.skipped_sentence(["science_arts"], empty).endswith("and none is skipped.")
    assert "1 is usable" in pt.skipped_sentence(["science_arts"], empty)


def test_readable_renames_word_sets_only() -> None:
    frame = pd.DataFrame(
        {"wordset": ["science_arts", "toy"], "x": [1.0, 2.0]},
        index=pd.Index(["caliskan_weat8", "mean"], name="wordset"),
    )
    out = pt.readable(frame)
    assert out.index.tolist() == ["WEAT 8: science vs arts × male vs female terms", "mean"]
    assert out["wordset"].tolist() == ["Science vs arts × male vs female terms", "toy"]
    assert out.index.name == "wordset" and out["x"].tolist() == [1.0, 2.0]


# --------------------------------------------------------------------------- concentration_table


def test_concentration_table(table: pd.DataFrame) -> None:
    # 200 documents: 2 carry |ΔB| 50 each, 18 carry 5, 100 carry 1 and 80 are zero
    other = pd.DataFrame(
        {"delta_b": np.r_[50.0, -50, np.full(18, 5.0), -np.ones(100), np.zeros(80)]}
    )
    out = concentration_table({WS: table, "toy": other})
    assert out.index.name == "wordset"
    assert out.index.tolist() == [WS, "toy", "mean", "seed 004 (reported)"]
    assert list(out.columns) == [
        "top 1%", "top 1% if spread evenly", "top 10%", "top 10% if spread evenly",
        "documents with ΔB ≠ 0",
    ]  # fmt: skip
    # toy: 120 documents carry ΔB; the top 2 (1 %) and 20 (10 %) of 200 would hold 2/120, 20/120
    assert out.loc["toy", "top 1% if spread evenly"] == pytest.approx(2 / 120)
    assert out.loc["toy", "top 10% if spread evenly"] == pytest.approx(20 / 120)
    assert not out.isna().all(axis=1).any()
    total = 100 + 90 + 100
    assert out.loc["toy", "top 1%"] == pytest.approx(100 / total)
    assert out.loc["toy", "top 10%"] == pytest.approx(190 / total)
    assert out.loc["toy", "documents with ΔB ≠ 0"] == pytest.approx(120 / 200)
    c = concentration(table["delta_b"], tops=(0.01, 0.1))
    assert out.loc[WS, "top 1%"] == pytest.approx(c["top 1%"])
    assert out.loc[WS, "top 10%"] == pytest.approx(c["top 10%"])
    assert out.loc[WS, "documents with ΔB ≠ 0"] == pytest.approx((table["delta_b"] != 0).mean())
    for col in out.columns:
        assert out.loc["mean", col] == pytest.approx(out.loc[[WS, "toy"], col].mean())
    rep = load_reported("wajdalevie2021")["concentration"]
    assert out.loc["seed 004 (reported)", "top 1%"] == rep["top 1%"] == 0.488
    assert out.loc["seed 004 (reported)", "top 10%"] == rep["top 10%"] == 0.922


# --------------------------------------------------------------------------- top_documents


def _test_words() -> set[str]:
    ws = load_wordset(WS)
    return {w for group in (*ws.targets.values(), *ws.attributes.values()) for w in group}


@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
def test_top_documents(table, prepared, docs, direction: str) -> None:
    top = pt.top_documents(table, prepared, n=4, direction=direction, excerpt_chars=40)
    ref = (
        table.nlargest(4, "delta_b") if direction == "increasing" else table.nsmallest(4, "delta_b")
    )
    assert top.index.name == "document"
    assert top.index.tolist() == ref.index.tolist()
    np.testing.assert_array_equal(top["delta_b"], ref["delta_b"])
    np.testing.assert_array_equal(top["delta_b_pct"], ref["delta_b_pct"])
    np.testing.assert_array_equal(top["weat_tokens"], ref["weat_tokens"])
    assert top["title"].tolist() == docs.loc[ref.index, "title"].tolist()
    assert top["author"].tolist() == docs.loc[ref.index, "author"].tolist()
    words = _test_words()
    for k, excerpt in top["excerpt"].items():
        body = excerpt.strip("…")
        assert body in docs.loc[k, "text"]
        assert len(body) <= 40
        assert words & set(tokenize(body))  # centred on a word of the test


def test_top_documents_excerpt_centred_on_first_test_word(prepared, table) -> None:
    docs = pd.DataFrame({"title": ["t"], "author": ["a"], "text": ["x " * 100 + "Poetry y"]})
    p = Prepared(docs, prepared.vocab, prepared.corpus, prepared.X, prepared.window)
    t = pd.DataFrame({"delta_b": [0.1], "delta_b_pct": [1.0], "weat_tokens": [1]})
    t.attrs["words"] = table.attrs["words"]
    ex = pt.top_documents(t, p, n=1, excerpt_chars=20).loc[0, "excerpt"]
    start = docs.loc[0, "text"].index("Poetry") - 10
    assert ex == "…" + docs.loc[0, "text"][start : start + 20] + "…"


def test_top_documents_rejects_direction(table, prepared, one_line) -> None:
    with pytest.raises(ValueError, match="direction must be") as err:
        pt.top_documents(table, prepared, direction="up")
    one_line(err)


def test_top_documents_follows_positions_not_labels(docs: pd.DataFrame, cache) -> None:
    shuffled = docs.iloc[::-1]  # index 39, 38, ..., 0
    p = prepare(shuffled, min_count=1, window=WINDOW, show_progress=False, max_size=None)
    m = GloVe(**PARAMS, show_progress=False).fit(p.X)
    t = pt.score_documents(m, p, [WS], show_progress=False, max_missing=0.2, random_state=0)[WS]
    k = int(t["delta_b"].idxmax())  # position in the corpus
    top = pt.top_documents(t, p, n=1)
    assert top["title"].iloc[0] == shuffled["title"].iloc[k]
