"""Feature sets (pretrained vs fine-tuned): LoganData.with_features, load_logan_data's sets, the
comparison of the fits on each, its figure, and the paper's Tables 8-11 as transcribed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, assert_no_hidden_bars, assert_panel_texts_apart

from nlpbias.data.reported import load_reported
from nlpbias.studies.logan import features as feat
from nlpbias.studies.logan import study as ex
from nlpbias.studies.logan.feature_comparison import (
    feature_comparison,
    feature_sentences,
    paper_feature_summary,
    runs_by_features,
)
from nlpbias.studies.logan.figures import feature_comparison_figure

PAPER = load_reported("zhao2020logan")


def planted(seed: int = 0, n_blob: int = 800, err: float = 0.3):
    """Six separated blobs; in blob 0 group B is wrong ``err`` of the time, in blob 1 group A;
    everyone else is right (global gap about 0). ``"fine-tuned"`` is these blobs;
    ``"pretrained"`` is the same points given to other rows at random, so its features carry no
    biased region. Same rows, labels and predictions in both."""
    rng = np.random.default_rng(seed)
    angles = np.linspace(0, 2 * np.pi, 6, endpoint=False)
    centers = 10 * np.c_[np.cos(angles), np.sin(angles)]
    blob = np.repeat(np.arange(6), n_blob)
    n = len(blob)
    x_region = centers[blob] + rng.normal(0, 1, (n, 2))
    group = np.where(rng.random(n) < 0.5, "A", "B")
    y = rng.integers(0, 2, n)
    wrong = np.zeros(n, bool)
    for b, g in ((0, "B"), (1, "A")):
        at = (blob == b) & (group == g)
        wrong[at] = rng.random(at.sum()) < err
    pred = np.where(wrong, 1 - y, y)
    x_none = x_region[rng.permutation(n)]
    data = ex.LoganData(
        X=x_region, y_true=y, y_pred=pred, y_score=pred.astype(float),
        groups={"g": pd.Series(group)}, pairs={"g": ("A", "B")}, source="test",
        features={"fine-tuned": x_region, "pretrained": x_none}, feature_set="fine-tuned",
    )  # fmt: skip
    return data, blob


def _run(data: ex.LoganData) -> dict:
    return ex.run_attribute(
        data, "g", n_clusters=6, lam_grid=(1, 10, 100), min_group_size=20, n_permutations=5,
        random_state=0, show_progress=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def compared() -> dict:
    data, blob = planted()
    runs = {fs: {"g": _run(data.with_features(fs))} for fs in data.features}
    return {"data": data, "blob": blob, "runs": runs, "table": feature_comparison(runs)}


# --- LoganData ---------------------------------------------------------------------------------


def test_with_features_swaps_x_and_keeps_everything_else() -> None:
    data, _ = planted(n_blob=50)
    other = data.with_features("pretrained")
    assert other.X is data.features["pretrained"] and other.feature_set == "pretrained"
    for name in ("y_true", "y_pred", "y_score", "groups", "pairs", "features", "notes"):
        assert getattr(other, name) is getattr(data, name)
    assert data.X is data.features["fine-tuned"]  # the original is untouched
    assert other.with_features("fine-tuned").X is data.X
    np.testing.assert_array_equal(other.subset("g")["X"], data.features["pretrained"])
    with pytest.raises(KeyError, match=r"no feature set 'frozen'.*\['fine-tuned', 'pretrained'\]"):
        data.with_features("frozen")


def test_logan_data_checks_its_feature_sets() -> None:
    x = np.zeros((4, 2))
    base = {"y_true": np.zeros(4), "y_pred": np.zeros(4), "y_score": np.zeros(4), "groups": {},
            "pairs": {}, "source": "test"}  # fmt: skip
    assert list(ex.LoganData(X=x, **base).features) == ["given"]  # one set: X itself
    with pytest.raises(ValueError, match="feature_set 'b' is not one of"):
        ex.LoganData(X=x, features={"a": x}, feature_set="b", **base)
    with pytest.raises(ValueError, match="X is not features"):
        ex.LoganData(X=x.copy(), features={"a": x}, feature_set="a", **base)
    with pytest.raises(ValueError, match=r"\{'b': 3\} \(rows\) do not match the 4 labels"):
        ex.LoganData(X=x, features={"a": x, "b": x[:3]}, feature_set="a", **base)


def test_synthetic_data_has_one_feature_set_and_says_so() -> None:
    knobs = {"use_data_home": False, "max_rows": None, "max_train": None,
             "classifier": "frozen", "classifier_params": {}, "n_synthetic": 200,
             "random_state": 0}  # fmt: skip
    data = ex.load_logan_data(**knobs, feature_sets=["pretrained", "fine-tuned"])
    assert list(data.features) == [ex.SYNTHETIC_FEATURES] and data.X is data.features["synthetic"]
    assert "apply to real data" in data.notes["features"]
    with pytest.raises(KeyError, match=r"'pretrained'.*\['synthetic'\].*use_data_home=True"):
        data.with_features("pretrained")
    with pytest.raises(ValueError, match="feature_sets must be one of"):
        ex.load_logan_data(**knobs, feature_sets=["last layer"])
    with pytest.raises(TypeError, match="feature_sets"):
        ex.load_logan_data(**knobs)  # a required keyword: no default to drift from the cell


def test_check_feature_sets() -> None:
    assert feat.check_feature_sets(("fine-tuned",)) == ("fine-tuned",)
    with pytest.raises(TypeError, match="a single name goes in a list"):
        feat.check_feature_sets("pretrained")
    with pytest.raises(ValueError, match="feature_sets is empty"):
        feat.check_feature_sets([])
    with pytest.raises(ValueError, match="'fine-tuned' twice"):
        feat.check_feature_sets(["fine-tuned", "pretrained", "fine-tuned"])


# --- the feature sets of real data -----------------------------------------------------------


def test_frozen_classifier_gives_one_array_and_encodes_nothing(monkeypatch) -> None:
    from nlpbias.studies.logan import frozen

    def boom(*args, **kwargs):
        raise AssertionError("the frozen classifier's features must not be encoded again")

    monkeypatch.setattr(frozen, "encoder_features", boom)
    x = np.arange(6.0).reshape(3, 2)
    sets, note = feat.feature_sets_for(
        ["a", "b", "c"], x, classifier="frozen", classifier_params={"C": 2.0},
        feature_sets=["pretrained", "fine-tuned"],
    )  # fmt: skip
    assert list(sets) == ["pretrained", "fine-tuned"]
    assert sets["pretrained"] is x and sets["fine-tuned"] is x
    assert "same features" in note and "never fine-tuned" in note


def test_finetune_classifier_adds_the_frozen_encoders_layer(monkeypatch) -> None:
    from nlpbias.studies.logan import frozen

    calls = []

    def spy(texts, **kwargs):
        calls.append({"texts": list(texts), **kwargs})
        return np.full((len(texts), 2), 7.0)

    monkeypatch.setattr(frozen, "encoder_features", spy)
    x = np.zeros((2, 2))
    sets, note = feat.feature_sets_for(
        ["one", "two"], x, classifier="finetune",
        classifier_params={"max_length": 32, "epochs": 3, "show_progress": False},
        feature_sets=["fine-tuned", "pretrained"],
    )  # fmt: skip
    assert sets["fine-tuned"] is x and (sets["pretrained"] == 7.0).all()
    (call,) = calls  # encoded once, with the classifier's encoder and lengths, 2nd-to-last layer
    assert call["texts"] == ["one", "two"] and call["layer"] == -2 == feat.PRETRAINED_LAYER
    assert call["max_length"] == 32 and call["model"] == "all-MiniLM-L6-v2"
    assert "Appendix A.4" in note and "main text" in note
    only, _ = feat.feature_sets_for(["one", "two"], x, classifier="finetune",
                                    classifier_params={}, feature_sets=["fine-tuned"])  # fmt: skip
    assert list(only) == ["fine-tuned"] and len(calls) == 1  # no pretrained set asked: no encoding
    with pytest.raises(ValueError, match="classifier_X has 2 rows for 3 texts"):
        feat.feature_sets_for(["a", "b", "c"], x, classifier="finetune", classifier_params={},
                              feature_sets=["fine-tuned"])  # fmt: skip


def test_pretrained_features_are_the_frozen_minilm_layer() -> None:
    from nlpbias.models.encoders import encode, load_encoder

    texts = ["you are an idiot", "have a nice day", "what a lovely dog"]
    sets, _ = feat.feature_sets_for(
        texts, np.zeros((3, 384)), classifier="finetune",
        classifier_params={"max_length": 16, "device": "cpu", "show_progress": False},
        feature_sets=["pretrained"],
    )  # fmt: skip
    tokenizer, model = load_encoder("all-MiniLM-L6-v2", device="cpu")
    direct = encode(texts, tokenizer=tokenizer, model=model, layer=-2, batch_size=64,
                    max_length=16, show_progress=False)  # fmt: skip
    np.testing.assert_allclose(sets["pretrained"], direct, atol=1e-5)
    last = encode(texts, tokenizer=tokenizer, model=model, layer=-1, batch_size=64,
                  max_length=16, show_progress=False)  # fmt: skip
    assert not np.allclose(sets["pretrained"], last, atol=1e-3)  # the layer matters


# --- the comparison on planted data ----------------------------------------------------------


def test_biased_clusters_are_found_only_on_the_features_with_the_region(compared: dict) -> None:
    t = compared["table"]
    assert list(t.index.get_level_values("features").unique()) == ["fine-tuned", "pretrained"]
    for method in ("K-Means", "LOGAN"):
        region = t.loc[("g", "fine-tuned", method)]
        none = t.loc[("g", "pretrained", method)]
        assert region["n_biased"] == 2 and region["max_abs_gap_pts"] > 20  # blobs 0 and 1
        assert none["n_biased"] == 0 and none["max_abs_gap_pts"] < 5
        assert region["bcr_pct"] == pytest.approx(100 * 2 / region["n_eligible"])
    # the biased clusters of the fine-tuned set are the planted blobs
    run = compared["runs"]["fine-tuned"]["g"]
    rep = run["kmeans"].cluster_report_
    blob = compared["blob"][run["subset"]["index"]]
    for b in (0, 1):
        (cluster,) = set(run["kmeans"].labels_[blob == b])
        assert abs(rep.set_index("cluster").loc[cluster, "gap"]) > 0.2
    assert "paper" not in " ".join(t.columns)


def test_the_table_is_each_runs_table4(compared: dict) -> None:
    t = compared["table"]
    for fs, runs in compared["runs"].items():
        t4 = runs["g"]["table4"]
        for method in ("K-Means", "LOGAN"):
            for col in ("n_biased", "bcr_pct", "bir_pct", "max_abs_gap_pts", "inertia_ratio"):
                assert t.loc[("g", fs, method), col] == pytest.approx(float(t4.loc[method, col]))


def test_degenerate_fit_has_no_numbers_and_is_named() -> None:
    t4 = pd.DataFrame({"lam": [0.0, 100.0], "n_eligible": [6, 6], "n_biased": [1, 3],
                       "bcr_pct": [16.7, 50.0], "bir_pct": [10.0, 40.0],
                       "max_abs_gap_pts": [8.0, 100.0], "inertia_ratio": [1.0, 1.3],
                       "degenerate": ["", "largest gap 100 points"]},
                      index=["K-Means", "LOGAN"])  # fmt: skip
    t = feature_comparison({"pretrained": {"race": {"table4": t4}}}, PAPER)
    assert t.loc[("race", "pretrained", "LOGAN"), ["n_biased", "bcr_pct"]].isna().all()
    assert t.loc[("race", "pretrained", "K-Means"), "n_biased"] == 1
    assert "race, pretrained, LOGAN (largest gap 100 points)" in t.attrs["note"]
    # race on pretrained features has the paper's row, from Tables 8-9
    paper = paper_feature_summary(PAPER)
    for col in ("n_biased", "bcr_pct", "max_abs_gap_pts"):
        assert t.loc[("race", "pretrained", "LOGAN"), f"paper_{col}"] == pytest.approx(
            paper.loc[("race", "pretrained", "LOGAN"), col]
        )
    with pytest.raises(ValueError, match="has no 'table4'"):
        feature_comparison({"pretrained": {"race": {}}})
    with pytest.raises(ValueError, match="runs_by_features is empty"):
        feature_comparison({})


def test_paper_columns_only_where_the_paper_has_the_row(compared: dict) -> None:
    t = feature_comparison(compared["runs"], PAPER)  # attribute "g": no counterpart
    assert not any(c.startswith("paper_") for c in t.columns)
    assert "No row has a counterpart in the paper" in t.attrs["note"]


def test_sentences_state_each_feature_sets_numbers_and_the_papers() -> None:
    def t4(n_biased: int, gap: float, why: str = "") -> pd.DataFrame:
        return pd.DataFrame({"lam": [0.0, 5.0], "n_eligible": [7, 7], "n_biased": [1, n_biased],
                             "bcr_pct": [14.3, 100 * n_biased / 7], "bir_pct": [9.0, 30.0],
                             "max_abs_gap_pts": [6.0, gap], "inertia_ratio": [1.0, 1.01],
                             "degenerate": ["", why]}, index=["K-Means", "LOGAN"])  # fmt: skip

    runs = {"fine-tuned": {"race": {"table4": t4(4, 27.25)}},
            "pretrained": {"race": {"table4": t4(2, 100.0, "largest gap 100 points")}}}  # fmt: skip
    table = feature_comparison(runs, PAPER)
    assert list(table.index) == [("race", f, m) for f in ("fine-tuned", "pretrained")
                                 for m in ("K-Means", "LOGAN")]  # fmt: skip
    text = feature_sentences(table)
    lines = text.splitlines()
    assert [line.split(":")[0] for line in lines] == ["- **race**, K-Means", "- **race**, LOGAN"]
    assert "fine-tuned features 4 biased of 7 clusters, largest gap 27.2 points" in lines[1]
    assert "pretrained features degenerate fit" in lines[1]
    paper = paper_feature_summary(PAPER).loc[("race", "fine-tuned", "LOGAN")]
    n, k, gap = int(paper["n_biased"]), int(paper["n_eligible"]), paper["max_abs_gap_pts"]
    want = f"The paper: fine-tuned {n} biased of {k} clusters, largest gap {gap:.1f}"
    assert want in lines[1]
    no_paper = feature_sentences(feature_comparison(runs))
    assert "The paper" not in no_paper
    with pytest.raises(ValueError, match="feature_comparison's"):
        feature_sentences(pd.DataFrame({"n_biased": [1]}))


# --- the paper's Tables 8-11 -------------------------------------------------------------------


def test_paper_summary_agrees_with_the_papers_own_tables_1_and_4() -> None:
    s = paper_feature_summary(PAPER)
    assert set(s.index.get_level_values("features")) == {"pretrained", "fine-tuned"}
    for method in ("K-Means", "LOGAN"):  # Table 4 (race, pretrained) from Tables 8-9's clusters
        row, t4 = s.loc[("race", "pretrained", method)], PAPER["table4_race"][method]
        assert row["bcr_pct"] == pytest.approx(t4["BCR"], abs=0.05)
        assert row["bir_pct"] == pytest.approx(t4["BIR"], abs=0.05)
        for attr in ("race", "gender"):  # Table 1's largest gap is the largest cluster's bias
            assert s.loc[(attr, "pretrained", method), "max_abs_gap_pts"] == pytest.approx(
                PAPER["table1"][attr][method]["bias"]
            )
    # not reported for the fine-tuned features
    assert np.isnan(s.loc[("race", "fine-tuned", "LOGAN"), "inertia_ratio"])


def test_transcribed_cluster_tables_hold_together() -> None:
    tables = PAPER["cluster_tables"]
    assert tables["columns"] == ["cluster", "n_1", "n_2", "acc_1", "acc_2", "bias"]
    sizes = {"pretrained": {"K-Means": {"gender": 10, "race": 8},
                            "LOGAN": {"gender": 7, "race": 8}},
             "fine-tuned": {"K-Means": {"gender": 10, "race": 7},
                            "LOGAN": {"gender": 10, "race": 9}}}  # fmt: skip
    for fs, by_method in sizes.items():
        for method, by_attr in by_method.items():
            for attr, k in by_attr.items():
                rows = pd.DataFrame(tables[fs][method][attr], columns=tables["columns"])
                assert list(rows["cluster"]) == list(range(k))
                assert (rows[["n_1", "n_2"]] >= 20).all().all()  # the paper's 20 per group
                # the printed bias is |acc_1 - acc_2| up to the printed rounding
                diff = (rows["acc_1"] - rows["acc_2"]).abs()
                assert (diff - rows["bias"]).abs().max() < 0.15


# --- the figure ---------------------------------------------------------------------------------


def test_figure_draws_the_tables_values(compared: dict) -> None:
    t = compared["table"].copy()
    t.loc[("g", "pretrained", "LOGAN"), "bcr_pct"] = np.nan  # as a degenerate fit would be
    t["paper_max_abs_gap_pts"] = [30.0, 31.0, np.nan, np.nan]
    fig = feature_comparison_figure(t)
    rows = [("g", "K-Means"), ("g", "LOGAN")]
    for ax, col in zip(fig.axes[:2], ("bcr_pct", "max_abs_gap_pts"), strict=True):
        assert [c.get_label() for c in ax.containers] == ["fine-tuned", "pretrained"]
        for bars, fs in zip(ax.containers, ("fine-tuned", "pretrained"), strict=True):
            want = [t.loc[(a, fs, m), col] for a, m in rows]
            got = [b.get_width() for b in bars]
            np.testing.assert_allclose(got, np.nan_to_num(want, nan=0.0))
        np.testing.assert_array_equal(ax.get_yticks(), [0, 1])
    labels = [tick.get_text() for tick in fig.axes[0].get_yticklabels()]
    assert labels == ["g: K-Means", "g: LOGAN"]  # the rows, named once (the panels share them)
    assert [x.get_text() for x in fig.axes[0].texts] == ["n/a"]  # the missing value says so
    (diamonds,) = fig.axes[1].collections  # the paper's gaps, on the fine-tuned bars
    np.testing.assert_allclose(diamonds.get_offsets()[:, 0], [30.0, 31.0])
    fine = [b.get_y() + b.get_height() / 2 for b in fig.axes[1].containers[0]]
    np.testing.assert_allclose(diamonds.get_offsets()[:, 1], fine)
    assert not fig.axes[0].collections  # no paper BCR in the table: no diamond
    for ax in fig.axes[:2]:
        assert_no_hidden_bars(ax)  # the feature sets' bars stand side by side
    assert_legend_clear(fig)
    assert_panel_texts_apart(fig)


def test_runs_by_features_reuses_the_chapters_runs_and_refits_the_rest(compared: dict) -> None:
    data = compared["data"]
    mine = {"g": _run(data)}
    kwargs = {"n_clusters": 6, "lam_grid": (1, 10, 100), "min_group_size": 20,
              "n_permutations": 5, "random_state": 0, "show_progress": False}  # fmt: skip
    got = runs_by_features(data, mine, **kwargs)
    assert list(got) == ["fine-tuned", "pretrained"]
    assert got["fine-tuned"]["g"] is mine["g"]  # the chapter's run, not refitted
    pd.testing.assert_frame_equal(
        got["pretrained"]["g"]["table4"], compared["runs"]["pretrained"]["g"]["table4"]
    )
    same = ex.LoganData(**{**_fields(data), "features": {"a": data.X, "b": data.X},
                           "feature_set": "a"})  # fmt: skip
    twice = runs_by_features(same, mine, **kwargs)
    assert twice["a"]["g"] is mine["g"] and twice["b"]["g"] is mine["g"]  # one array: no refit


def _fields(data: ex.LoganData) -> dict:
    return {"X": data.X, "y_true": data.y_true, "y_pred": data.y_pred, "y_score": data.y_score,
            "groups": data.groups, "pairs": data.pairs, "source": data.source}  # fmt: skip
