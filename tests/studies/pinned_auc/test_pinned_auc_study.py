"""The Dixon experiment pipeline on the synthetic stand-in with the fast linear model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.pinned_auc import study as pa
from nlpbias.studies.pinned_auc.synthetic import DEFAULT_TERMS


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    mp = pytest.MonkeyPatch()
    mp.setenv("NLPBIAS_CACHE", str(tmp_path_factory.mktemp("cache")))
    data = pa.load_study_data(
        use_data_home=False,
        corpus="davidson",
        test_fraction=0.2,
        validation_fraction=0.0,
        n_synthetic=2000,
        random_state=0,
        max_train=None,
        max_templates=None,
    )
    families, balance = pa.build_families(
        data, terms=list(DEFAULT_TERMS), random_state=0, n_buckets=5
    )
    scores = pa.train_and_score(families, data.eval_sets, seeds=[0, 1], model="linear",
                                model_params=None, embedding="glove-6b-50d", n_jobs=1,
                                progress=False)  # fmt: skip
    results = pa.evaluate(
        scores, data.eval_sets, terms=list(DEFAULT_TERMS), threshold_on="general", random_state=0
    )
    yield {"data": data, "families": families, "balance": balance, "scores": scores, **results}
    mp.undo()


def test_families_share_the_training_set_and_add_the_same_number_of_texts(run: dict) -> None:
    fam, added = run["families"], len(run["balance"].added)
    base = len(run["data"].train)
    assert added > 0
    assert len(fam["baseline"]) == base
    assert len(fam["bias mitigated"]) == len(fam["random control"]) == base + added
    assert not fam["bias mitigated"]["toxic"].iloc[base:].any()  # added texts are non-toxic


def test_scores_cover_every_model_and_row(run: dict) -> None:
    sc = run["scores"]
    n_rows = sum(len(df) for df in run["data"].eval_sets.values())
    assert len(sc) == 3 * 2 * n_rows
    assert sc["score"].between(0, 1).all()
    assert set(sc["family"]) == set(pa.FAMILIES)


def test_evaluate_thresholds_at_the_general_eer_and_sums_over_terms(run: dict) -> None:
    ov = run["overall"]
    assert len(ov) == 3 * 2 * 2  # families x seeds x sets
    # the same threshold is used on every set of one model
    assert (ov.groupby(["family", "seed"])["threshold"].nunique() == 1).all()
    summary = run["summary"].set_index(["family", "seed", "eval_set"])
    by_term = run["by_term"].set_index(["family", "seed", "eval_set"])
    key = ("baseline", 0, "templates")
    fpr = ov.set_index(["family", "seed", "eval_set"]).loc[key, "fpr"]
    expected = (by_term.loc[key, "fpr"] - fpr).abs().sum()
    assert summary.loc[key, "FPED"] == pytest.approx(expected)


def test_mitigation_lowers_template_bias_on_the_planted_scenario(run: dict) -> None:
    tmpl = run["summary"][run["summary"]["eval_set"] == "templates"]
    mean = tmpl.groupby("family")[["FPED", "PAED"]].mean()
    assert mean.loc["baseline", "FPED"] > 0 and mean.loc["baseline", "PAED"] > 0
    assert mean.loc["bias mitigated", "FPED"] < mean.loc["baseline", "FPED"]
    assert mean.loc["bias mitigated", "PAED"] < mean.loc["baseline", "PAED"]


def test_family_summary_by_hand() -> None:
    table = pd.DataFrame({"family": ["a", "a", "b"], "eval_set": "s", "FPED": [1.0, 3.0, 2.0]})
    out = pa.family_summary(table, metrics=["FPED"], random_state=0, n_bootstrap=2000).set_index(
        "family"
    )
    assert out.loc["a", ["n_models", "mean", "sum"]].tolist() == [2, 2.0, 4.0]
    assert out.loc["a", "std"] == pytest.approx(np.sqrt(2))
    assert 1.0 <= out.loc["a", "ci_low"] <= out.loc["a", "ci_high"] <= 3.0
    assert out.loc["b", "std"] == 0.0 and out.loc["b", "ci_low"] == out.loc["b", "ci_high"] == 2.0


def test_bad_requests(run: dict, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="threshold_on='nope' is not an evaluation set"):
        pa.evaluate(
            run["scores"], run["data"].eval_sets, terms=["gay"], threshold_on="nope", random_state=0
        )
    with pytest.raises(ValueError, match="at least one family"):
        pa.train_and_score(
            {},
            run["data"].eval_sets,
            seeds=[0],
            model="cnn",
            model_params=None,
            embedding="glove-6b-50d",
            n_jobs=1,
        )


def test_paper_comparison_pivots_ours_beside_the_papers_per_model_numbers() -> None:
    paper = pa.reported()
    fams = list(pa.FAMILIES)
    t4 = paper["table4"].assign(mean=np.arange(len(paper["table4"])) / 10)
    t5 = paper["table5"].assign(mean=1.0, paper_per_model=paper["table5"]["reported_sum"] / 10)
    table = pa.paper_comparison(t4, t5, families=fams)
    assert [f for f, _ in table.columns[::2]] == fams
    row = t4.iloc[0]
    cell = table.loc[f"AUC, {row['eval_set']}", (row["family"], "paper")]
    assert cell == row["reported_auc"]
    assert table.loc[f"AUC, {row['eval_set']}", (row["family"], "mean")] == row["mean"]
    fped = t5[(t5["metric"] == "FPED") & (t5["family"] == "baseline")].iloc[0]
    assert table.loc["FPED", ("baseline", "paper")] == fped["reported_sum"] / 10
    with pytest.raises(ValueError, match="missing columns"):
        pa.paper_comparison(t4.drop(columns="mean"), t5)


def test_paper_comparison_drops_a_row_neither_side_has() -> None:
    paper = pa.reported()
    t4 = paper["table4"].assign(mean=0.9)
    t5 = paper["table5"].assign(mean=1.0, paper_per_model=paper["table5"]["reported_sum"] / 10)
    extra = pd.DataFrame({"metric": ["XED"] * 3, "family": list(pa.FAMILIES), "mean": np.nan,
                          "paper_per_model": np.nan})  # fmt: skip
    table = pa.paper_comparison(t4, pd.concat([t5, extra]), families=list(pa.FAMILIES))
    assert "XED" not in table.index and not table.isna().all(axis=1).any()


def _two_small_families() -> tuple[pa.StudyData, dict[str, pd.DataFrame], dict]:
    """600 synthetic texts, the baseline and mitigated families, and a tiny CNN's parameters."""
    data = pa.load_study_data(
        use_data_home=False,
        corpus="davidson",
        test_fraction=0.2,
        validation_fraction=0.0,
        n_synthetic=600,
        random_state=0,
        max_train=None,
        max_templates=None,
    )
    families, _ = pa.build_families(data, terms=list(DEFAULT_TERMS), random_state=0, n_buckets=5)
    families = {k: families[k] for k in ("baseline", "bias mitigated")}
    return data, families, {"n_filters": 8, "dense_units": 8, "max_epochs": 2,
                            "show_progress": False}  # fmt: skip


def test_cnns_trained_two_at_a_time_score_exactly_as_one_after_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n_jobs=2 (a process pool, one torch thread per CNN) against n_jobs=1, each run with its
    own empty cache so that neither reads the other's models: the scores are bit-identical."""
    data, families, params = _two_small_families()
    scores = {}
    for n_jobs in (1, 2):
        monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / f"cache-{n_jobs}"))
        scores[n_jobs] = pa.train_and_score(
            families, data.eval_sets, seeds=[0, 1], model="cnn", model_params=params,
            embedding=None, n_jobs=n_jobs, progress=False,
        )  # fmt: skip
    assert len(list((tmp_path / "cache-2").rglob("output.pkl"))) == 4  # computed, not read
    pd.testing.assert_frame_equal(scores[1], scores[2], check_exact=True)
    assert scores[1].groupby(["family", "seed"])["score"].std().nunique() == 4  # 4 models
    with pytest.raises(ValueError, match="n_jobs"):
        pa.train_and_score(
            families,
            data.eval_sets,
            seeds=[0],
            model="linear",
            n_jobs=0,
            model_params=None,
            embedding="glove-6b-50d",
        )


def test_a_fixed_validation_set_reaches_every_cnn_and_changes_its_early_stopping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path))
    data, families, params = _two_small_families()
    seen = []
    from nlpbias.models import cnn

    original = cnn.CNNTextClassifier.fit

    def spy(self, X, y, *, validation=None):
        seen.append(None if validation is None else len(validation[0]))
        return original(self, X, y, validation=validation)

    monkeypatch.setattr(cnn.CNNTextClassifier, "fit", spy)
    val = data.eval_sets["general"].head(50)
    kw = dict(seeds=[0], model="cnn", model_params=params, embedding=None, n_jobs=1,
              progress=False)  # fmt: skip
    fixed = pa.train_and_score(families, data.eval_sets, validation=val, **kw)
    assert seen == [50, 50]  # both families stop on the same 50 texts
    own = pa.train_and_score(families, data.eval_sets, **kw)
    assert seen[2:] == [None, None]
    assert not np.array_equal(fixed["score"], own["score"])
    # the linear model has no early stopping: the set is not passed to it
    seen.clear()
    pa.train_and_score(families, data.eval_sets, validation=val, **(kw | {"model": "linear",
                       "model_params": None, "embedding": "glove-6b-50d"}))  # fmt: skip
    assert seen == []


def test_pinned_backgrounds_reproduce_the_chapters_paed_and_give_the_appendix_variant(
    run: dict,
) -> None:
    out = pa.pinned_backgrounds(run["scores"], run["data"].eval_sets, terms=list(DEFAULT_TERMS),
                                random_state=0)  # fmt: skip
    assert set(out["background"]) == {"non_subgroup", "equal_groups"}
    assert len(out) == 2 * run["scores"][["family", "seed"]].drop_duplicates().shape[0]
    chapter = run["summary"][run["summary"]["eval_set"] == "templates"].set_index(
        ["family", "seed"]
    )["PAED"]
    default = out[out["background"] == "non_subgroup"].set_index(["family", "seed"])["PAED"]
    pd.testing.assert_series_equal(default.sort_index(), chapter.sort_index(), check_names=False)
    equal = out[out["background"] == "equal_groups"].set_index(["family", "seed"])["PAED"]
    assert not np.allclose(equal.sort_index(), default.sort_index())
    with pytest.raises(ValueError, match="eval_set='nope'"):
        pa.pinned_backgrounds(run["scores"], run["data"].eval_sets, terms=["gay"],
                              eval_set="nope", random_state=0)  # fmt: skip
