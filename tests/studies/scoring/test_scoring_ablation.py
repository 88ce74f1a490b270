"""The fine-tuning ablation (seed 003's Figure 3 choices): its spec, the rows' recipes, the
paired differences, the seed rule per choice, the sentences and the figure's marks."""

from __future__ import annotations

import doctest
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection

from nlpbias.studies.scoring import ablation as mod
from nlpbias.studies.scoring import figures
from nlpbias.studies.scoring.ablation import (
    AblationSpec,
    ablation_statements,
    ablation_table,
    paired_differences,
    run_ablation,
)

ROWS = {"ref": {}, "big": {"learning_rate": 1e-3}, "noise": {"optimiser": "momentum"}}
SPEC = {"person": "Trump", "seeds": [0, 1, 2], "max_steps": 30, "rows": ROWS}
REF = {0: -0.10, 1: -0.12, 2: -0.11}
# planted: "big" moves every seed by +0.05 (± 0.002); "noise" by ±0.01 (both signs)
SHIFT = {"big": {0: 0.050, 1: 0.052, 2: 0.048}, "noise": {0: 0.01, 1: -0.01, 2: 0.002}}


def test_doctests() -> None:
    assert doctest.testmod(mod, raise_on_error=False).failed == 0


def results(concepts=("career", "average")) -> pd.DataFrame:
    rows = []
    for row in ROWS:
        for seed, ref in REF.items():
            for k, concept in enumerate(concepts):
                bias = ref + k * 0.01 + SHIFT.get(row, {}).get(seed, 0.0)
                rows.append({"row": row, "seed": seed, "concept": concept, "bias": bias,
                             "base": -0.2, "top-1": 0.3 + seed / 100, "steps": 30})  # fmt: skip
    out = pd.DataFrame(rows)
    out.attrs.update(reference="ref", person="Trump")
    return out


# ----------------------------------------------------------------------------- the spec
def test_spec_from_mapping() -> None:
    spec = AblationSpec.from_mapping(SPEC)
    assert spec.seeds == (0, 1, 2) and spec.reference == "ref" and spec.max_steps == 30
    assert list(spec.rows) == ["ref", "big", "noise"]


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"rows": {"ref": {}}}, ValueError, "2 rows at least"),
        ({"rows": {"ref": {"links": True}, "b": {}}}, ValueError, "must change nothing"),
        ({"rows": {"ref": {}, "b": {"dropout": 0.2}}}, KeyError, "unknown change"),
        ({"rows": {"ref": {}, "b": 3}}, TypeError, "dict of changes"),
        ({"seeds": [0, 0]}, ValueError, "distinct"),
        ({"max_steps": 0}, ValueError, "max_steps"),
        ({"person": ""}, TypeError, "person"),
        ({"extra": 1}, KeyError, "unknown"),
    ],
)
def test_spec_errors(change, error, match) -> None:
    with pytest.raises(error, match=match):
        AblationSpec.from_mapping({**SPEC, **change})


def test_spec_names_a_missing_key() -> None:
    with pytest.raises(KeyError, match="missing \\['rows'\\]"):
        AblationSpec.from_mapping({k: v for k, v in SPEC.items() if k != "rows"})


# ----------------------------------------------------------------------------- run_ablation
def test_run_ablation_applies_each_rows_changes_to_the_recipe(monkeypatch) -> None:
    calls = []
    jobs = []

    def fake_many(runs, *, n_jobs, show_progress):  # rows in turn, 2 seeds each
        calls.extend(runs)
        jobs.append(n_jobs)
        return [
            SimpleNamespace(path=Path(f"m{i // 2 + 1}-{r['random_state']}"),
                            after={"top1": 0.1 * (i // 2 + 1)}, steps=r["max_steps"])
            for i, r in enumerate(runs)
        ]  # fmt: skip

    def fake_scores(models, fws):
        ((label, path),) = models.items()
        value = -0.3 if label == "base" else float(str(path)[1]) / 10
        return pd.DataFrame({"model": [label], "value": [value]})

    def fake_biases(scores, fws):
        v = float(scores["value"].iloc[0])
        return pd.DataFrame({"model": scores["model"].iloc[0], "concept": ["career", "average"],
                             "bias": [v, v / 2]})  # fmt: skip

    monkeypatch.setattr(mod, "fine_tune_many", fake_many)
    monkeypatch.setattr(mod, "score_models", fake_scores)
    monkeypatch.setattr(mod, "concept_biases", fake_biases)
    corpora = {"Trump": (["a", "b"], ["c"]), "planted": (["x"] * 10, None)}
    spec = AblationSpec.from_mapping(
        {
            **SPEC,
            "seeds": [0, 1],
            "rows": {"ref": {}, "fast": {"learning_rate": 1e-3}, "long": {"max_steps": 60}},
        }  # fmt: skip
    )
    recipe = {"epochs": 1, "learning_rate": 5e-5, "batch_size": 32, "max_length": 128}
    out = run_ablation("base", corpora, spec, [], recipe=recipe, random_state=0, n_jobs=2)
    assert jobs == [2]  # every row and seed in one pool
    fields = ("base", "texts", "val_texts", "random_state")
    assert [{k: v for k, v in c.items() if k not in fields} for c in calls[::2]] == [
        {**recipe, "max_steps": 30},
        {**recipe, "max_steps": 30, "learning_rate": 1e-3},
        {**recipe, "max_steps": 60},
    ]
    assert [c["random_state"] for c in calls] == [0, 1] * 3
    assert all(c["texts"] == ["a", "b"] and c["val_texts"] == ["c"] for c in calls)
    assert list(dict.fromkeys(out["row"])) == ["ref", "fast", "long"]
    assert out.attrs["reference"] == "ref"
    long = out[(out["row"] == "long") & (out["concept"] == "career")]
    assert long["bias"].tolist() == [0.3, 0.3] and long["steps"].tolist() == [60, 60]
    assert (out["base"][out["concept"] == "career"] == -0.3).all()
    with pytest.raises(KeyError, match="not among this run's people"):
        run_ablation("base", {"planted": corpora["planted"]}, spec, [], recipe=recipe,
                     random_state=0, n_jobs=1)  # fmt: skip


def test_links_need_one_of_dongs_people() -> None:
    spec = AblationSpec.from_mapping({**SPEC, "person": "planted"})
    with pytest.raises(ValueError, match="with and without links"):
        mod._row_corpus(spec, {"links": True}, ["a"])
    assert mod._row_corpus(spec, {}, ["a"]) == ["a"]


# ----------------------------------------------------------------------------- the table
def test_paired_differences_are_taken_seed_by_seed() -> None:
    d = paired_differences(results(), "average")
    assert list(d.columns) == ["row", "seed", "concept", "difference"]
    assert d["row"].tolist() == ["big"] * 3 + ["noise"] * 3
    np.testing.assert_allclose(d["difference"], [*SHIFT["big"].values(), *SHIFT["noise"].values()])


def test_table_applies_the_seed_rule_to_each_choice() -> None:
    t = ablation_table(results())
    assert t.index.tolist() == ["ref", "big", "noise"]
    assert t.loc["ref", "moves"] is None and np.isnan(t.loc["ref", "mean Δ"])
    assert t.loc["big", "moves"] is True  # mean 0.05 > range 0.004
    assert t.loc["noise", "moves"] is False  # signs differ
    assert t.loc["big", "mean Δ"] == pytest.approx(0.05)
    assert t.loc["big", "range Δ"] == pytest.approx(0.004)
    ref_avg = np.array(list(REF.values())) + 0.01  # "average" is the second concept here
    assert t.loc["ref", "mean bias"] == pytest.approx(ref_avg.mean())
    assert t.loc["ref", "top-1"] == pytest.approx(0.31)
    assert [c for c in t.columns if c.startswith("bias seed")] == [f"bias seed {s}" for s in REF]


def test_table_flips_when_the_planted_shift_does() -> None:
    r = results()
    r.loc[(r["row"] == "big") & (r["seed"] == 1), "bias"] -= 0.104  # seed 1 now −0.052
    assert ablation_table(r).loc["big", "moves"] is False


def test_table_errors() -> None:
    with pytest.raises(KeyError, match="top-1"):
        ablation_table(results().drop(columns="top-1"))
    with pytest.raises(ValueError, match="no concept"):
        ablation_table(results(), concept="leader")
    lacking = results()
    lacking = lacking[~((lacking["row"] == "big") & (lacking["seed"] == 2))]
    with pytest.raises(ValueError, match="lacks a seed"):
        ablation_table(lacking)


def test_statements_sort_the_choices_by_the_rule() -> None:
    text = ablation_statements(ablation_table(results()))
    moved, stayed = text.split("**do not:**")
    assert "*big* (+0.050" in moved and "noise" not in moved
    assert "*noise*" in stayed and "Trump's average bias" in text
    one = results()
    one = one[one["seed"] == 0]
    assert "one seed" in ablation_statements(ablation_table(one))


# ----------------------------------------------------------------------------- the figure
def test_figure_marks_are_the_paired_differences(close) -> None:
    r = results()
    fig = close(figures.ablation_figure(r))
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["average", "career"]  # average first
    ax = axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["big", "noise"]
    scatter = [c for c in ax.collections if isinstance(c, PathCollection)]
    points = np.vstack([c.get_offsets() for c in scatter])
    expected = paired_differences(r, "average")
    got = sorted(map(tuple, np.round(points, 9)))
    want = sorted(
        (round(d, 9), float(["big", "noise"].index(row)))
        for row, d in zip(expected["row"], expected["difference"], strict=True)
    )
    assert got == want
    assert "ref" in ax.get_xlabel() and "Trump" in fig._suptitle.get_text()


def test_training_progress_ranks_top1_against_the_distance_from_the_base() -> None:
    t = ablation_table(results())
    # base −0.2: "big" is farthest from it (+0.05 on every seed) but the planted top-1 is the
    # same for every row, so there is no ranking to read
    assert mod.training_progress(t) is None
    r = results()
    r["top-1"] = r["row"].map({"ref": 0.2, "big": 0.1, "noise": 0.15})
    rho, n = mod.training_progress(ablation_table(r))
    # distances from −0.2: ref 0.10, noise 0.1007, big 0.15: top-1 falls as they grow
    assert n == 3 and rho < 0
    text = ablation_statements(ablation_table(r))
    assert "Spearman's ρ = " in text and "more than how much they let the model learn" in text
    r["top-1"] = r["row"].map({"ref": 0.1, "big": 0.3, "noise": 0.15})  # the same order
    text = ablation_statements(ablation_table(r))
    assert "the less a row learnt, the closer its bias stayed" in text
    assert "the base model's: 0.2" not in text and "the base model's: −0.200" in text
    no_base = ablation_table(r.drop(columns="base"))
    assert mod.training_progress(no_base) is None
