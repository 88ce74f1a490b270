"""End to end on the planted-bias scenario: the metrics detect the bias, the mitigation reduces it.

Dixon et al. (2018) in miniature, on the generated data of
:func:`nlpbias.studies.pinned_auc.synthetic.make_mitigation_scenario` (three identity terms toxic at
0.8, the others at 0.2): the fast linear baseline is trained on ``train`` (baseline), on
``train`` + :func:`nlpbias.studies.pinned_auc.mitigation.balance_by_length` additions from
``debias_pool`` (mitigated) and on ``train`` + as many
:func:`nlpbias.studies.pinned_auc.mitigation.random_control` texts per length bucket (control);
each model scores the identity templates, thresholded at the equal-error rate of ``general_test``
(the paper's text). Three seeds; the assertions are on the means over seeds and on where the ground
truth puts the bias.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.data.synthetic import DEFAULT_TERMS
from nlpbias.models.classifiers import linear_baseline
from nlpbias.studies.pinned_auc.metrics import bias_report
from nlpbias.studies.pinned_auc.mitigation import balance_by_length, random_control
from nlpbias.studies.pinned_auc.roc import auc, eer_threshold
from nlpbias.studies.pinned_auc.synthetic import DEFAULT_BIASED_TERMS, make_mitigation_scenario

pytestmark = pytest.mark.slow  # ~6 s: 9 linear models on 6,000-7,000 texts each

SEEDS = (0, 1, 2)
TERMS = list(DEFAULT_TERMS)
BIASED = list(DEFAULT_BIASED_TERMS)
OTHERS = [t for t in TERMS if t not in BIASED]


def _fit_and_report(train: pd.DataFrame, data: dict[str, pd.DataFrame], seed: int):
    model = linear_baseline(random_state=seed)
    model.fit(train["text"].tolist(), train["toxic"].to_numpy())
    general, templates = data["general_test"], data["templates"]
    s_general = model.predict_proba(general["text"].tolist())[:, 1]
    s_templates = model.predict_proba(templates["text"].tolist())[:, 1]
    report = bias_report(
        templates["toxic"],
        s_templates,
        texts=templates["text"],
        terms=TERMS,
        threshold=eer_threshold(general["toxic"], s_general),
        random_state=seed,
    )
    return report, auc(general["toxic"], s_general)


@pytest.fixture(scope="module")
def runs() -> dict[str, pd.DataFrame]:
    """Per seed and model: Dixon's differences, general AUC, per-term metrics, additions."""
    summary, by_term, added = [], [], []
    for seed in SEEDS:
        data = make_mitigation_scenario(random_state=seed)
        train = data["train"][["text", "toxic"]]
        result = balance_by_length(
            data["train"], data["debias_pool"], terms=TERMS, n_buckets=5, random_state=seed
        )
        control = random_control(
            data["train"], data["random_pool"], result, random_state=seed, n_buckets=5
        )
        variants = {
            "baseline": train,
            "mitigated": pd.concat([train, result.added[["text", "toxic"]]], ignore_index=True),
            "control": pd.concat([train, control[["text", "toxic"]]], ignore_index=True),
        }
        for name, frame in variants.items():
            report, auc_general = _fit_and_report(frame, data, seed)
            diff = report.difference()
            summary.append(
                {
                    "seed": seed,
                    "model": name,
                    "FPED": diff["FPED"],
                    "FNED": diff["FNED"],
                    "PAED": diff["PAED"],
                    "n_terms": diff["n_terms_PAED"],
                    "auc_general": auc_general,
                    "n_train": len(frame),
                }
            )
            by_term.append(report.by_group.assign(seed=seed, model=name))
        added.append(result.added["term"].value_counts().rename(seed))
    return {
        "summary": pd.DataFrame(summary),
        "by_term": pd.concat(by_term, ignore_index=True),
        "added": pd.concat(added, axis=1).fillna(0),
    }


def _mean(runs: dict[str, pd.DataFrame], model: str, metric: str) -> float:
    s = runs["summary"]
    return float(s.loc[s["model"] == model, metric].mean())


def test_every_metric_is_defined_for_every_term(runs) -> None:
    assert (runs["summary"]["n_terms"] == len(TERMS)).all()
    assert (runs["by_term"]["status"] == "ok").all()


def test_mitigation_adds_texts_for_the_biased_terms(runs) -> None:
    added = runs["added"].reindex(TERMS, fill_value=0).mean(axis=1)  # mean over seeds
    # the planted terms need far more non-toxic texts than any other term
    assert added.loc[BIASED].min() > 3 * added.loc[OTHERS].max()
    s = runs["summary"].set_index(["seed", "model"])["n_train"].unstack()
    assert (s["mitigated"] == s["control"]).all() and (s["mitigated"] > s["baseline"]).all()


def test_the_metrics_detect_the_planted_bias(runs) -> None:
    # clearly > 0: three biased terms whose non-toxic templates cross the threshold
    assert _mean(runs, "baseline", "FPED") > 2.0
    assert _mean(runs, "baseline", "PAED") > 0.03
    # ... and the bias is where it was planted
    g = runs["by_term"].query("model == 'baseline'").groupby("term")[["fpr", "pinned_auc"]].mean()
    assert g.loc[BIASED, "fpr"].min() > g.loc[OTHERS, "fpr"].max() + 0.3
    assert g.loc[BIASED, "pinned_auc"].mean() < g.loc[OTHERS, "pinned_auc"].mean()


def test_mitigation_reduces_fped_and_paed(runs) -> None:
    for metric in ("FPED", "PAED"):
        before, after = _mean(runs, "baseline", metric), _mean(runs, "mitigated", metric)
        assert after < 0.5 * before, (metric, before, after)
    # per term: the biased terms' false positive rates come down to the others' level
    g = runs["by_term"].query("model == 'mitigated'").groupby("term")["fpr"].mean()
    b = runs["by_term"].query("model == 'baseline'").groupby("term")["fpr"].mean()
    assert (g.loc[BIASED] < b.loc[BIASED] - 0.3).all()


def test_random_control_of_the_same_size_does_not(runs) -> None:
    for metric in ("FPED", "PAED"):
        before, control = _mean(runs, "baseline", metric), _mean(runs, "control", metric)
        assert control > 0.75 * before, (metric, before, control)
        assert control > 2 * _mean(runs, "mitigated", metric), metric


def test_mitigation_keeps_general_quality(runs) -> None:
    s = runs["summary"].set_index(["seed", "model"])["auc_general"].unstack()
    assert (s["baseline"] > 0.85).all()
    assert np.mean(s["mitigated"]) > np.mean(s["baseline"]) - 0.02
