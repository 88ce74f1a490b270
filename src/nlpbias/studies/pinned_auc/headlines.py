"""The pinned-AUC chapter's headline rows for the reproduction scorecard.

Dixon et al.'s headline is Table 5 (and the template row of Table 4): the mitigated family has
lower equality differences and a higher template AUC than the baseline. The paper sums FPED/FNED/
PAED over its 10 models per family; a row here compares per-model means, so the paper's number is
its difference of sums divided by its number of models. This book's number is the difference of
the family means over its seeds, with a bootstrap interval that resamples each family's models
(:func:`nlpbias.studies.pinned_auc.scenarios.family_difference`).
"""

from __future__ import annotations

import pandas as pd

from nlpbias.core.scorecard import headline
from nlpbias.studies.pinned_auc.scenarios import family_difference
from nlpbias.studies.pinned_auc.study import reported

__all__ = ["headlines"]

CHAPTER = "pinned_auc"

_CLAIMS = {
    "FPED": "Balancing the training data lowers the false positive equality difference (FPED) "
    "on the identity templates",
    "PAED": "Balancing the training data lowers the pinned AUC equality difference (PAED) on the "
    "identity templates",
    "auc_templates": "Balancing the training data raises the AUC on the identity templates",
}


def _paper_difference(rep: dict, metric: str, reference: str = "baseline") -> float:
    if metric == "auc_templates":
        t4 = rep["table4"].set_index(["eval_set", "family"])["reported_auc"]
        return float(t4[("templates", "bias mitigated")] - t4[("templates", reference)])
    t5 = rep["table5"].set_index(["metric", "family"])["reported_sum"]
    diff = t5[(metric, "bias mitigated")] - t5[(metric, reference)]
    return float(diff / rep["n_models"])


def headlines(
    per_model: pd.DataFrame,
    *,
    main: str,
    skew: str | None = None,
    source: str,
    model: str,
    n_bootstrap: int,
    random_state: int | None,
) -> list[dict]:
    """Headline rows from :func:`~nlpbias.studies.pinned_auc.scenarios.compare_scenarios`.

    Parameters
    ----------
    per_model : DataFrame
        The per-model frame of ``compare_scenarios`` (``scenario, terms, family, seed``, the
        equality differences and ``auc_templates``).
    main, skew : str
        The scenario names of the paper's recipe and of the in-domain skew scenario (rows for
        the latter are added when given).
    source : {"real", "synthetic"}
        ``StudyData.source`` of the run.
    model : {"cnn", "linear"}
        The classifier. The CNN's numbers differ between CPUs (``data/machines/pinned_auc.yaml``),
        so its rows carry ``stability="varies across CPUs"``; the linear model's rows keep the
        default.

    Every row is judged on the bootstrap interval over each family's models (seeds), which
    includes the seed-to-seed spread the chapter measures; the row's ``interval`` says so.
    """
    data = "real" if source == "real" else "synthetic"
    stability = "varies across CPUs" if model == "cnn" else "bit-identical"
    rep = reported("dixon2018")
    every = per_model[per_model["terms"] == "all terms"]
    scenarios = [(main, "", "pinned-table5")]
    if skew is not None:
        scenarios.append((skew, "_in_domain", "pinned-in-domain-skew"))
    rows = []
    for scenario, suffix, section in scenarios:
        part = every[every["scenario"] == scenario]
        if part.empty:
            raise ValueError(
                f"headlines: no per-model rows for scenario {scenario!r} over all terms; "
                f"scenarios: {sorted(every['scenario'].unique())}"
            )
        comparisons = [(m, "baseline") for m in ("FPED", "PAED", "auc_templates")]
        if not suffix:
            comparisons.append(("auc_templates", "random control"))
        for metric, reference in comparisons:
            d = family_difference(
                part,
                metric,
                reference=reference,
                n_bootstrap=n_bootstrap,
                random_state=random_state,
            )
            # one model in a family: its bootstrap has zero width, which is no interval
            has_interval = min(d["n_treated"], d["n_reference"]) >= 2
            claim = _CLAIMS[metric]
            if reference != "baseline":
                claim += ", more than adding as many random texts"
            if suffix:
                claim += " — also when the terms are over-represented among toxic training texts"
            key = metric.lower() + ("" if reference == "baseline" else "_vs_control") + suffix
            rows.append(
                headline(
                    study=CHAPTER,
                    key=key,
                    claim=claim + ".",
                    paper=_paper_difference(rep, metric, reference),
                    book=d["difference"],
                    ci_low=d["ci_low"] if has_interval else None,
                    ci_high=d["ci_high"] if has_interval else None,
                    interval=(
                        f"bootstrap over {d['n_treated']} + {d['n_reference']} models, one per "
                        f"seed (mitigated − {reference}, per model; includes the seed-to-seed "
                        "spread)"
                    ),
                    stability=stability,
                    data=data,
                    chapter=CHAPTER,
                    section=section,
                    unit="per model" if metric != "auc_templates" else "AUC",
                    note=f"scenario: {scenario}",
                )
            )
    return rows
